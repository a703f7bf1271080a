package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// directPipe is one end of a memory pipe that implements jsonrpc.Direct. It keeps
// the DirectFunc NewConn hands it, signals each Read the Conn starts, and logs
// writes (with the request their context carries) and Close, in order.
type directPipe struct {
	*memory.Pipe
	serve jsonrpc.DirectFunc // set by SetDirect, within NewConn
	sets  atomic.Int32
	reads chan struct{} // a value each time the Conn enters Read

	mu     sync.Mutex
	events []string
}

func (d *directPipe) SetDirect(serve jsonrpc.DirectFunc) {
	d.serve = serve
	d.sets.Add(1)
}

func (d *directPipe) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case d.reads <- struct{}{}:
	default: // only the ordering test counts them, and it reads them as they come
	}
	return d.Pipe.Read(ctx)
}

func (d *directPipe) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.Encode(nil, msg)
	if err != nil {
		return err
	}
	of := "-"
	if r, ok := jsonrpc.RequestFromContext(ctx); ok {
		of = r.ID.String()
	}
	d.log("write " + string(b) + " for " + of)
	return d.Pipe.Write(ctx, msg)
}

func (d *directPipe) Close() error {
	d.log("close")
	return d.Pipe.Close()
}

func (d *directPipe) log(e string) {
	d.mu.Lock()
	d.events = append(d.events, e)
	d.mu.Unlock()
}

func (d *directPipe) eventLog() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.events...)
}

// serveDirect starts a Conn with opts over a directPipe and returns the pipe (with
// the Conn's DirectFunc) and the other end as a raw peer. The Conn is closed at the
// end of the test.
func serveDirect(t *testing.T, opts *jsonrpc.ConnOptions) (*jsonrpc.Conn, *directPipe, *rawPeer) {
	t.Helper()
	a, b := memory.NewPair()
	d := &directPipe{Pipe: a, reads: make(chan struct{}, 1024)}
	c := jsonrpc.NewConn(d, opts)
	if n := d.sets.Load(); n != 1 || d.serve == nil {
		t.Fatalf("NewConn called SetDirect %d times (DirectFunc nil: %v), want once with a func", n, d.serve == nil)
	}
	t.Cleanup(func() {
		c.Close()
		b.Close()
	})
	return c, d, &rawPeer{t: t, pipe: b}
}

// tryRecv returns the next frame the Conn sent if it is already there, without
// waiting for one.
func (p *rawPeer) tryRecv() (string, bool) {
	p.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msg, err := p.pipe.Read(ctx)
	if err != nil {
		return "", false
	}
	b, err := jsonrpc.Encode(nil, msg)
	if err != nil {
		p.t.Fatalf("encode %#v: %v", msg, err)
	}
	return string(b), true
}

// ping checks that the Conn answers a call read through the transport, and that
// the answer is the next thing the peer gets.
func (p *rawPeer) ping() {
	p.t.Helper()
	p.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
	if got := summarize(p.t, p.recvMsg()); got != `id="ping" result={}` {
		p.t.Errorf("got %s, want the ping reply", got)
	}
}

// goid returns the id of the calling goroutine.
func goid() string {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	return strings.Fields(string(buf[:n]))[1] // "goroutine 18 [running]:"
}

// gate is a channel handlers block on until the test opens it. openAtEnd opens
// gates when the test ends, before the Conn's Close waits for those handlers.
type gate struct {
	ch   chan struct{}
	once sync.Once
}

func newGate() *gate { return &gate{ch: make(chan struct{})} }

func (g *gate) open() { g.once.Do(func() { close(g.ch) }) }

// openAtEnd opens gs at the end of t; call it after serveDirect, so that it runs
// before the Conn is closed.
func openAtEnd(t *testing.T, gs ...*gate) {
	t.Cleanup(func() {
		for _, g := range gs {
			g.open()
		}
	})
}

func call(id int64, method string) *jsonrpc.Request {
	return &jsonrpc.Request{ID: jsonrpc.Int64ID(id), Method: method}
}

func note(method string) *jsonrpc.Request { return &jsonrpc.Request{Method: method} }

