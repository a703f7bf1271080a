// A typed priority queue over container/heap.
package main

import (
	"container/heap"
	"fmt"
)

type items[T any] struct {
	s    []T
	less func(a, b T) bool
}

func (h *items[T]) Len() int           { return len(h.s) }
func (h *items[T]) Less(i, j int) bool { return h.less(h.s[i], h.s[j]) }
func (h *items[T]) Swap(i, j int)      { h.s[i], h.s[j] = h.s[j], h.s[i] }
func (h *items[T]) Push(x any)         { h.s = append(h.s, x.(T)) }
func (h *items[T]) Pop() any {
	v := h.s[len(h.s)-1]
	h.s = h.s[:len(h.s)-1]
	return v
}

// PriorityQueue pops the least element first.
type PriorityQueue[T any] struct{ h *items[T] }

func NewPriorityQueue[T any](less func(a, b T) bool) *PriorityQueue[T] {
	return &PriorityQueue[T]{h: &items[T]{less: less}}
}

func (q *PriorityQueue[T]) Push(v T) { heap.Push(q.h, v) }
func (q *PriorityQueue[T]) Pop() T   { return heap.Pop(q.h).(T) }
func (q *PriorityQueue[T]) Len() int { return q.h.Len() }

type task struct {
	name     string
	priority int
}

func main() {
	q := NewPriorityQueue(func(a, b task) bool { return a.priority < b.priority })
	q.Push(task{"write docs", 3})
	q.Push(task{"fix outage", 1})
	q.Push(task{"review", 2})
	for q.Len() > 0 {
		fmt.Println(q.Pop().name)
	}
}
