package jsonrpc_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

func TestConnBatch(t *testing.T) {
	checkLeaks(t)
	noted := make(chan string, 10)
	c, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			noted <- req.Method
			return nil, nil
		}
		return testHandler(ctx, req)
	})})
	tests := []struct{ name, in, want string }{
		{"mixed",
			`[{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"},
			  {"jsonrpc":"2.0","method":"notify_hello","params":[7]},
			  {"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"2"},
			  {"foo":"boo"},
			  {"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"},
			  {"jsonrpc":"2.0","method":"get_data","id":"9"}]`,
			`[id="1" result=7 id="2" code=-32601 id="5" code=-32601 id="9" code=-32601 id=null code=-32600]`},
		{"only invalid", `[1,{"jsonrpc":"2.0","id":3,"method":"m","params":1}]`,
			`[id=3 code=-32600 id=null code=-32600]`},
		{"notifications only", `[{"jsonrpc":"2.0","method":"n1"},{"jsonrpc":"2.0","method":"n2","params":"bad"}]`, "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer.t = t
			peer.send(tt.in)
			peer.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
			var got []string
			for range 2 {
				if tt.want == "none" && len(got) == 1 {
					break
				}
				got = append(got, summarize(t, peer.recvMsg()))
			}
			sort.Strings(got)
			want := []string{tt.want, `id="ping" result={}`}
			if tt.want == "none" {
				want = want[1:]
			}
			sort.Strings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("replies (-want +got):\n%s", diff)
			}
		})
	}
	if got := wait(t, noted, "notification"); got != "notify_hello" {
		t.Errorf("first notification %q", got)
	}
	if got := wait(t, noted, "notification"); got != "n1" {
		t.Errorf("second notification %q", got)
	}

	// A batch of responses answers pending calls.
	errc := make(chan error, 1)
	go func() { errc <- c.Call(context.Background(), "up", nil, nil) }()
	up := peer.recvMsg().(*jsonrpc.Request)
	peer.send(`[{"jsonrpc":"2.0","id":` + up.ID.Raw() + `,"result":{}}]`)
	if err := wait(t, errc, "call answered in a batch"); err != nil {
		t.Errorf("Call answered by a batch: %v", err)
	}
}

func TestConnBatchRefused(t *testing.T) {
	checkLeaks(t)
	ran := make(chan string, 1)
	_, peer := serve(t, &jsonrpc.ConnOptions{
		AcceptBatch: func() bool { return false },
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			ran <- req.Method
			return nil, nil
		})})
	peer.send(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"}]`)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batches are not accepted"}}`
	if diff := cmp.Diff(want, peer.recv()); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"c"}`)
	peer.recvMsg()
	if got := wait(t, ran, "handler"); got != "c" {
		t.Errorf("a handler ran for %q of the refused batch", got)
	}
}

func TestConnClose(t *testing.T) {
	checkLeaks(t)
	started := make(chan struct{})
	release := make(chan struct{})
	ctxErr := make(chan error, 1)
	c, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		close(started)
		<-release
		ctxErr <- ctx.Err()
		return "finished", nil
	})})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	<-started

	// An outgoing call that the peer never answers.
	callErr := make(chan error, 1)
	go func() { callErr <- c.Call(context.Background(), "unanswered", nil, nil) }()
	if req := peer.recvMsg().(*jsonrpc.Request); req.Method != "unanswered" {
		t.Fatalf("got %v", req)
	}

	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	// Close fails pending calls at once: when the Call returns, Close has started.
	if err := wait(t, callErr, "the pending call to fail"); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("pending Call: %v, want ErrClosed", err)
	}
	select {
	case <-c.Done():
		t.Fatalf("Done closed while a handler is running")
	case <-closed:
		t.Fatalf("Close returned while a handler is running")
	default:
	}
	if err := c.Call(context.Background(), "new", nil, nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Call during Close: %v, want ErrClosed", err)
	}
	close(release)
	if err := wait(t, ctxErr, "handler"); err != nil {
		t.Errorf("handler context was cancelled by Close: %v", err)
	}
	if err := wait(t, closed, "Close"); err != nil {
		t.Errorf("Close: %v", err)
	}
	// The reply of the in-flight handler was still sent.
	if got := summarize(t, peer.recvMsg()); got != `id=1 result="finished"` {
		t.Errorf("reply after Close: %s", got)
	}
	<-c.Done()
	if err := c.Err(); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Err() = %v, want ErrClosed", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := c.Notify(context.Background(), "n", nil); !errors.Is(err, jsonrpc.ErrClosed) {
		t.Errorf("Notify after Close: %v, want ErrClosed", err)
	}
}