// TestDirectCall: a call passed to the DirectFunc runs on the calling goroutine, with
// the request in its context, and its reply has been written when the DirectFunc
// returns true.
func TestDirectCall(t *testing.T) {
	checkLeaks(t)
	type seen struct {
		g   string
		req *jsonrpc.Request
		ok  bool
	}
	var mu sync.Mutex
	var handled []seen
	_, d, peer := serveDirect(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		r, ok := jsonrpc.RequestFromContext(ctx)
		mu.Lock()
		handled = append(handled, seen{goid(), r, ok})
		mu.Unlock()
		switch req.Method {
		case "fail":
			return nil, jsonrpc.ErrInvalidParams
		case "panic":
			panic("boom")
		}
		return req.Params, nil
	})})
	tests := []struct {
		name string
		req  *jsonrpc.Request
		want string
	}{
		{"result", &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: "echo", Params: json.RawMessage(`{"x":1}`)},
			`{"jsonrpc":"2.0","id":1,"result":{"x":1}}`},
		{"string id", &jsonrpc.Request{ID: jsonrpc.StringID("s"), Method: "echo", Params: json.RawMessage(`[true]`)},
			`{"jsonrpc":"2.0","id":"s","result":[true]}`},
		{"handler error", call(2, "fail"),
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"Invalid params"}}`},
		{"handler panic", call(3, "panic"),
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer.t = t
			mu.Lock()
			handled = nil
			mu.Unlock()
			if !d.serve(tt.req) {
				t.Fatalf("DirectFunc(%s) = false, want true", tt.req.Method)
			}
			got, ok := peer.tryRecv()
			if !ok {
				t.Fatalf("no reply written when the DirectFunc returned")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
			if extra, ok := peer.tryRecv(); ok {
				t.Errorf("second reply %s", extra)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(handled) != 1 {
				t.Fatalf("handler ran %d times, want once", len(handled))
			}
			h := handled[0]
			if me := goid(); h.g != me {
				t.Errorf("handler ran on goroutine %s, want the caller's (%s)", h.g, me)
			}
			if !h.ok || h.req != tt.req {
				t.Errorf("RequestFromContext in the handler = %p, %v; want the request passed (%p)", h.req, h.ok, tt.req)
			}
		})
	}
	// The reply was routed with the request's context.
	for _, e := range d.eventLog() {
		if strings.HasPrefix(e, "write ") && strings.HasSuffix(e, " for -") {
			t.Errorf("reply written without its request in the context: %s", e)
		}
	}
}

// TestDirectNotification: a notification passed to the DirectFunc is accepted and
// handled (on the notification worker), and never answered.
func TestDirectNotification(t *testing.T) {
	checkLeaks(t)
	type seen struct {
		req, ctxReq *jsonrpc.Request
	}
	noted := make(chan seen, 1)
	_, d, peer := serveDirect(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			r, _ := jsonrpc.RequestFromContext(ctx)
			noted <- seen{req, r}
			return "ignored", nil
		}
		return json.RawMessage(`{}`), nil
	})})
	n := &jsonrpc.Request{Method: "note", Params: json.RawMessage(`{"k":"v"}`)}
	if !d.serve(n) {
		t.Fatalf("DirectFunc(notification) = false, want true")
	}
	got := wait(t, noted, "the notification handler")
	if got.req != n || got.ctxReq != n {
		t.Errorf("handler got request %p (context %p), want %p", got.req, got.ctxReq, n)
	}
	// The notification was handled before the ping was sent: had it been answered,
	// its reply would come first.
	peer.ping()
}

// TestDirectNotificationsInOrder: notifications run one at a time, in the order they
// reach the Conn, whether passed to the DirectFunc or read through Read. As the
// Direct contract requires, a notification is passed directly only once the Conn
// has read the one sent before it and come back to Read.
func TestDirectNotificationsInOrder(t *testing.T) {
	checkLeaks(t)
	const n = 60
	var (
		mu      sync.Mutex
		got     []string
		running atomic.Int32
		overlap atomic.Bool
	)
	done := make(chan struct{})
	_, d, peer := serveDirect(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if running.Add(1) != 1 {
			overlap.Store(true)
		}
		defer running.Add(-1)
		runtime.Gosched() // give an overlapping handler a chance to show
		mu.Lock()
		got = append(got, req.Method)
		if len(got) == n {
			close(done)
		}
		mu.Unlock()
		return nil, nil
	})})
	reads := 0 // Reads the Conn has started
	awaitReads := func(k int) {
		t.Helper()
		for reads < k {
			wait(t, d.reads, "the Conn to call Read")
			reads++
		}
	}
	awaitReads(1)
	var want []string
	for i := range n {
		m := "n" + strconv.Itoa(i)
		want = append(want, m)
		if i%3 == 0 {
			peer.send(`{"jsonrpc":"2.0","method":"` + m + `"}`)
			awaitReads(reads + 1) // read, queued, and back to Read
			continue
		}
		if !d.serve(note(m)) {
			t.Fatalf("DirectFunc(%s) = false", m)
		}
	}
	wait(t, done, "the notifications")
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notification order (-want +got):\n%s", diff)
	}
	if overlap.Load() {
		t.Errorf("two notification handlers ran at once")
	}
}

// TestDirectCallDuringNotifications: calls passed directly run at once, as calls
// read do, while a notification handler runs or notifications are queued; a
// response passed directly meanwhile is held behind those notifications. It runs in
// a synctest bubble: synctest.Wait before each check that something has not
// happened lets every goroutine that could make it happen run first.
func TestDirectCallDuringNotifications(t *testing.T) {
	checkLeaks(t)
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		aStarted, bStarted := make(chan struct{}), make(chan struct{})
		releaseA, releaseB := newGate(), newGate()
		c, d, peer := serveDirect(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			switch req.Method {
			case "a":
				close(aStarted)
				<-releaseA.ch
			case "b":
				close(bStarted)
				<-releaseB.ch
			default:
				calls.Add(1)
				return "ok", nil
			}
			return nil, nil
		})})
		openAtEnd(t, releaseA, releaseB)
		served := func(id int64, when string) {
			t.Helper()
			if !d.serve(call(id, "c")) {
				t.Fatalf("DirectFunc(call %d) = false %s, want true", id, when)
			}
			// Answered when the DirectFunc returned, with no notification finished.
			got, ok := peer.tryRecv()
			if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"ok"}`, id); !ok || got != want {
				t.Errorf("reply to call %d %s: %q (present: %v), want %s", id, when, got, ok, want)
			}
		}

		if !d.serve(note("a")) {
			t.Fatalf("DirectFunc(notification a) = false")
		}
		<-aStarted
		served(1, "while a notification handler runs")

		if !d.serve(note("b")) {
			t.Fatalf("DirectFunc(notification b) = false")
		}
		served(2, "while a notification runs and another is queued")
		synctest.Wait()
		select {
		case <-bStarted:
			t.Fatal("notification b started while a still ran")
		default:
		}

		// A Call of ours whose response arrives (directly) behind the notifications.
		callErr := make(chan error, 1)
		var result string
		go func() { callErr <- c.Call(context.Background(), "up", nil, &result) }()
		up := peer.recvMsg().(*jsonrpc.Request)
		if !d.serve(&jsonrpc.Response{ID: up.ID, Result: json.RawMessage(`"answer"`)}) {
			t.Fatalf("DirectFunc(response) = false, want true")
		}
		synctest.Wait()
		select {
		case err := <-callErr:
			t.Fatalf("Call returned (%v) before the notifications ahead of its response ran", err)
		default:
		}

		releaseA.open()
		<-bStarted
		served(3, "while the queued notification runs")
		synctest.Wait()
		select {
		case err := <-callErr:
			t.Fatalf("Call returned (%v) while notification b still runs", err)
		default:
		}

		releaseB.open()
		if err := <-callErr; err != nil || result != "answer" {
			t.Fatalf("Call = %q, %v; want %q, nil", result, err, "answer")
		}
		served(4, "after the notifications finished")
		if n := calls.Load(); n != 4 {
			t.Errorf("%d calls ran, want 4", n)
		}
	})
}

