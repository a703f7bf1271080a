// Recover at a boundary: one bad job becomes an error, not a crash.
package main

import (
	"fmt"
	"runtime/debug"
)

func runJob(job func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("job panicked: %v\n%s", r, debug.Stack())
		}
	}()
	job()
	return nil
}

func main() {
	var m map[string]int
	err := runJob(func() { m["boom"] = 1 }) // assignment to nil map panics
	fmt.Println(err != nil)
	fmt.Println(runJob(func() {}) == nil)
}
