// Options struct: nil means defaults, zero fields mean "use the default".
package main

import (
	"cmp"
	"fmt"
	"time"
)

// Options configures a Server. The zero value is valid.
type Options struct {
	// Timeout bounds each request; zero means 30s.
	Timeout time.Duration
	// MaxConns caps open connections; zero means 100.
	MaxConns int
}

type Server struct{ opts Options }

func NewServer(opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts // copy: later changes by the caller do not affect us
	}
	o.Timeout = cmp.Or(o.Timeout, 30*time.Second)
	o.MaxConns = cmp.Or(o.MaxConns, 100)
	return &Server{opts: o}
}

func main() {
	fmt.Printf("%+v\n", NewServer(nil).opts)
	fmt.Printf("%+v\n", NewServer(&Options{MaxConns: 10}).opts)
}
