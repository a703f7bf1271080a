// Mutex-guarded state: the lock lives next to the data it protects.
package main

import (
	"fmt"
	"maps"
	"sync"
)

// Hits counts visits per path; safe for concurrent use.
type Hits struct {
	mu     sync.Mutex
	counts map[string]int
}

// Add records one visit.
func (h *Hits) Add(path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.counts == nil {
		h.counts = map[string]int{}
	}
	h.counts[path]++
}

// Snapshot returns a copy the caller may keep.
func (h *Hits) Snapshot() map[string]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.counts)
}

func main() {
	var h Hits
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.Add("/")
		}()
	}
	wg.Wait()
	fmt.Println(h.Snapshot()["/"])
}
