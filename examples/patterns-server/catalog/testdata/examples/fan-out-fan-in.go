// Fan-out, fan-in: several readers of one channel, merged back into one.
package main

import (
	"fmt"
	"sync"
)

func worker(in <-chan int) <-chan int {
	out := make(chan int)
	go func() {
		defer close(out)
		for n := range in {
			out <- n * 10
		}
	}()
	return out
}

func merge(chans ...<-chan int) <-chan int {
	out := make(chan int)
	var wg sync.WaitGroup
	for _, c := range chans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range c {
				out <- v
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()
	return out
}

func main() {
	in := make(chan int)
	go func() {
		defer close(in)
		for i := range 6 {
			in <- i
		}
	}()
	total := 0
	for v := range merge(worker(in), worker(in), worker(in)) {
		total += v
	}
	fmt.Println("total:", total)
}
