// Package nap lets a goroutine sleep for a while, or until it is woken, without
// keeping a runtime timer pending.
//
// Why not a timer: while any runtime timer is pending, a scheduler thread that runs
// out of work and finds another thread waiting in the network poller without that
// deadline interrupts the poller's wait (runtime.findRunnable calls netpollBreak)
// so that it waits again with the deadline. On a busy HTTP server with two
// processors that happened on a quarter of all requests: an eventfd write and read,
// an extra epoll_wait and an extra context switch each (measured on the echo server
// with one call in flight, see the CHANGELOG). A Sleeper on Linux waits in
// epoll_wait(2) on a private epoll instance instead: a blocking system call, which
// holds an OS thread while it sleeps and costs the scheduler nothing. Elsewhere, or
// when its descriptors cannot be made, it sleeps on a timer.
package nap

import (
	"sync"
	"time"
)

// A Sleeper puts one goroutine at a time to sleep. Wake may be called from any
// goroutine. The zero value is not usable; call New.
type Sleeper struct {
	sys  *sysSleeper   // the system-call sleeper; nil: a timer
	wake chan struct{} // the timer fallback's wake-up, holding at most one

	mu     sync.Mutex
	closed bool
}

// New returns a Sleeper; Close releases what it holds.
func New() *Sleeper {
	if sys := newSys(); sys != nil {
		return &Sleeper{sys: sys}
	}
	return newTimerSleeper()
}

func newTimerSleeper() *Sleeper {
	return &Sleeper{wake: make(chan struct{}, 1)}
}

// Sleep waits for d, or until Wake, and reports whether Wake ended it. A Wake made
// while no Sleep was in progress ends the next Sleep at once. After Close, Sleep
// returns true at once. Only one goroutine may Sleep at a time, and not while
// Close runs.
func (s *Sleeper) Sleep(d time.Duration) (woken bool) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return true
	}
	if s.sys != nil {
		return s.sys.sleep(d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return false
	case <-s.wake:
		return true
	}
}

// Wake ends the Sleep in progress, or the next one.
func (s *Sleeper) Wake() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if s.sys != nil {
		s.sys.wake()
		return
	}
	select {
	case s.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// Close releases the Sleeper's descriptors. It must not run while a Sleep is in
// progress; Wake and Sleep afterwards do nothing (Sleep returns true).
func (s *Sleeper) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if s.sys != nil {
		s.sys.close()
	}
}
