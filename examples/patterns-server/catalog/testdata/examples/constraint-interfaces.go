// Constraints with type sets: operators on type parameters.
package main

import (
	"cmp"
	"fmt"
)

type Number interface {
	~int | ~int64 | ~float64
}

func Sum[T Number](xs []T) T {
	var total T
	for _, x := range xs {
		total += x
	}
	return total
}

func Max[T cmp.Ordered](a T, rest ...T) T {
	m := a
	for _, x := range rest {
		if x > m {
			m = x
		}
	}
	return m
}

type Celsius float64

func main() {
	fmt.Println(Sum([]Celsius{20.5, 21.5}))
	fmt.Println(Max("pear", "apple", "zucchini"))
}
