// Copy-on-write configuration behind an atomic.Pointer.
package main

import (
	"fmt"
	"maps"
	"sync/atomic"
)

type Config struct {
	Limits map[string]int // never modified after Store
}

var current atomic.Pointer[Config]

func limit(name string) int { return current.Load().Limits[name] }

func setLimit(name string, v int) {
	for {
		old := current.Load()
		next := &Config{Limits: maps.Clone(old.Limits)}
		next.Limits[name] = v
		if current.CompareAndSwap(old, next) {
			return
		}
	}
}

func main() {
	current.Store(&Config{Limits: map[string]int{"rps": 100}})
	before := current.Load()
	setLimit("rps", 200)
	fmt.Println(before.Limits["rps"], limit("rps"))
}
