package nap

import (
	"runtime"
	"testing"
	"time"
)

// sleepers returns the Sleepers to test: the platform's, and the timer fallback.
func sleepers(t *testing.T) map[string]func() *Sleeper {
	t.Helper()
	m := map[string]func() *Sleeper{"timer": newTimerSleeper}
	if runtime.GOOS == "linux" {
		m["syscall"] = func() *Sleeper {
			s := New()
			if s.sys == nil {
				t.Fatal("New on Linux did not make a system-call sleeper")
			}
			return s
		}
	}
	return m
}

func TestSleepRunsItsCourse(t *testing.T) {
	for name, mk := range sleepers(t) {
		t.Run(name, func(t *testing.T) {
			s := mk()
			defer s.Close()
			for _, d := range []time.Duration{0, 300 * time.Microsecond, 20 * time.Millisecond} {
				start := time.Now()
				if s.Sleep(d) {
					t.Fatalf("Sleep(%v) reported a wake-up", d)
				}
				if got := time.Since(start); got < d {
					t.Errorf("Sleep(%v) returned after %v", d, got)
				}
			}
		})
	}
}

func TestWakeEndsSleep(t *testing.T) {
	for name, mk := range sleepers(t) {
		t.Run(name, func(t *testing.T) {
			s := mk()
			defer s.Close()

			// A wake-up made before the Sleep ends it at once, and only that one.
			s.Wake()
			s.Wake() // held as one
			if !s.Sleep(time.Hour) {
				t.Fatal("a pending wake-up did not end Sleep")
			}
			if s.Sleep(time.Millisecond) {
				t.Fatal("a second Sleep saw the same wake-up")
			}

			// A wake-up during the Sleep ends it.
			res := make(chan bool, 1)
			start := time.Now()
			go func() { res <- s.Sleep(time.Hour) }()
			time.Sleep(20 * time.Millisecond) // let it start sleeping; either order must work
			s.Wake()
			select {
			case woken := <-res:
				if !woken {
					t.Fatal("Sleep ended by Wake reported no wake-up")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Wake did not end Sleep")
			}
			if time.Since(start) > 5*time.Second {
				t.Fatal("Sleep ran far too long after Wake")
			}
		})
	}
}

func TestClose(t *testing.T) {
	for name, mk := range sleepers(t) {
		t.Run(name, func(t *testing.T) {
			s := mk()
			s.Close()
			s.Close() // twice is fine
			s.Wake()  // does nothing
			if !s.Sleep(time.Hour) {
				t.Fatal("Sleep after Close did not return at once")
			}
		})
	}
}
