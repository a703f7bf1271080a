// Functional options: variadic configuration with defaults.
package main

import (
	"fmt"
	"time"
)

type settings struct {
	timeout time.Duration
	retries int
}

// Option configures a Client.
type Option func(*settings)

func WithTimeout(d time.Duration) Option { return func(s *settings) { s.timeout = d } }
func WithRetries(n int) Option           { return func(s *settings) { s.retries = n } }

type Client struct{ s settings }

func NewClient(opts ...Option) *Client {
	s := settings{timeout: 30 * time.Second, retries: 3}
	for _, o := range opts {
		o(&s)
	}
	return &Client{s: s}
}

func main() {
	c := NewClient(WithTimeout(5 * time.Second))
	fmt.Println(c.s.timeout, c.s.retries)
}
