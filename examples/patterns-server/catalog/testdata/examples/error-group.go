// Error group: the first failure cancels the siblings; Wait returns it.
package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Group runs goroutines that share a context cancelled on the first error.
type Group struct {
	wg     sync.WaitGroup
	once   sync.Once
	err    error
	cancel context.CancelFunc
}

// WithContext returns a group and the context its tasks should watch.
func WithContext(ctx context.Context) (*Group, context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	return &Group{cancel: cancel}, ctx
}

// Go runs f in a new goroutine.
func (g *Group) Go(f func() error) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		if err := f(); err != nil {
			g.once.Do(func() {
				g.err = err
				g.cancel()
			})
		}
	}()
}

// Wait blocks until every task returned and reports the first error.
func (g *Group) Wait() error {
	g.wg.Wait()
	g.cancel()
	return g.err
}

func main() {
	g, ctx := WithContext(context.Background())
	g.Go(func() error { return errors.New("fetch failed") })
	g.Go(func() error {
		<-ctx.Done() // stops because the sibling failed
		return ctx.Err()
	})
	fmt.Println("first error:", g.Wait())
}
