// Strategies as function types.
package main

import (
	"fmt"
	"time"
)

// Backoff returns the delay before retry number attempt (starting at 0).
type Backoff func(attempt int) time.Duration

func Constant(d time.Duration) Backoff { return func(int) time.Duration { return d } }

func Exponential(base time.Duration) Backoff {
	return func(attempt int) time.Duration { return base << attempt }
}

func schedule(b Backoff, attempts int) []time.Duration {
	var out []time.Duration
	for i := range attempts {
		out = append(out, b(i))
	}
	return out
}

func main() {
	fmt.Println(schedule(Constant(time.Second), 3))
	fmt.Println(schedule(Exponential(100*time.Millisecond), 4))
}
