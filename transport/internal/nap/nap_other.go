//go:build !linux

package nap

import "time"

// sysSleeper exists on Linux only; elsewhere a Sleeper uses a timer.
type sysSleeper struct{}

func newSys() *sysSleeper { return nil }

func (*sysSleeper) sleep(time.Duration) bool { return false }
func (*sysSleeper) wake()                    {}
func (*sysSleeper) close()                   {}
