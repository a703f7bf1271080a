package streamable

import (
	"testing"
	"time"
)

// TestIdleExpiryJanitor: one janitor for the Handler expires the sessions idle for
// SessionIdleTimeout, spares those with traffic or a request in progress, and
// stops when no session is left.
func TestIdleExpiryJanitor(t *testing.T) {
	const idle = 60 * time.Millisecond
	s := newTestServer(t, &HandlerOptions{SessionIdleTimeout: idle})
	conn := func(i int) *ServerTransport {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.trans[i]
	}
	active := s.initSession(t) // gets a request every idle/3
	s.initSession(t)           // idle: expires
	busy := s.initSession(t)   // a call in progress for longer than idle

	gateDone := make(chan exchange, 1)
	go func() {
		gateDone <- do(t, "POST", s.url, postHeaders("Mcp-Session-Id", busy), `{"jsonrpc":"2.0","id":"g","method":"gate"}`)
	}()
	waitFor(t, s.started, "the gate call")

	// Traffic for the active session until the idle one has expired, and for at
	// least 3 idle periods (bounded: 10 s).
	start := time.Now()
	for {
		if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", active), echoBody); ex.status != 200 {
			t.Fatalf("active session answered %d", ex.status)
		}
		if conn(1).closed() && time.Since(start) >= 3*idle {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("the idle session did not expire")
		}
		time.Sleep(idle / 3) // the traffic itself is what is tested
	}
	if conn(0).closed() {
		t.Error("a session with traffic expired")
	}
	if conn(2).closed() {
		t.Error("a session with a call in progress expired")
	}

	// The call ends: that session expires, then the active one once it stops.
	s.open()
	if ex := waitFor(t, gateDone, "the gate call's answer"); ex.status != 200 {
		t.Fatalf("gate call: %d", ex.status)
	}
	waitFor(t, conn(2).done, "the formerly busy session to expire")
	waitFor(t, conn(0).done, "the active session to expire once idle")
	if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", active), echoBody); ex.status != 404 {
		t.Fatalf("expired session answered %d, want 404", ex.status)
	}

	// No session left: the janitor stops, and the next session starts it again.
	deadline := time.Now().Add(5 * time.Second)
	for s.janitorOn() {
		if time.Now().After(deadline) {
			t.Fatal("the janitor still runs with no session left")
		}
		time.Sleep(time.Millisecond) // polling for a state change
	}
	s.initSession(t)
	if !s.janitorOn() {
		t.Error("a new session did not start the janitor")
	}
	waitFor(t, conn(3).done, "the new session to expire")
}

func (s *testServer) janitorOn() bool {
	s.h.janitor.mu.Lock()
	defer s.h.janitor.mu.Unlock()
	return s.h.janitor.on
}

// TestShutdownStopsJanitor: Shutdown ends the janitor's goroutine before it returns.
func TestShutdownStopsJanitor(t *testing.T) {
	s := newTestServer(t, &HandlerOptions{SessionIdleTimeout: time.Hour})
	s.initSession(t)
	s.h.janitor.mu.Lock()
	done := s.h.janitor.done
	s.h.janitor.mu.Unlock()
	if !s.janitorOn() || done == nil {
		t.Fatal("a session did not start the janitor")
	}
	if err := s.h.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	default:
		t.Fatal("the janitor still runs after Shutdown")
	}
	if s.janitorOn() {
		t.Error("the janitor is marked on after Shutdown")
	}
	s.h.armJanitor() // as a late initialize would
	if s.janitorOn() {
		t.Error("the janitor started again after Shutdown")
	}
}