// TestDirectResponse: a response passed to the DirectFunc goes to the pending Call
// with its id.
func TestDirectResponse(t *testing.T) {
	checkLeaks(t)
	c, d, peer := serveDirect(t, nil)
	tests := []struct {
		name    string
		resp    string // the response to the Call, "ID" standing for its id
		want    string
		wantErr error
	}{
		{"result", `{"jsonrpc":"2.0","id":ID,"result":{"v":[1,2]}}`, `{"v":[1,2]}`, nil},
		{"error", `{"jsonrpc":"2.0","id":ID,"error":{"code":-32601,"message":"Method not found"}}`, "", jsonrpc.ErrMethodNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer.t = t
			callErr := make(chan error, 1)
			var result json.RawMessage
			go func() { callErr <- c.Call(context.Background(), "m", nil, &result) }()
			req := peer.recvMsg().(*jsonrpc.Request)
			msg, err := jsonrpc.Decode([]byte(strings.Replace(tt.resp, "ID", req.ID.Raw(), 1)), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !d.serve(msg) {
				t.Fatalf("DirectFunc(response) = false, want true")
			}
			err = wait(t, callErr, "the Call")
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Call error %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, string(result)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDirectRefuses: a batch or an *Invalid is not for the DirectFunc: it reports
// false and neither handles nor answers anything.
func TestDirectRefuses(t *testing.T) {
	checkLeaks(t)
	var calls atomic.Int32
	noted := make(chan string, 10)
	_, d, peer := serveDirect(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.IsNotification() {
			noted <- req.Method
			return nil, nil
		}
		if req.Method != "ping" {
			calls.Add(1)
		}
		return json.RawMessage(`{}`), nil
	})})
	tests := []struct {
		name string
		msg  jsonrpc.Message
	}{
		{"batch of calls", jsonrpc.Batch{call(1, "c"), call(2, "c")}},
		{"batch of a notification", jsonrpc.Batch{note("batched")}},
		{"batch of a response", jsonrpc.Batch{&jsonrpc.Response{ID: jsonrpc.Int64ID(9), Result: json.RawMessage(`1`)}}},
		{"invalid with an id", &jsonrpc.Invalid{ID: jsonrpc.Int64ID(3), Err: jsonrpc.ErrInvalidRequest}},
		{"invalid with a null id", &jsonrpc.Invalid{ID: jsonrpc.NullID, Err: jsonrpc.ErrInvalidRequest}},
		{"invalid notification", &jsonrpc.Invalid{Err: jsonrpc.ErrInvalidRequest}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer.t = t
			if d.serve(tt.msg) {
				t.Errorf("DirectFunc = true, want false")
			}
			if got, ok := peer.tryRecv(); ok {
				t.Errorf("answered: %s", got)
			}
			// Notifications run in order: had the batch's notification been
			// queued, it would run before this one.
			peer.send(`{"jsonrpc":"2.0","method":"barrier"}`)
			if got := wait(t, noted, "the barrier notification"); got != "barrier" {
				t.Errorf("notification %q ran", got)
			}
			peer.ping()
			if n := calls.Load(); n != 0 {
				t.Errorf("%d calls ran", n)
			}
		})
	}
}

