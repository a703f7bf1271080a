package jsonrpc_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// testHandler answers a few methods used across the conn tests.
func testHandler(ctx context.Context, req *jsonrpc.Request) (any, error) {
	switch req.Method {
	case "ping":
		return json.RawMessage(`{}`), nil
	case "echo":
		return req.Params, nil
	case "sum":
		var xs []int
		if err := json.Unmarshal(req.Params, &xs); err != nil {
			return nil, fmt.Errorf("sum: %w", jsonrpc.ErrInvalidParams)
		}
		n := 0
		for _, x := range xs {
			n += x
		}
		return n, nil
	}
	return nil, jsonrpc.ErrMethodNotFound
}

func TestConnCall(t *testing.T) {
	checkLeaks(t)
	a, b := memory.NewPair()
	server := jsonrpc.NewConn(a, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(testHandler)})
	client := jsonrpc.NewConn(b, nil)
	defer server.Close()
	defer client.Close()
	ctx := context.Background()

	var n int
	if err := client.Call(ctx, "sum", []int{1, 2, 3}, &n); err != nil || n != 6 {
		t.Fatalf("Call sum = %d, %v; want 6, nil", n, err)
	}
	var raw json.RawMessage
	if err := client.Call(ctx, "echo", json.RawMessage(`{"a":[1, 2]}`), &raw); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"a":[1,2]}`, string(raw)); diff != "" {
		t.Errorf("echo result (-want +got):\n%s", diff)
	}
	if err := client.Call(ctx, "ping", nil, nil); err != nil {
		t.Errorf("Call ping: %v", err)
	}

	err := client.Call(ctx, "sum", map[string]int{"a": 1}, &n)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || !errors.Is(err, jsonrpc.ErrInvalidParams) || e.Message != "sum: Invalid params" {
		t.Errorf("Call sum with bad params: %v, want *Error -32602 %q", err, "sum: Invalid params")
	}
	if err := client.Call(ctx, "nope", nil, nil); !errors.Is(err, jsonrpc.ErrMethodNotFound) {
		t.Errorf("Call nope: %v, want -32601", err)
	}
	if err := client.Call(ctx, "echo", "a string", nil); err == nil {
		t.Errorf("Call with string params succeeded, want an error")
	}
	if err := client.Call(ctx, "echo", []int{1}, &struct{ X chan int }{}); err == nil {
		t.Errorf("Call decoding an array into a struct succeeded, want an error")
	}
	// A result type with its own decoder gets the result's bytes; its error is the
	// call's.
	var su selfUnmarshal
	if err := client.Call(ctx, "echo", json.RawMessage(`{"b": "x"}`), &su); err != nil || string(su.got) != `{"b":"x"}` {
		t.Errorf("Call into an Unmarshaler = %q, %v", su.got, err)
	}
	su.err = errors.New("not for me")
	if err := client.Call(ctx, "echo", []int{1}, &su); err == nil || !strings.Contains(err.Error(), `call "echo": decoding the result: not for me`) {
		t.Errorf("Call into a refusing Unmarshaler: %v", err)
	}
}

// replySummary reduces a reply to its id and error code (0 for a result), or "none".
func summarize(t *testing.T, msg jsonrpc.Message) string {
	t.Helper()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		if m.Error != nil {
			return "id=" + m.ID.Raw() + " code=" + strconv.FormatInt(m.Error.Code, 10)
		}
		return "id=" + m.ID.Raw() + " result=" + string(m.Result)
	case jsonrpc.Batch:
		var parts []string
		for _, e := range m {
			parts = append(parts, summarize(t, e))
		}
		sort.Strings(parts)
		return fmt.Sprint(parts)
	}
	t.Fatalf("unexpected message %#v", msg)
	return ""
}

// TestConnMalformedInput sends each class of bad input and checks the reply the
// JSON-RPC specification prescribes, then that the connection still works.
func TestConnMalformedInput(t *testing.T) {
	checkLeaks(t)
	logs := newLogRecorder()
	_, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(testHandler), Logger: slog.New(logs)})
	const none = "none"
	tests := []struct {
		name, in, want string
	}{
		{"not JSON", `{"jsonrpc":"2.0","method":"foobar,"params":"bar","baz]`, "id=null code=-32700"},
		{"truncated", `{`, "id=null code=-32700"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", "id=null code=-32700"},
		{"not an object", `"hello"`, "id=null code=-32600"},
		{"empty batch", `[]`, "id=null code=-32600"},
		{"batch of junk", `[1,2,3]`, "[id=null code=-32600 id=null code=-32600 id=null code=-32600]"},
		{"no version", `{"id":1,"method":"ping"}`, "id=1 code=-32600"},
		{"wrong version", `{"jsonrpc":"1.0","id":"a","method":"ping"}`, `id="a" code=-32600`},
		{"wrong case member", `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, "id=null code=-32600"},
		{"duplicate member", `{"jsonrpc":"2.0","id":2,"method":"ping","method":"echo"}`, "id=2 code=-32600"},
		{"string params", `{"jsonrpc":"2.0","id":3,"method":"echo","params":"x"}`, "id=3 code=-32600"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "id=null code=-32600"},
		{"method not a string", `{"jsonrpc":"2.0","method":1,"params":"bar"}`, "id=null code=-32600"},
		{"too deep", `{"jsonrpc":"2.0","id":4,"method":"echo","params":` + nested(100) + `}`, "id=null code=-32600"},
		{"result and error", `{"jsonrpc":"2.0","id":5,"result":1,"error":{"code":1,"message":"x"}}`, "id=null code=-32600"},
		{"malformed notification", `{"jsonrpc":"2.0","method":"note","params":"x"}`, none},
		{"unknown method notification", `{"jsonrpc":"2.0","method":"nope"}`, none},
		{"response to an unknown id", `{"jsonrpc":"2.0","id":99,"result":{}}`, none},
		{"error report with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, none},
		{"unknown method", `{"jsonrpc":"2.0","id":6,"method":"nope"}`, "id=6 code=-32601"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer.t = t
			peer.send(tt.in)
			// The ping after it proves the conn is up, and (since the reader handles
			// frames in order and answers malformed ones itself) that nothing else
			// was sent when none is expected.
			peer.send(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`)
			first := summarize(t, peer.recvMsg())
			if tt.want == none {
				if first != `id="ping" result={}` {
					t.Errorf("got reply %s, want none", first)
				}
				return
			}
			if first != tt.want {
				// A call reply may race with the ping reply; accept either order.
				second := summarize(t, peer.recvMsg())
				if second != tt.want || first != `id="ping" result={}` {
					t.Errorf("replies %s, %s; want %s then the ping reply", first, second, tt.want)
				}
				return
			}
			if got := summarize(t, peer.recvMsg()); got != `id="ping" result={}` {
				t.Errorf("after the reply got %s, want the ping reply", got)
			}
		})
	}
	// Responses are delivered behind earlier notifications, so the log line may
	// come after the ping reply.
	logs.waitLog(t, "dropped a response to an unknown id")
}

func nested(n int) string {
	b := make([]byte, 0, 2*n)
	for range n {
		b = append(b, '[')
	}
	for range n {
		b = append(b, ']')
	}
	return string(b)
}

// TestConnParseErrorReply checks the exact bytes of a parse-error reply.
func TestConnParseErrorReply(t *testing.T) {
	checkLeaks(t)
	_, peer := serve(t, nil)
	peer.send(`{"jsonrpc"`)
	want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: unexpected end of input"}}`
	if diff := cmp.Diff(want, peer.recv()); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
	peer.send(`[]`)
	want = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: empty batch"}}`
	if diff := cmp.Diff(want, peer.recv()); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
}

func TestConnNilHandler(t *testing.T) {
	checkLeaks(t)
	_, peer := serve(t, nil)
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"anything"}`)
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: anything"}}`
	if diff := cmp.Diff(want, peer.recv()); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
}

func TestConnResults(t *testing.T) {
	checkLeaks(t)
	results := map[string]func() (any, error){
		"raw":       func() (any, error) { return json.RawMessage(`{"kept": [1, 2]}`), nil },
		"nil":       func() (any, error) { return nil, nil },
		"nilraw":    func() (any, error) { return json.RawMessage(nil), nil },
		"struct":    func() (any, error) { return struct{ A int }{7}, nil },
		"badraw":    func() (any, error) { return json.RawMessage(`{"a":`), nil },
		"unmarshal": func() (any, error) { return make(chan int), nil },
		"wrapped":   func() (any, error) { return nil, fmt.Errorf("checking x: %w", jsonrpc.ErrInvalidParams) },
		"data": func() (any, error) {
			return nil, jsonrpc.NewError(-32001, "custom", map[string]int{"n": 1})
		},
		"plain":        func() (any, error) { return nil, errors.New("disk full") },
		"partial":      func() (any, error) { return 5, errors.New("result dropped") },
		"marshaler":    func() (any, error) { return &selfMarshal{out: " \n{ \"spaced\" : [1, 2] }\t "}, nil },
		"badmarshaler": func() (any, error) { return &selfMarshal{out: `{"a":`}, nil },
		"errmarshaler": func() (any, error) { return &selfMarshal{err: errors.New("cannot encode")}, nil },
		"emptymarshal": func() (any, error) { return &selfMarshal{}, nil },
		"nilmarshaler": func() (any, error) { return (*selfMarshal)(nil), nil },
	}
	_, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return results[req.Method]()
	})})
	tests := []struct{ method, want string }{
		{"raw", `{"jsonrpc":"2.0","id":1,"result":{"kept":[1,2]}}`},
		{"nil", `{"jsonrpc":"2.0","id":1,"result":null}`},
		{"nilraw", `{"jsonrpc":"2.0","id":1,"result":null}`},
		{"struct", `{"jsonrpc":"2.0","id":1,"result":{"A":7}}`},
		{"badraw", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: handler returned invalid JSON: Parse error: unexpected end of input"}}`},
		{"unmarshal", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: json: unsupported type: chan int"}}`},
		{"wrapped", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"checking x: Invalid params"}}`},
		{"data", `{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"custom","data":{"n":1}}}`},
		{"plain", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"disk full"}}`},
		{"partial", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"result dropped"}}`},
		{"marshaler", `{"jsonrpc":"2.0","id":1,"result":{"spaced":[1,2]}}`},
		{"badmarshaler", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: handler returned invalid JSON: Parse error: unexpected end of input"}}`},
		{"errmarshaler", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: cannot encode"}}`},
		{"emptymarshal", `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error: the result's MarshalJSON returned nothing"}}`},
		{"nilmarshaler", `{"jsonrpc":"2.0","id":1,"result":null}`},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			peer.t = t
			peer.send(`{"jsonrpc":"2.0","id":1,"method":"` + tt.method + `"}`)
			if diff := cmp.Diff(tt.want, peer.recv()); diff != "" {
				t.Errorf("reply (-want +got):\n%s", diff)
			}
		})
	}
}

