// Worker pool: a fixed number of goroutines drain a job channel.
package main

import (
	"fmt"
	"sync"
)

type result struct {
	job, square int
}

func main() {
	jobs := make(chan int)
	results := make(chan result)

	const workers = 3
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- result{job: j, square: j * j}
			}
		}()
	}

	go func() {
		for i := 1; i <= 9; i++ {
			jobs <- i
		}
		close(jobs)
	}()

	go func() {
		wg.Wait()
		close(results)
	}()

	sum := 0
	for r := range results {
		sum += r.square
	}
	fmt.Println("sum of squares:", sum)
}
