// Atomic counters: lock-free single-word state.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

type stats struct {
	requests atomic.Int64
	ready    atomic.Bool
}

func main() {
	var s stats
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.requests.Add(1)
		}()
	}
	wg.Wait()
	s.ready.Store(true)
	fmt.Println(s.requests.Load(), s.ready.Load())
}
