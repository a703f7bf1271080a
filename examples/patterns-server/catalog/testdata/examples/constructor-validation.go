// Constructors that validate: every value that exists is valid.
package main

import "fmt"

// Percent is an integer in [0, 100].
type Percent struct{ v int }

func NewPercent(v int) (Percent, error) {
	if v < 0 || v > 100 {
		return Percent{}, fmt.Errorf("percent %d out of range [0, 100]", v)
	}
	return Percent{v: v}, nil
}

func (p Percent) Of(total float64) float64 { return total * float64(p.v) / 100 }

func main() {
	p, err := NewPercent(25)
	fmt.Println(p.Of(80), err)
	_, err = NewPercent(140)
	fmt.Println(err)
}