// selfMarshal is a result type with its own encoder.
type selfMarshal struct {
	out string
	err error
}

func (m *selfMarshal) MarshalJSON() ([]byte, error) { return []byte(m.out), m.err }

// selfUnmarshal is a result type with its own decoder.
type selfUnmarshal struct {
	got []byte
	err error
}

func (u *selfUnmarshal) UnmarshalJSON(b []byte) error {
	u.got = append([]byte(nil), b...)
	return u.err
}

// TestConnIDs checks that string and number ids that look alike are answered
// independently, each with its exact token.
func TestConnIDs(t *testing.T) {
	checkLeaks(t)
	release := make(chan struct{})
	started := make(chan string, 10)
	_, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		started <- req.ID.Raw()
		<-release
		return req.ID.Raw(), nil
	})})
	ids := []string{`1`, `"1"`, `1.0`, `1e0`, `9007199254740993`, `-7`}
	for _, id := range ids {
		peer.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"m"}`)
	}
	for range ids {
		wait(t, started, "handlers to start")
	}
	close(release)
	var got, want []string
	for _, id := range ids {
		r := peer.recvMsg().(*jsonrpc.Response)
		got = append(got, r.ID.Raw()+"="+string(r.Result))
		want = append(want, id+"="+strconv.Quote(id))
	}
	sort.Strings(got)
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

func TestConnDuplicateID(t *testing.T) {
	checkLeaks(t)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	_, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		started <- struct{}{}
		<-release
		return "done", nil
	})})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
	wait(t, started, "handler")
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
	if got := summarize(t, peer.recvMsg()); got != "id=null code=-32600" {
		t.Errorf("reply to a reused id: %s, want id=null code=-32600", got)
	}
	close(release)
	if got := summarize(t, peer.recvMsg()); got != `id=1 result="done"` {
		t.Errorf("reply to the first call: %s", got)
	}
}

func TestConnNotificationsInOrder(t *testing.T) {
	checkLeaks(t)
	const n = 200
	var got []string
	done := make(chan struct{})
	_, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if !req.IsNotification() {
			return nil, nil
		}
		got = append(got, req.Method) // only ever one notification handler at a time
		if len(got) == n {
			close(done)
		}
		return nil, errors.New("errors of notifications are not sent")
	})})
	var want []string
	for i := range n {
		m := "n" + strconv.Itoa(i)
		want = append(want, m)
		peer.send(`{"jsonrpc":"2.0","method":"` + m + `"}`)
		if i%50 == 0 { // interleave calls; they run concurrently
			peer.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"c"}`)
		}
	}
	wait(t, done, "notifications")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notification order (-want +got):\n%s", diff)
	}
	for range 4 {
		if r := summarize(t, peer.recvMsg()); r[len(r)-len("result=null"):] != "result=null" {
			t.Errorf("call reply %s", r)
		}
	}
}

