// Zero values in generic code, and defaults with cmp.Or.
package main

import (
	"cmp"
	"fmt"
)

func First[T any](s []T) (T, bool) {
	var zero T
	if len(s) == 0 {
		return zero, false
	}
	return s[0], true
}

type Config struct {
	Host string
	Port int
}

func (c Config) withDefaults() Config {
	c.Host = cmp.Or(c.Host, "localhost")
	c.Port = cmp.Or(c.Port, 8080)
	return c
}

func main() {
	_, ok := First([]string{})
	fmt.Println(ok)
	fmt.Printf("%+v\n", Config{Port: 9000}.withDefaults())
}