func TestConnPeerCloses(t *testing.T) {
	checkLeaks(t)
	a, b := memory.NewPair()
	c := jsonrpc.NewConn(a, nil)
	if c.Err() != nil {
		t.Errorf("Err() = %v while running", c.Err())
	}
	callErr := make(chan error, 1)
	go func() { callErr <- c.Call(context.Background(), "m", nil, nil) }()
	if _, err := b.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	b.Close()
	err := wait(t, callErr, "the pending call")
	if !errors.Is(err, jsonrpc.ErrClosed) || !errors.Is(err, io.EOF) {
		t.Errorf("pending Call: %v, want ErrClosed and io.EOF", err)
	}
	wait(t, c.Done(), "Done")
	if err := c.Err(); err != io.EOF {
		t.Errorf("Err() = %v, want io.EOF", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close after the end: %v", err)
	}
}

// scripted is a Transport that returns fixed reads and records writes.
type scripted struct {
	mu     sync.Mutex
	reads  []readResult
	gate   chan struct{} // closed to let the final read error through
	writes []string
	closed bool
	wrote  chan struct{}
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

func (s *scripted) Read(ctx context.Context) (jsonrpc.Message, error) {
	s.mu.Lock()
	if len(s.reads) > 1 {
		r := s.reads[0]
		s.reads = s.reads[1:]
		s.mu.Unlock()
		return r.msg, r.err
	}
	last := s.reads[0]
	s.mu.Unlock()
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return last.msg, last.err
}

func (s *scripted) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.Encode(nil, msg)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("write after close")
	}
	s.writes = append(s.writes, string(b))
	if s.wrote != nil {
		s.wrote <- struct{}{}
	}
	return nil
}

func (s *scripted) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// TestConnEOFFinishesHandlers: after the input ends, running handlers still send
// their replies before the transport is closed (`echo request | server`).
func TestConnEOFFinishesHandlers(t *testing.T) {
	checkLeaks(t)
	release := make(chan struct{})
	tr := &scripted{reads: []readResult{
		{msg: &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "slow"}},
		{msg: &jsonrpc.Request{Method: "note"}},
		{err: io.EOF},
	}}
	noted := make(chan struct{})
	c := jsonrpc.NewConn(tr, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "note" {
			close(noted)
			return nil, nil
		}
		<-release
		return "done", nil
	})})
	wait(t, noted, "the notification")
	select {
	case <-c.Done():
		t.Fatalf("conn ended with a handler running")
	default:
	}
	close(release)
	wait(t, c.Done(), "Done")
	if c.Err() != io.EOF {
		t.Errorf("Err() = %v, want io.EOF", c.Err())
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	want := []string{`{"jsonrpc":"2.0","id":1,"result":"done"}`}
	if diff := cmp.Diff(want, tr.writes); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	if !tr.closed {
		t.Errorf("transport not closed")
	}
}

func TestConnTransportErrors(t *testing.T) {
	checkLeaks(t)
	broken := errors.New("broken pipe")
	tr := &scripted{
		wrote: make(chan struct{}, 10),
		reads: []readResult{
			{err: fmt.Errorf("frame 1: %w", jsonrpc.ErrParse)},
			{err: fmt.Errorf("frame 2: %w", jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "line too long"))},
			{msg: &jsonrpc.Invalid{ID: jsonrpc.Int64ID(4), Err: jsonrpc.ErrInvalidRequest}, err: jsonrpc.ErrInvalidRequest},
			{msg: &jsonrpc.Invalid{Err: jsonrpc.ErrInvalidRequest}, err: jsonrpc.ErrInvalidRequest}, // a notification: no reply
			{err: broken},
		}}
	c := jsonrpc.NewConn(tr, nil)
	wait(t, c.Done(), "Done")
	if c.Err() != broken {
		t.Errorf("Err() = %v, want %v", c.Err(), broken)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	want := []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"frame 1: Parse error"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"frame 2: line too long"}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid Request"}}`,
	}
	if diff := cmp.Diff(want, tr.writes); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
}