func TestConnAsync(t *testing.T) {
	checkLeaks(t)
	secondRan := make(chan struct{})
	firstDone := make(chan struct{})
	_, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		switch req.Method {
		case "first":
			jsonrpc.Async(ctx)
			jsonrpc.Async(ctx) // a second call is a no-op
			// Without Async the second notification could not start: this would
			// wait forever.
			<-secondRan
			close(firstDone)
		case "second":
			close(secondRan)
		case "call":
			jsonrpc.Async(ctx) // no-op outside notifications
			return "ok", nil
		}
		return nil, nil
	})})
	peer.send(`{"jsonrpc":"2.0","method":"first"}`)
	peer.send(`{"jsonrpc":"2.0","method":"second"}`)
	wait(t, firstDone, "the first notification to finish")
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"call"}`)
	if got := summarize(t, peer.recvMsg()); got != `id=1 result="ok"` {
		t.Errorf("call reply %s", got)
	}
}

func TestConnCallsConcurrent(t *testing.T) {
	checkLeaks(t)
	var barrier sync.WaitGroup
	barrier.Add(2)
	_, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		barrier.Done()
		barrier.Wait() // both calls must be running at once to get past this
		return req.Method, nil
	})})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"a"}`)
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"b"}`)
	got := []string{summarize(t, peer.recvMsg()), summarize(t, peer.recvMsg())}
	sort.Strings(got)
	if diff := cmp.Diff([]string{`id=1 result="a"`, `id=2 result="b"`}, got); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

type ctxKey struct{}

func TestConnHandlerContext(t *testing.T) {
	checkLeaks(t)
	type seen struct {
		Method, ID string
		Value      any
		Same       bool
	}
	got := make(chan seen, 2)
	base := context.WithValue(context.Background(), ctxKey{}, "base value")
	_, peer := serve(t, &jsonrpc.ConnOptions{
		Context: base,
		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
			r, ok := jsonrpc.RequestFromContext(ctx)
			got <- seen{req.Method, req.ID.Raw(), ctx.Value(ctxKey{}), ok && r == req}
			return nil, nil
		})})
	peer.send(`{"jsonrpc":"2.0","id":"c","method":"call"}`)
	if diff := cmp.Diff(seen{"call", `"c"`, "base value", true}, wait(t, got, "call")); diff != "" {
		t.Errorf("call context (-want +got):\n%s", diff)
	}
	peer.send(`{"jsonrpc":"2.0","method":"note"}`)
	if diff := cmp.Diff(seen{"note", "", "base value", true}, wait(t, got, "notification")); diff != "" {
		t.Errorf("notification context (-want +got):\n%s", diff)
	}
}

// recordingTransport wraps a Transport and records the contexts of writes.
type recordingTransport struct {
	jsonrpc.Transport
	reqs chan *jsonrpc.Request
}

func (r *recordingTransport) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, _ := jsonrpc.RequestFromContext(ctx)
	select {
	case r.reqs <- req:
	default:
	}
	return r.Transport.Write(ctx, msg)
}

// TestConnWriteContext checks that replies and calls made from a handler are
// written with a context that carries the request being handled.
func TestConnWriteContext(t *testing.T) {
	checkLeaks(t)
	a, b := memory.NewPair()
	rt := &recordingTransport{Transport: a, reqs: make(chan *jsonrpc.Request, 10)}
	var server *jsonrpc.Conn
	server = jsonrpc.NewConn(rt, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "outer" {
			var s string
			err := server.Call(ctx, "inner", nil, &s)
			return s, err
		}
		return nil, nil
	})})
	client := jsonrpc.NewConn(b, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return "from client", nil
	})})
	defer server.Close()
	defer client.Close()
	var s string
	if err := client.Call(context.Background(), "outer", nil, &s); err != nil || s != "from client" {
		t.Fatalf("Call outer = %q, %v", s, err)
	}
	for i, what := range []string{"the inner call", "the reply"} {
		req := wait(t, rt.reqs, what)
		if req == nil || req.Method != "outer" {
			t.Errorf("write %d (%s): context carries %+v, want the outer request", i, what, req)
		}
	}
}

func TestConnCancel(t *testing.T) {
	checkLeaks(t)
	started := make(chan struct{}, 1)
	cancelled := make(chan error, 1)
	c, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "slow" {
			started <- struct{}{}
			<-ctx.Done()
			cancelled <- ctx.Err()
			return "too late", nil
		}
		return "pong", nil
	})})
	peer.send(`{"jsonrpc":"2.0","id":"s","method":"slow"}`)
	wait(t, started, "slow handler")
	if c.Cancel(jsonrpc.StringID("x")) {
		t.Errorf("Cancel of an unknown id reported true")
	}
	if !c.Cancel(jsonrpc.StringID("s")) {
		t.Fatalf("Cancel of the running call reported false")
	}
	if err := wait(t, cancelled, "cancellation"); !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx.Err() = %v, want context.Canceled", err)
	}
	if c.Cancel(jsonrpc.StringID("s")) {
		t.Errorf("second Cancel reported true")
	}
	// The cancelled call gets no reply: the next frame is the ping's.
	peer.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if got := summarize(t, peer.recvMsg()); got != `id="p" result="pong"` {
		t.Errorf("got %s, want only the ping reply", got)
	}
}

func TestConnPanic(t *testing.T) {
	checkLeaks(t)
	logs := newLogRecorder()
	_, peer := serve(t, &jsonrpc.ConnOptions{Logger: slog.New(logs), Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "boom" {
			panic("kaboom")
		}
		return "fine", nil
	})})
	peer.send(`{"jsonrpc":"2.0","id":1,"method":"boom"}`)
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`
	if diff := cmp.Diff(want, peer.recv()); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
	logs.waitLog(t, "panic")
	peer.send(`{"jsonrpc":"2.0","method":"boom"}`) // a panicking notification
	logs.waitLog(t, "panic")
	peer.send(`{"jsonrpc":"2.0","id":2,"method":"ok"}`)
	if got := summarize(t, peer.recvMsg()); got != `id=2 result="fine"` {
		t.Errorf("after panics: %s", got)
	}
}

