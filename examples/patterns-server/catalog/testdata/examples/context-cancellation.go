// Context cancellation: blocking work returns when its context ends.
package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

func slowAnswer(ctx context.Context) (int, error) {
	result := make(chan int, 1) // buffered: the sender never blocks after we leave
	go func() {
		time.Sleep(50 * time.Millisecond)
		result <- 42
	}()
	select {
	case v := <-result:
		return v, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := slowAnswer(ctx)
	fmt.Println("timed out:", errors.Is(err, context.DeadlineExceeded))
}
