// Enumerations with iota and a String method.
package main

import "fmt"

type Priority int

const (
	PriorityUnknown Priority = iota // the zero value means "not set"
	PriorityLow
	PriorityHigh
)

func (p Priority) String() string {
	switch p {
	case PriorityLow:
		return "low"
	case PriorityHigh:
		return "high"
	default:
		return fmt.Sprintf("Priority(%d)", int(p))
	}
}

func main() {
	var p Priority
	fmt.Println(p, PriorityLow, PriorityHigh)
}