// TestDirectAfterClose: once the Conn has ended, the DirectFunc refuses calls.
func TestDirectAfterClose(t *testing.T) {
	checkLeaks(t)
	var calls atomic.Int32
	c, d, _ := serveDirect(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		calls.Add(1)
		return nil, nil
	})})
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d.serve(call(1, "m")) {
		t.Errorf("DirectFunc(call) after Close = true, want false")
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("handler ran %d times after Close", n)
	}
	for _, e := range d.eventLog() {
		if e != "close" {
			t.Errorf("transport event %q after Close", e)
		}
	}
}

// TestDirectDuplicateID: a direct call whose id is in use by a call still running
// (direct or read) is answered at once with -32600 and a null id.
func TestDirectDuplicateID(t *testing.T) {
	checkLeaks(t)
	tests := []struct {
		name   string
		direct bool // the first call is passed directly, not read
	}{
		{"first call direct", true},
		{"first call read", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLeaks(t)
			started := make(chan struct{}, 2)
			release := newGate()
			_, d, peer := serveDirect(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				started <- struct{}{}
				<-release.ch
				return "first", nil
			})})
			openAtEnd(t, release)
			served := make(chan bool, 1)
			if tt.direct {
				go func() { served <- d.serve(call(7, "m")) }()
			} else {
				peer.send(`{"jsonrpc":"2.0","id":7,"method":"m"}`)
			}
			wait(t, started, "the first call")
			if !d.serve(call(7, "m")) {
				t.Fatalf("DirectFunc(second call with id 7) = false, want true")
			}
			got, ok := peer.tryRecv()
			if !ok {
				t.Fatalf("no reply to the second call when the DirectFunc returned")
			}
			want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: id already in use by a request in progress"}}`
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("reply to the reused id (-want +got):\n%s", diff)
			}
			if len(started) != 0 {
				t.Errorf("the handler ran for the second call")
			}
			// The refusal travels with the request it refuses, so that a transport
			// can route it (Streamable HTTP: to the POST that carried it).
			d.mu.Lock()
			last := d.events[len(d.events)-1]
			d.mu.Unlock()
			if !strings.HasPrefix(last, `write {"jsonrpc":"2.0","id":null,`) || !strings.HasSuffix(last, " for 7") {
				t.Errorf("the refusal was written as %q, want it written for request 7", last)
			}
			release.open()
			if tt.direct && !wait(t, served, "the first DirectFunc") {
				t.Errorf("DirectFunc(first call) = false")
			}
			if got := peer.recv(); got != `{"jsonrpc":"2.0","id":7,"result":"first"}` {
				t.Errorf("reply to the first call: %s", got)
			}
		})
	}
}

