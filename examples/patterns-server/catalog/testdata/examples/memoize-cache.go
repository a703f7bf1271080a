// Memoisation: compute each key once, even under concurrency.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

type Memo[K comparable, V any] struct {
	mu    sync.Mutex
	calls map[K]func() V
	f     func(K) V
}

func NewMemo[K comparable, V any](f func(K) V) *Memo[K, V] {
	return &Memo[K, V]{calls: map[K]func() V{}, f: f}
}

func (m *Memo[K, V]) Get(k K) V {
	m.mu.Lock()
	call, ok := m.calls[k]
	if !ok {
		call = sync.OnceValue(func() V { return m.f(k) })
		m.calls[k] = call
	}
	m.mu.Unlock()
	return call() // outside the lock: other keys are not blocked
}

func main() {
	var computed atomic.Int32
	m := NewMemo(func(n int) int { computed.Add(1); return n * n })
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() { defer wg.Done(); m.Get(12) }()
	}
	wg.Wait()
	fmt.Println(m.Get(12), computed.Load())
}
