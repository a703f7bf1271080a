package jsonrpc_test

import (
	"context"
	"io"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// lazyPipe is a directPipe that implements jsonrpc.LazyReader as a transport must:
// it starts the reader before it queues a message for Read (queue) and once it
// has ended (end), and reports startNow from SetReaderStart.
type lazyPipe struct {
	*directPipe
	peer     *memory.Pipe
	startNow bool

	mu    sync.Mutex
	start func(ended bool)
	sets  int
}

func (l *lazyPipe) SetReaderStart(start func(ended bool)) bool {
	l.mu.Lock()
	l.start, l.sets = start, l.sets+1
	l.mu.Unlock()
	return l.startNow
}

func (l *lazyPipe) starter() func(bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.start
}

// queue sends frame to the Conn through Read.
func (l *lazyPipe) queue(t *testing.T, frame string) {
	t.Helper()
	l.starter()(false)
	if err := l.peer.WriteRaw(context.Background(), []byte(frame)); err != nil {
		t.Fatalf("send %s: %v", frame, err)
	}
}

// end ends the transport (Read returns io.EOF) and tells the Conn.
func (l *lazyPipe) end() {
	l.peer.Close()
	l.starter()(true)
}

// serveLazy starts a Conn with opts over a lazyPipe; startNow is what
// SetReaderStart reports.
func serveLazy(t *testing.T, startNow bool, opts *jsonrpc.ConnOptions) (*jsonrpc.Conn, *lazyPipe, *rawPeer) {
	t.Helper()
	a, b := memory.NewPair()
	l := &lazyPipe{directPipe: &directPipe{Pipe: a, reads: make(chan struct{}, 1024)}, peer: b, startNow: startNow}
	c := jsonrpc.NewConn(l, opts)
	if l.sets != 1 || l.start == nil || l.serve == nil {
		t.Fatalf("NewConn called SetReaderStart %d times (func nil: %v, DirectFunc nil: %v), want once with a func", l.sets, l.start == nil, l.serve == nil)
	}
	t.Cleanup(func() {
		c.Close()
		b.Close()
	})
	return c, l, &rawPeer{t: t, pipe: b}
}

func readers() int {
	synctest.Wait()
	return countBubbleGoroutines("jsonrpc.(*Conn).readLoop")
}

func isDone(c *jsonrpc.Conn) bool {
	select {
	case <-c.Done():
		return true
	default:
		return false
	}
}

func echo(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if req.Method == "ping" {
		return struct{}{}, nil
	}
	return map[string]string{"method": req.Method}, nil
}

// TestLazyReaderNeverStarted: over a LazyReader transport whose messages are all
// passed directly, no reader goroutine ever runs; the end of the transport ends the
// Conn on the goroutine that reports it (Done closed, OnDone run, the transport
// closed, Err io.EOF), and nothing is left running.
func TestLazyReaderNeverStarted(t *testing.T) {
	checkLeaks(t)
	synctest.Test(t, func(t *testing.T) {
		onDone := make(chan string, 1)
		c, l, peer := serveLazy(t, false, &jsonrpc.ConnOptions{
			Handler: jsonrpc.HandlerFunc(echo),
			OnDone:  func() { onDone <- goid() },
		})
		if n := readers(); n != 0 {
			t.Errorf("%d readers after NewConn, want 0", n)
		}
		if !l.serve(call(1, "direct")) {
			t.Fatalf("DirectFunc(call) = false")
		}
		if got, want := peer.recv(), `{"jsonrpc":"2.0","id":1,"result":{"method":"direct"}}`; got != want {
			t.Errorf("reply %s, want %s", got, want)
		}
		if n := readers(); n != 0 {
			t.Errorf("%d readers after a direct call, want 0", n)
		}
		l.end()
		if !isDone(c) {
			t.Fatalf("Done not closed when the end was reported and no handler ran")
		}
		select {
		case g := <-onDone:
			if g != goid() {
				t.Errorf("OnDone ran on goroutine %s, want the one reporting the end (%s)", g, goid())
			}
		default:
			t.Errorf("OnDone not called")
		}
		if err := c.Err(); err != io.EOF {
			t.Errorf("Err() = %v, want io.EOF", err)
		}
		if ev := l.eventLog(); len(ev) == 0 || ev[len(ev)-1] != "close" {
			t.Errorf("transport events %q, want the last to be close", ev)
		}
		if n := readers(); n != 0 {
			t.Errorf("%d readers after the end, want 0", n)
		}
		l.end() // again: a no-op
	})
}

// TestLazyReaderQueued: a message queued for Read starts the reader, which reads
// it and the ones after it, and still notices the end of the transport.
func TestLazyReaderQueued(t *testing.T) {
	checkLeaks(t)
	synctest.Test(t, func(t *testing.T) {
		c, l, peer := serveLazy(t, false, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(echo)})
		l.queue(t, `{"jsonrpc":"2.0","id":"q1","method":"queued"}`)
		if got, want := peer.recv(), `{"jsonrpc":"2.0","id":"q1","result":{"method":"queued"}}`; got != want {
			t.Errorf("reply %s, want %s", got, want)
		}
		if n := readers(); n != 1 {
			t.Errorf("%d readers after a queued message, want 1", n)
		}
		peer.ping() // read without another start
		l.end()
		<-c.Done()
		if err := c.Err(); err != io.EOF {
			t.Errorf("Err() = %v, want io.EOF", err)
		}
	})
}

