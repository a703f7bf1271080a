// Preallocating slices and maps of known size.
package main

import (
	"fmt"
	"strings"
)

func upper(in []string) []string {
	out := make([]string, 0, len(in)) // one allocation, no regrowth
	for _, s := range in {
		out = append(out, strings.ToUpper(s))
	}
	return out
}

func index(in []string) map[string]int {
	m := make(map[string]int, len(in))
	for i, s := range in {
		m[s] = i
	}
	return m
}

func main() {
	words := []string{"a", "b", "c"}
	fmt.Println(upper(words), index(words)["c"])
}