// TestDirectCallMakesCall: a direct call's handler can make a Call of its own; its
// response arrives through Read (the reader goroutine is free) or through the
// DirectFunc.
func TestDirectCallMakesCall(t *testing.T) {
	checkLeaks(t)
	var c *jsonrpc.Conn
	c, d, peer := serveDirect(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var got string
		if err := c.Call(ctx, "up", []string{req.ID.Raw()}, &got); err != nil {
			return nil, err
		}
		return "peer said " + got, nil
	})})
	tests := []struct {
		name   string
		direct bool // the response is passed to the DirectFunc, not read
	}{
		{"response read", false},
		{"response direct", true},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer.t = t
			id := int64(i + 1)
			req := call(id, "outer")
			served := make(chan bool, 1)
			go func() { served <- d.serve(req) }()
			up, ok := peer.recvMsg().(*jsonrpc.Request)
			if !ok || up.Method != "up" || string(up.Params) != `["`+strconv.FormatInt(id, 10)+`"]` {
				t.Fatalf("peer got %#v, want the handler's call", up)
			}
			resp := `{"jsonrpc":"2.0","id":` + up.ID.Raw() + `,"result":"hi"}`
			if tt.direct {
				msg, err := jsonrpc.Decode([]byte(resp), nil)
				if err != nil {
					t.Fatal(err)
				}
				if !d.serve(msg) {
					t.Fatalf("DirectFunc(response) = false")
				}
			} else {
				peer.send(resp)
			}
			if !wait(t, served, "the direct call") {
				t.Fatalf("DirectFunc(call) = false")
			}
			got, ok := peer.tryRecv()
			want := `{"jsonrpc":"2.0","id":` + strconv.FormatInt(id, 10) + `,"result":"peer said hi"}`
			if !ok || got != want {
				t.Errorf("reply %q (present: %v), want %s", got, ok, want)
			}
		})
	}
	// The handler's Call was written with the handler's request in its context.
	var ups []string
	for _, e := range d.eventLog() {
		if strings.Contains(e, `"method":"up"`) {
			ups = append(ups, e[strings.LastIndex(e, " for ")+len(" for "):])
		}
	}
	if diff := cmp.Diff([]string{"1", "2"}, ups); diff != "" {
		t.Errorf("requests in the context of the handler's Calls (-want +got):\n%s", diff)
	}
}

