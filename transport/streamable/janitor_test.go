package streamable

import (
	"testing"
	"time"
)

// TestIdleExpirySweep: a sweep expires the sessions idle for SessionIdleTimeout and
// spares those with traffic since or a request in progress. The idle timeout is an
// hour and the sessions are aged by setting their last use an hour back, so that
// what is spared or expired does not depend on how fast the machine runs the test.
func TestIdleExpirySweep(t *testing.T) {
	const idle = time.Hour // the janitor's period is a quarter of it: it never sweeps here
	s := newTestServer(t, &HandlerOptions{SessionIdleTimeout: idle, SessionInitTimeout: -1})
	conn := func(i int) *ServerTransport {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.trans[i]
	}
	// settle waits until the session's requests have ended on the server's side too
	// (a client has its answer a moment before the handler returns and records the
	// last use); age then makes it idle for the whole timeout.
	settle := func(tr *ServerTransport) {
		deadline := time.Now().Add(10 * time.Second)
		for tr.busy.Load() != 0 {
			if time.Now().After(deadline) {
				t.Fatal("a session stays busy 10 s after its requests were answered")
			}
			time.Sleep(time.Millisecond) // polling for a state change
		}
	}
	age := func(tr *ServerTransport) { tr.lastUse.Store(s.h.now() - int64(idle)) }
	active := s.initSession(t) // traffic after being aged
	s.initSession(t)           // idle: expires
	busy := s.initSession(t)   // a call in progress

	gateDone := make(chan exchange, 1)
	go func() {
		gateDone <- do(t, "POST", s.url, postHeaders("Mcp-Session-Id", busy), `{"jsonrpc":"2.0","id":"g","method":"gate"}`)
	}()
	waitFor(t, s.started, "the gate call")
	settle(conn(0))
	settle(conn(1))
	for i := range 3 {
		age(conn(i))
	}
	if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", active), echoBody); ex.status != 200 {
		t.Fatalf("active session answered %d", ex.status)
	}
	settle(conn(0)) // spared for its traffic, not for a request still ending
	s.h.sweep()
	if !conn(1).closed() {
		t.Error("a session idle for SessionIdleTimeout did not expire")
	}
	if conn(0).closed() {
		t.Error("a session with traffic since it was last idle expired")
	}
	if conn(2).closed() {
		t.Error("a session with a call in progress expired")
	}

	// The call ends: that session expires once idle, and so does the active one.
	s.open()
	if ex := waitFor(t, gateDone, "the gate call's answer"); ex.status != 200 {
		t.Fatalf("gate call: %d", ex.status)
	}
	settle(conn(2))
	age(conn(2))
	age(conn(0))
	s.h.sweep()
	if !conn(2).closed() {
		t.Error("the formerly busy session did not expire once idle")
	}
	if !conn(0).closed() {
		t.Error("the active session did not expire once idle")
	}
	if ex := do(t, "POST", s.url, postHeaders("Mcp-Session-Id", active), echoBody); ex.status != 404 {
		t.Fatalf("expired session answered %d, want 404", ex.status)
	}
}

// TestIdleExpiryJanitor: one janitor for the Handler sweeps every quarter of
// SessionIdleTimeout, so an idle session expires; it stops when no session is left,
// and the next session starts it again.
func TestIdleExpiryJanitor(t *testing.T) {
	const idle = 60 * time.Millisecond
	s := newTestServer(t, &HandlerOptions{SessionIdleTimeout: idle})
	conn := func(i int) *ServerTransport {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.trans[i]
	}
	s.initSession(t)
	waitFor(t, conn(0).done, "the idle session to expire")

	// No session left: the janitor stops, and the next session starts it again.
	deadline := time.Now().Add(5 * time.Second)
	for s.janitorOn() {
		if time.Now().After(deadline) {
			t.Fatal("the janitor still runs with no session left")
		}
		time.Sleep(time.Millisecond) // polling for a state change
	}
	s.initSession(t)
	// Only the janitor expires sessions: one already expired had it running.
	if !s.janitorOn() && !conn(1).closed() {
		t.Error("a new session did not start the janitor")
	}
	waitFor(t, conn(1).done, "the new session to expire")
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
