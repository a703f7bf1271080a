// Small values instead of pointers: stack-friendly and cache-friendly.
package main

import "fmt"

type Point struct{ X, Y int }

// Add returns a new value; nothing needs to escape to the heap.
func (p Point) Add(q Point) Point { return Point{p.X + q.X, p.Y + q.Y} }

func centroid(ps []Point) Point { // []Point is one contiguous block
	var sum Point
	for _, p := range ps {
		sum = sum.Add(p)
	}
	if len(ps) == 0 {
		return sum
	}
	return Point{sum.X / len(ps), sum.Y / len(ps)}
}

func main() {
	fmt.Println(centroid([]Point{{0, 0}, {4, 0}, {4, 4}, {0, 4}}))
	// Inspect with: go build -gcflags=-m
}
