// A generic set built on a map.
package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

type Set[T comparable] map[T]struct{}

func NewSet[T comparable](items ...T) Set[T] {
	s := make(Set[T], len(items))
	for _, v := range items {
		s.Add(v)
	}
	return s
}

func (s Set[T]) Add(v T)      { s[v] = struct{}{} }
func (s Set[T]) Has(v T) bool { _, ok := s[v]; return ok }

func Intersect[T comparable](a, b Set[T]) Set[T] {
	out := Set[T]{}
	for v := range a {
		if b.Has(v) {
			out.Add(v)
		}
	}
	return out
}

func Sorted[T cmp.Ordered](s Set[T]) []T { return slices.Sorted(maps.Keys(s)) }

func main() {
	a := NewSet("go", "rust", "zig")
	b := NewSet("go", "zig", "c")
	fmt.Println(Sorted(Intersect(a, b)), a.Has("c"))
}
