package jsonrpc_test

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// checkLeaks fails the test if goroutines of this module that started during the
// test are still alive at its end. It polls with a deadline, since a goroutine that
// has signalled its end may take a moment to exit.
func checkLeaks(t *testing.T) {
	t.Helper()
	before := moduleGoroutines()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for {
			var leaked []string
			for id, stack := range moduleGoroutines() {
				if _, ok := before[id]; !ok {
					leaked = append(leaked, stack)
				}
			}
			if len(leaked) == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("%d goroutine(s) leaked:\n%s", len(leaked), strings.Join(leaked, "\n\n"))
				return
			}
			time.Sleep(5 * time.Millisecond) // polling for a leak check only
		}
	})
}

// allStacks returns the stacks of every goroutine, as runtime.Stack prints them.
func allStacks() []byte {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

// moduleGoroutines returns the stacks of the goroutines (other than the caller)
// that run code of this module, by goroutine header line.
func moduleGoroutines() map[string]string {
	buf := allStacks()
	out := make(map[string]string)
	for i, g := range bytes.Split(buf, []byte("\n\n")) {
		if i == 0 {
			continue // the calling goroutine
		}
		s := string(g)
		if !strings.Contains(s, "github.com/wiremcp/wiremcp/") {
			continue
		}
		header, _, _ := strings.Cut(s, "\n")
		id := strings.Fields(header)
		if len(id) > 1 {
			out[id[1]] = s
		}
	}
	return out
}

// logRecorder is a slog.Handler that keeps messages for assertions.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
	seen chan string
}

func newLogRecorder() *logRecorder { return &logRecorder{seen: make(chan string, 100)} }

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.msgs = append(r.msgs, rec.Message)
	r.mu.Unlock()
	select {
	case r.seen <- rec.Message:
	default:
	}
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }

// waitLog waits for a log message containing substr.
func (r *logRecorder) waitLog(t *testing.T, substr string) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case m := <-r.seen:
			if strings.Contains(m, substr) {
				return
			}
		case <-timeout:
			r.mu.Lock()
			defer r.mu.Unlock()
			t.Fatalf("no log message containing %q; got %q", substr, r.msgs)
		}
	}
}

// rawPeer drives a Conn from the other end of a memory pipe with literal JSON.
type rawPeer struct {
	t    *testing.T
	pipe *memory.Pipe
}

// serve starts a Conn with opts on one end of a memory pair and returns the other
// end as a raw peer. The Conn is closed at the end of the test.
func serve(t *testing.T, opts *jsonrpc.ConnOptions) (*jsonrpc.Conn, *rawPeer) {
	t.Helper()
	a, b := memory.NewPair()
	c := jsonrpc.NewConn(a, opts)
	t.Cleanup(func() {
		c.Close()
		b.Close()
	})
	return c, &rawPeer{t: t, pipe: b}
}

func (p *rawPeer) send(frame string) {
	p.t.Helper()
	if err := p.pipe.WriteRaw(context.Background(), []byte(frame)); err != nil {
		p.t.Fatalf("send %s: %v", frame, err)
	}
}

// recv reads the next frame the Conn sent, re-encoded as compact JSON.
func (p *rawPeer) recv() string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg, err := p.pipe.Read(ctx)
	if err != nil {
		p.t.Fatalf("recv: %v", err)
	}
	b, err := jsonrpc.Encode(nil, msg)
	if err != nil {
		p.t.Fatalf("recv: encode %#v: %v", msg, err)
	}
	return string(b)
}

// recvMsg reads the next message the Conn sent.
func (p *rawPeer) recvMsg() jsonrpc.Message {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg, err := p.pipe.Read(ctx)
	if err != nil {
		p.t.Fatalf("recv: %v", err)
	}
	return msg
}

// wait receives from ch or fails the test after a generous deadline.
func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}