// TestDirectCloseWaits: Close waits for a direct call that is still running, whose
// reply is written before the transport is closed. In a synctest bubble, so that
// "Close has not returned" is checked after everything that could run has run.
func TestDirectCloseWaits(t *testing.T) {
	checkLeaks(t)
	synctest.Test(t, func(t *testing.T) {
		started := make(chan struct{})
		release := newGate()
		var calls atomic.Int32
		c, d, peer := serveDirect(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			calls.Add(1)
			close(started)
			<-release.ch
			return "finished", nil
		})})
		openAtEnd(t, release)
		served := make(chan bool, 1)
		go func() { served <- d.serve(call(1, "block")) }()
		<-started

		// A Call the peer never answers fails as soon as Close starts.
		callErr := make(chan error, 1)
		go func() { callErr <- c.Call(context.Background(), "unanswered", nil, nil) }()
		peer.recvMsg()
		closed := make(chan error, 1)
		go func() { closed <- c.Close() }()
		if err := <-callErr; !errors.Is(err, jsonrpc.ErrClosed) {
			t.Fatalf("pending Call: %v, want ErrClosed", err)
		}
		synctest.Wait()
		select {
		case err := <-closed:
			t.Fatalf("Close returned (%v) while a direct call runs", err)
		case <-c.Done():
			t.Fatalf("Done closed while a direct call runs")
		default:
		}
		if d.serve(call(2, "block")) {
			t.Errorf("DirectFunc(call) while closing = true, want false")
		}
		release.open()
		if !<-served {
			t.Errorf("DirectFunc(call 1) = false")
		}
		if err := <-closed; err != nil {
			t.Errorf("Close: %v", err)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("handler ran %d times, want once", n)
		}
		want := []string{
			`write {"jsonrpc":"2.0","id":1,"method":"unanswered"} for -`,
			`write {"jsonrpc":"2.0","id":1,"result":"finished"} for 1`,
			"close",
		}
		if diff := cmp.Diff(want, d.eventLog()); diff != "" {
			t.Errorf("transport events (-want +got):\n%s", diff)
		}
		if got := peer.recv(); got != `{"jsonrpc":"2.0","id":1,"result":"finished"}` {
			t.Errorf("peer got %s, want the reply", got)
		}
	})
}

// TestConnOnDone: OnDone is called exactly once, after Done is closed, whether the
// transport ends or Close ends the Conn (then on Close's goroutine).
func TestConnOnDone(t *testing.T) {
	checkLeaks(t)
	tests := []struct {
		name    string
		end     func(c *jsonrpc.Conn, peer *memory.Pipe)
		wantErr error
		caller  bool // OnDone runs on the goroutine that called end
	}{
		{"transport ends", func(_ *jsonrpc.Conn, peer *memory.Pipe) { peer.Close() }, io.EOF, false},
		{"Close", func(c *jsonrpc.Conn, _ *memory.Pipe) { c.Close() }, jsonrpc.ErrClosed, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLeaks(t)
			type seen struct {
				g        string
				doneShut bool
				err      error
			}
			var calls atomic.Int32
			onDone := make(chan seen, 2)
			var c *jsonrpc.Conn
			a, b := memory.NewPair()
			c = jsonrpc.NewConn(a, &jsonrpc.ConnOptions{OnDone: func() {
				calls.Add(1)
				s := seen{g: goid(), err: c.Err()}
				select {
				case <-c.Done():
					s.doneShut = true
				default:
				}
				onDone <- s
			}})
			defer b.Close()
			select {
			case <-onDone:
				t.Fatalf("OnDone called while the Conn runs")
			default:
			}
			tt.end(c, b)
			got := wait(t, onDone, "OnDone")
			if !got.doneShut {
				t.Errorf("Done not closed when OnDone was called")
			}
			if got.err != tt.wantErr {
				t.Errorf("Err() in OnDone = %v, want %v", got.err, tt.wantErr)
			}
			if me := goid(); tt.caller && got.g != me {
				t.Errorf("OnDone ran on goroutine %s, want Close's (%s)", got.g, me)
			}
			if err := c.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			c.Close()
			if n := calls.Load(); n != 1 {
				t.Errorf("OnDone called %d times, want once", n)
			}
		})
	}
}

