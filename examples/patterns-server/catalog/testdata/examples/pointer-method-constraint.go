// Constraining the pointer type so a generic function can call pointer methods.
package main

import (
	"fmt"
	"strconv"
)

type Celsius float64

func (c *Celsius) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	*c = Celsius(f)
	return err
}

type Setter[T any] interface {
	*T
	Set(string) error
}

func Parse[T any, PT Setter[T]](s string) (T, error) {
	var v T
	err := PT(&v).Set(s)
	return v, err
}

func main() {
	c, err := Parse[Celsius]("21.5")
	fmt.Println(c, err)
}
