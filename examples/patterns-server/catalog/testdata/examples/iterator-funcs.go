// Range-over-func iterators with iter.Seq.
package main

import (
	"fmt"
	"iter"
)

type List[T any] struct {
	head *node[T]
}

type node[T any] struct {
	v    T
	next *node[T]
}

func (l *List[T]) Push(v T) { l.head = &node[T]{v: v, next: l.head} }

// All yields the values front to back and stops when the caller breaks.
func (l *List[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		for n := l.head; n != nil; n = n.next {
			if !yield(n.v) {
				return
			}
		}
	}
}

func Evens(limit int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < limit; i += 2 {
			if !yield(i) {
				return
			}
		}
	}
}

func main() {
	var l List[string]
	l.Push("c")
	l.Push("b")
	l.Push("a")
	for v := range l.All() {
		fmt.Print(v, " ")
	}
	for n := range Evens(100) {
		if n > 6 {
			break
		}
		fmt.Print(n, " ")
	}
	fmt.Println()
}
