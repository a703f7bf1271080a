//go:build linux

package nap

import (
	"math"
	"syscall"
	"time"
)

// sysSleeper waits in epoll_wait(2) on its own epoll instance, which watches the
// read end of a pipe that wake writes to.
type sysSleeper struct {
	ep, rd, wr int
}

func newSys() *sysSleeper {
	var p [2]int
	if syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK) != nil {
		return nil
	}
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil
	}
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(p[0])}
	if syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, p[0], &ev) != nil {
		syscall.Close(ep)
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil
	}
	return &sysSleeper{ep: ep, rd: p[0], wr: p[1]}
}

func (s *sysSleeper) sleep(d time.Duration) bool {
	deadline := time.Now().Add(d)
	var evs [1]syscall.EpollEvent
	for {
		n, err := syscall.EpollWait(s.ep, evs[:], waitMillis(time.Until(deadline)))
		switch {
		case n > 0:
			s.drain()
			return true
		case err == syscall.EINTR:
			continue // a signal: wait for the rest
		case err != nil:
			// Cannot happen with a valid instance; do not spin if it does.
			time.Sleep(time.Until(deadline))
			return false
		case time.Until(deadline) > 0:
			continue // woke a little early (millisecond rounding)
		}
		return false
	}
}

// waitMillis is epoll_wait's timeout for d, rounded up.
func waitMillis(d time.Duration) int {
	if d <= 0 {
		return 0
	}
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return int(min(ms, math.MaxInt32))
}

func (s *sysSleeper) drain() {
	var b [16]byte
	for {
		if n, err := syscall.Read(s.rd, b[:]); n <= 0 || err != nil {
			return
		}
	}
}

func (s *sysSleeper) wake() {
	syscall.Write(s.wr, []byte{0}) // a full pipe already holds a wake-up
}

func (s *sysSleeper) close() {
	syscall.Close(s.ep)
	syscall.Close(s.rd)
	syscall.Close(s.wr)
}
