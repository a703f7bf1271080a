// Semaphore: a buffered channel bounds how many goroutines run at once.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

func main() {
	sem := make(chan struct{}, 2) // at most two at a time
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for i := range 10 {
		sem <- struct{}{} // acquire before starting the goroutine
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }() // release
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			_ = i * i
			running.Add(-1)
		}()
	}
	wg.Wait()
	fmt.Println("peak parallelism <= 2:", peak.Load() <= 2)
}
