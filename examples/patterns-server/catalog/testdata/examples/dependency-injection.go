// Explicit dependency injection: main wires everything.
package main

import (
	"fmt"
	"log/slog"
	"os"
	"time"
)

type Clock interface{ Now() time.Time }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

type Greeter struct {
	log   *slog.Logger
	clock Clock
}

func NewGreeter(log *slog.Logger, clock Clock) *Greeter {
	return &Greeter{log: log, clock: clock}
}

func (g *Greeter) Greet(name string) string {
	g.log.Debug("greeting", "name", name)
	return fmt.Sprintf("hello %s, it is %02d:00", name, g.clock.Now().Hour())
}

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	g := NewGreeter(log, realClock{})
	fmt.Println(g.Greet("gopher") != "")
}