// TestLazyReaderStartNow: a transport whose SetReaderStart reports true gets its
// reader at once, as one without LazyReader.
func TestLazyReaderStartNow(t *testing.T) {
	checkLeaks(t)
	synctest.Test(t, func(t *testing.T) {
		_, _, peer := serveLazy(t, true, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(echo)})
		if n := readers(); n != 1 {
			t.Errorf("%d readers, want 1", n)
		}
		peer.ping()
	})
}

// TestLazyReaderEndWhileHandling: the end reported while a handler runs does not
// wait for it (the Conn ends on a reader goroutine once the handler returned) —
// also when the handler is the one reporting it, which would otherwise wait for
// itself.
func TestLazyReaderEndWhileHandling(t *testing.T) {
	checkLeaks(t)
	tests := []struct {
		name   string
		notify bool // a notification handler runs; else a direct call reports the end
	}{
		{"notification handler runs", true},
		{"call reports the end", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				var l *lazyPipe
				c, l0, _ := serveLazy(t, false, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
					switch req.Method {
					case "hold":
						<-release
					case "end":
						l.end()
					}
					return nil, nil
				})})
				l = l0
				if tt.notify {
					if !l.serve(note("hold")) {
						t.Fatalf("DirectFunc(note) = false")
					}
					synctest.Wait()
					l.end()
					if isDone(c) {
						t.Fatalf("Done closed while a handler runs")
					}
					close(release)
				} else if !l.serve(call(1, "end")) {
					t.Fatalf("DirectFunc(call) = false")
				}
				<-c.Done()
				if err := c.Err(); err != io.EOF {
					t.Errorf("Err() = %v, want io.EOF", err)
				}
			})
		})
	}
}

// TestLazyReaderClose: Close of a Conn whose reader never started returns, ends
// it and closes the transport; the transport's later report of its end changes
// nothing.
func TestLazyReaderClose(t *testing.T) {
	checkLeaks(t)
	synctest.Test(t, func(t *testing.T) {
		c, l, _ := serveLazy(t, false, nil)
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if !isDone(c) || c.Err() != jsonrpc.ErrClosed {
			t.Errorf("after Close: done %v, Err %v; want done, ErrClosed", isDone(c), c.Err())
		}
		if ev := l.eventLog(); len(ev) != 1 || ev[0] != "close" {
			t.Errorf("transport events %q, want [close]", ev)
		}
		l.end()
		if n := readers(); n != 0 {
			t.Errorf("%d readers after Close, want 0", n)
		}
		if c.Err() != jsonrpc.ErrClosed {
			t.Errorf("Err() = %v after the transport ended too, want ErrClosed", c.Err())
		}
	})
}