func TestConnCallContextEnds(t *testing.T) {
	checkLeaks(t)
	logs := newLogRecorder()
	a, b := memory.NewPair()
	client := jsonrpc.NewConn(a, &jsonrpc.ConnOptions{Logger: slog.New(logs)})
	defer client.Close()
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- client.Call(ctx, "slow", nil, nil) }()
	// Read the request on the raw side, then cancel before answering.
	msg, err := b.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	req := msg.(*jsonrpc.Request)
	cancel()
	err = wait(t, errc, "Call to return")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Call error %v, want context.Canceled", err)
	}
	if id, ok := jsonrpc.CanceledCallID(err); !ok || id != req.ID {
		t.Errorf("CanceledCallID = %v, %v; want %v", id, ok, req.ID)
	}
	// The late response is dropped and logged.
	if err := b.Write(context.Background(), &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`1`)}); err != nil {
		t.Fatal(err)
	}
	logs.waitLog(t, "unknown id")
	if err := client.Call(ctx, "again", nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Call with a done ctx: %v", err)
	}
}

func TestConnNotify(t *testing.T) {
	checkLeaks(t)
	c, peer := serve(t, nil)
	if err := c.Notify(context.Background(), "progress", map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(`{"jsonrpc":"2.0","method":"progress","params":{"n":1}}`, peer.recv()); diff != "" {
		t.Errorf("notification (-want +got):\n%s", diff)
	}
	if err := c.Notify(context.Background(), "bad", 5); err == nil {
		t.Errorf("Notify with scalar params succeeded")
	}
}

// A call runs on the reader goroutine at first; a handler that calls the peer
// back needs the reader for the answer, so reading must move on. Repeated, so
// that both the first call and later ones (after a hand-over) are exercised.
func TestConnCallBackFromHandler(t *testing.T) {
	checkLeaks(t)
	a, b := memory.NewPair()
	var server *jsonrpc.Conn
	server = jsonrpc.NewConn(a, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		var name string
		if err := server.Call(ctx, "whoami", nil, &name); err != nil {
			return nil, err
		}
		return "hello " + name, nil
	})})
	client := jsonrpc.NewConn(b, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return "client", nil
	})})
	defer server.Close()
	defer client.Close()
	for i := range 20 {
		var got string
		if err := client.Call(context.Background(), "greet", nil, &got); err != nil || got != "hello client" {
			t.Fatalf("call %d: %q, %v", i, got, err)
		}
	}
}

