// A typed wrapper over sync.Map.
package main

import (
	"fmt"
	"sync"
)

type Map[K comparable, V any] struct{ m sync.Map }

func (m *Map[K, V]) Load(k K) (V, bool) {
	v, ok := m.m.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

func (m *Map[K, V]) Store(k K, v V) { m.m.Store(k, v) }

func (m *Map[K, V]) LoadOrStore(k K, v V) (V, bool) {
	actual, loaded := m.m.LoadOrStore(k, v)
	return actual.(V), loaded
}

func main() {
	var m Map[string, int]
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.LoadOrStore("first", i)
		}()
	}
	wg.Wait()
	_, ok := m.Load("first")
	fmt.Println(ok)
}