// TestDirectAsync: with the notification worker started on demand, a handler that
// calls Async lets the next notification run while it still runs, whether that
// notification was queued before the Async or arrives after it.
func TestDirectAsync(t *testing.T) {
	checkLeaks(t)
	tests := []struct {
		name        string
		queuedFirst bool // the second notification is queued before the first calls Async
	}{
		{"next queued before Async", true},
		{"next arrives after Async", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLeaks(t)
			firstStarted, asynced, secondRan, firstDone, thirdRan :=
				make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{}), make(chan struct{})
			asyncNow, giveUp := newGate(), newGate()
			_, d, peer := serveDirect(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
				switch req.Method {
				case "first":
					close(firstStarted)
					<-asyncNow.ch
					jsonrpc.Async(ctx)
					close(asynced)
					// Without Async the second could not start: this would wait
					// until the test gives up.
					select {
					case <-secondRan:
					case <-giveUp.ch:
					}
					close(firstDone)
				case "second":
					close(secondRan)
				case "third":
					close(thirdRan)
				}
				return nil, nil
			})})
			openAtEnd(t, asyncNow, giveUp)
			if !d.serve(note("first")) {
				t.Fatalf("DirectFunc(first) = false")
			}
			wait(t, firstStarted, "the first notification")
			if tt.queuedFirst {
				if !d.serve(note("second")) {
					t.Fatalf("DirectFunc(second) = false")
				}
				select {
				case <-secondRan:
					t.Fatalf("the second notification ran while the first runs without Async")
				default:
				}
				asyncNow.open()
			} else {
				asyncNow.open()
				wait(t, asynced, "Async")
				if !d.serve(note("second")) {
					t.Fatalf("DirectFunc(second) = false")
				}
			}
			wait(t, secondRan, "the second notification")
			wait(t, firstDone, "the first notification to finish")
			// The queue emptied; the next notification still finds a worker.
			peer.send(`{"jsonrpc":"2.0","method":"third"}`)
			wait(t, thirdRan, "the third notification")
		})
	}
}

// TestConnIdleNoNoteWorker: an idle Conn keeps no notification worker: none runs
// before the first notification, one runs while a notification is handled, and it
// has ended once the queue is empty. synctest.Wait makes "ended" exact: it returns
// when every other goroutine of the bubble is blocked, and a worker with nothing
// queued does not block, it returns.
func TestConnIdleNoNoteWorker(t *testing.T) {
	checkLeaks(t)
	synctest.Test(t, func(t *testing.T) {
		started := make(chan string)
		release := make(chan struct{})
		a, b := memory.NewPair()
		c := jsonrpc.NewConn(a, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			started <- req.Method
			<-release
			return nil, nil
		})})
		defer b.Close()
		defer c.Close()
		workers := func() int {
			synctest.Wait()
			return countBubbleGoroutines("jsonrpc.(*Conn).noteLoop")
		}
		if n := workers(); n != 0 {
			t.Errorf("%d notification workers before any notification, want 0", n)
		}
		for _, m := range []string{"n1", "n2"} {
			if err := b.WriteRaw(context.Background(), []byte(`{"jsonrpc":"2.0","method":"`+m+`"}`)); err != nil {
				t.Fatal(err)
			}
			if got := <-started; got != m {
				t.Fatalf("notification %q ran, want %q", got, m)
			}
			if n := workers(); n != 1 {
				t.Errorf("%d notification workers while %s is handled, want 1", n, m)
			}
			release <- struct{}{}
			if n := workers(); n != 0 {
				t.Errorf("%d notification workers after %s, with nothing queued, want 0", n, m)
			}
		}
	})
}

// countBubbleGoroutines counts the goroutines of the caller's synctest bubble whose
// stack holds fn.
func countBubbleGoroutines(fn string) int {
	var self [256]byte
	head, _, _ := strings.Cut(string(self[:runtime.Stack(self[:], false)]), "\n")
	_, bubble, ok := strings.Cut(head, "synctest bubble ")
	if !ok {
		panic("not in a synctest bubble: " + head)
	}
	bubble = strings.TrimSuffix(bubble, "]:")
	count := 0
	for _, g := range strings.Split(string(allStacks()), "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		if strings.Contains(head, "synctest bubble "+bubble+"]") && strings.Contains(g, fn) {
			count++
		}
	}
	return count
}