// TestConnCallsNeverWaitForEachOther: after many short calls, and after the
// connection sat idle, two calls can always run at once: each round ends with two
// calls that can only finish when both run at the same time.
func TestConnCallsNeverWaitForEachOther(t *testing.T) {
	checkLeaks(t)
	var mu sync.Mutex
	// A round's barrier: the second call to arrive closes it. Waiting gives up
	// after a while, so that a failing test can still close the Conn.
	type barrier struct {
		n    atomic.Int32
		both chan struct{}
	}
	barriers := map[string]*barrier{}
	_, peer := serve(t, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		if req.Method == "ping" {
			return "pong", nil
		}
		var round []string
		if err := json.Unmarshal(req.Params, &round); err != nil || len(round) != 1 {
			return nil, jsonrpc.ErrInvalidParams
		}
		mu.Lock()
		b := barriers[round[0]]
		mu.Unlock()
		if b.n.Add(1) == 2 {
			close(b.both)
		}
		select {
		case <-b.both:
			return req.Method, nil
		case <-time.After(6 * time.Second):
			return nil, errors.New("the other call of the round never ran")
		}
	})})
	for round := range 3 {
		for i := range 40 {
			peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"p%d","method":"ping"}`, i))
			if got, want := summarize(t, peer.recvMsg()), fmt.Sprintf(`id="p%d" result="pong"`, i); got != want {
				t.Fatalf("round %d: got %s, want %s", round, got, want)
			}
		}
		if round == 1 {
			time.Sleep(30 * time.Millisecond) // idle for a while
		}
		r := strconv.Itoa(round)
		b := &barrier{both: make(chan struct{})}
		mu.Lock()
		barriers[r] = b
		mu.Unlock()
		peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"a%d","method":"a","params":[%q]}`, round, r))
		peer.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"b%d","method":"b","params":[%q]}`, round, r))
		got := []string{summarize(t, peer.recvMsg()), summarize(t, peer.recvMsg())}
		sort.Strings(got)
		want := []string{fmt.Sprintf(`id="a%d" result="a"`, round), fmt.Sprintf(`id="b%d" result="b"`, round)}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("round %d replies (-want +got):\n%s", round, diff)
		}
	}
}
