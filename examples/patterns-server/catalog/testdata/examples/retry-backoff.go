// Retry with exponential backoff and jitter, bounded by attempts and context.
package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

var errTransient = errors.New("transient")

func retry(ctx context.Context, attempts int, base time.Duration, op func() error) error {
	var err error
	for i := range attempts {
		if err = op(); err == nil || !errors.Is(err, errTransient) {
			return err
		}
		delay := base<<i + rand.N(base)
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
	return fmt.Errorf("after %d attempts: %w", attempts, err)
}

func main() {
	calls := 0
	err := retry(context.Background(), 5, time.Millisecond, func() error {
		calls++
		if calls < 3 {
			return errTransient
		}
		return nil
	})
	fmt.Println(err, calls)
}
