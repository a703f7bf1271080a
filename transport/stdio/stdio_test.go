package stdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/stdio"
)

// checkLeaks fails the test if goroutines of this module started during the test
// are still alive at its end (polling with a deadline, for a leak check only).
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
			time.Sleep(5 * time.Millisecond)
		}
	})
}

func moduleGoroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := make(map[string]string)
	for i, g := range bytes.Split(buf, []byte("\n\n")) {
		s := string(g)
		if i == 0 || !strings.Contains(s, "github.com/wiremcp/wiremcp/") {
			continue
		}
		header, _, _ := strings.Cut(s, "\n")
		if f := strings.Fields(header); len(f) > 1 {
			out[f[1]] = s
		}
	}
	return out
}

// readAll reads until the first non-*jsonrpc.Error error and describes each result:
// the re-encoded message, or "error <code>".
func readAll(t *testing.T, tr *stdio.Transport) ([]string, error) {
	t.Helper()
	var got []string
	for range 1000 {
		msg, err := tr.Read(context.Background())
		if err != nil {
			var e *jsonrpc.Error
			if !errors.As(err, &e) {
				return got, err
			}
			got = append(got, "error "+strconv.FormatInt(e.Code, 10))
			continue
		}
		b, err := jsonrpc.Encode(nil, msg)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	t.Fatal("too many messages")
	return nil, nil
}

func TestReadLines(t *testing.T) {
	const req = `{"jsonrpc":"2.0","id":1,"method":"m"}`
	big := `{"jsonrpc":"2.0","id":2,"method":"m","params":["` + strings.Repeat("x", 200<<10) + `"]}`
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"one line", req + "\n", 0, []string{req}},
		{"crlf", req + "\r\n" + req + "\r\n", 0, []string{req, req}},
		{"empty lines ignored", "\n\r\n\n" + req + "\n\n", 0, []string{req}},
		{"unterminated last line", req + "\n" + req, 0, []string{req, req}},
		{"no input", "", 0, nil},
		{"parse error then more", "{oops\n" + req + "\n", 0, []string{"error -32700", req}},
		{"invalid request then more", `{"jsonrpc":"2.0","id":1}` + "\n" + req + "\n", 0, []string{"error -32600", req}},
		{"blank lines ignored", "  \t\n \r\n" + req + "\n", 0, []string{req}},
		{"line larger than the read buffer", big + "\n" + req + "\n", 0, []string{big, req}},
		{"line at the limit", req + "\r\n", len(req), []string{req}},
		{"line over the limit", req + "x\n" + req + "\n", len(req), []string{"error -32600", req}},
		{"long line over the limit spans buffers", big + "\n" + req + "\n", 100 << 10, []string{"error -32600", req}},
		{"over-long unterminated last line", req + "\n" + big, 100 << 10, []string{req, "error -32600"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkLeaks(t)
			tr := stdio.New(strings.NewReader(tt.in), io.Discard, &stdio.Options{MaxLineBytes: tt.max})
			defer tr.Close()
			got, err := readAll(t, tr)
			if err != io.EOF {
				t.Errorf("final error %v, want io.EOF", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadDecodeLimits(t *testing.T) {
	tr := stdio.New(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"m","params":[[1]]}`+"\n"), io.Discard,
		&stdio.Options{Limits: jsonrpc.Limits{MaxDepth: 2}})
	defer tr.Close()
	got, _ := readAll(t, tr)
	if diff := cmp.Diff([]string{"error -32600"}, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

// lockedBuffer is a bytes.Buffer that counts Write calls.
type lockedBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes++
	return b.buf.Write(p)
}

func TestWrite(t *testing.T) {
	var out lockedBuffer
	tr := stdio.New(strings.NewReader(""), &out, nil)
	ctx := context.Background()
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			msg := &jsonrpc.Request{ID: jsonrpc.Int64ID(int64(i)), Method: "line\nbreak\r",
				Params: json.RawMessage("{\n  \"text\": \"a\\nb\",\r\n  \"n\": " + strconv.Itoa(i) + "\n}")}
			if err := tr.Write(ctx, msg); err != nil {
				t.Errorf("Write: %v", err)
			}
		}()
	}
	wg.Wait()
	if out.writes != n {
		t.Errorf("%d writes to the underlying writer for %d messages", out.writes, n)
	}
	lines := strings.Split(out.buf.String(), "\n")
	if lines[len(lines)-1] != "" {
		t.Fatalf("output does not end with a newline")
	}
	lines = lines[:len(lines)-1]
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	seen := make(map[string]bool)
	for _, l := range lines {
		msg, err := jsonrpc.Decode([]byte(l), nil)
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		req := msg.(*jsonrpc.Request)
		want := `{"text":"a\nb","n":` + req.ID.Raw() + `}`
		if req.Method != "line\nbreak\r" || string(req.Params) != want {
			t.Errorf("line %q decoded to %q %s", l, req.Method, req.Params)
		}
		seen[req.ID.Raw()] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct messages, want %d", len(seen), n)
	}

	if err := tr.Write(ctx, &jsonrpc.Request{Method: "m", Params: json.RawMessage(`"scalar"`)}); err == nil {
		t.Errorf("Write of an unencodable message succeeded")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := tr.Write(cancelled, &jsonrpc.Request{Method: "m"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Write with a cancelled context: %v", err)
	}
	tr.Close()
	if err := tr.Write(ctx, &jsonrpc.Request{Method: "m"}); !errors.Is(err, stdio.ErrClosed) {
		t.Errorf("Write after Close: %v, want ErrClosed", err)
	}
}

func TestCloseUnblocksRead(t *testing.T) {
	checkLeaks(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tr := stdio.New(r, io.Discard, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := tr.Read(context.Background())
		errc <- err
	}()
	// A line proves the read goroutine is up and the Read above is waiting.
	if _, err := w.WriteString(`{"jsonrpc":"2.0","method":"m"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("first Read: %v", err)
	}
	go func() {
		_, err := tr.Read(context.Background())
		errc <- err
	}()
	if err := tr.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, stdio.ErrClosed) {
			t.Errorf("blocked Read returned %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock Read")
	}
	if _, err := tr.Read(context.Background()); !errors.Is(err, stdio.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
}

func TestReadContext(t *testing.T) {
	checkLeaks(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	tr := stdio.New(r, w, nil)
	defer tr.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tr.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a done context: %v", err)
	}
}

// pipePair returns two transports connected by two os.Pipes.
func pipePair(t *testing.T) (*stdio.Transport, *stdio.Transport, *os.File) {
	t.Helper()
	ar, bw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	br, aw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// bRaw lets a test write raw lines to a's input alongside b's own writes.
	return stdio.New(ar, aw, nil), stdio.New(br, bw, nil), bw
}

func TestConnOverPipes(t *testing.T) {
	checkLeaks(t)
	a, b, raw := pipePair(t)
	server := jsonrpc.NewConn(a, &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return req.Params, nil
	})})
	replies := make(chan jsonrpc.Message, 10)
	client := jsonrpc.NewConn(&tap{Transport: b, replies: replies}, nil)
	ctx := context.Background()
	var got json.RawMessage
	if err := client.Call(ctx, "echo", json.RawMessage(`{"a":"line\nbreak"}`), &got); err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"a":"line\nbreak"}` {
		t.Errorf("echo = %s", got)
	}
	// Malformed input from the same stream is answered with id null, and the
	// connection carries on.
	if _, err := raw.WriteString("not json\r\n\n" + strings.Repeat("x", 10) + "\n"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		m := <-replies
		r, ok := m.(*jsonrpc.Response)
		if !ok || !r.ID.IsNull() || r.Error == nil || r.Error.Code != jsonrpc.CodeParseError {
			t.Errorf("reply to a malformed line: %#v", m)
		}
	}
	if err := client.Call(ctx, "echo", []int{1}, &got); err != nil || string(got) != "[1]" {
		t.Errorf("Call after malformed input: %s, %v", got, err)
	}
	client.Close()
	wait(t, server.Done(), "server to see the end of its input")
	if err := server.Err(); err != io.EOF {
		t.Errorf("server Err() = %v, want io.EOF", err)
	}
}

// tap passes unmatched responses (replies to garbage) to a channel as well.
type tap struct {
	*stdio.Transport
	replies chan jsonrpc.Message
}

func (t *tap) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := t.Transport.Read(ctx)
	if r, ok := m.(*jsonrpc.Response); ok && r.ID.IsNull() {
		t.replies <- m
	}
	return m, err
}

func wait[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func BenchmarkRoundTripPipe(b *testing.B) {
	ar, bw, _ := os.Pipe()
	br, aw, _ := os.Pipe()
	server := jsonrpc.NewConn(stdio.New(ar, aw, nil), &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return req.Params, nil
	})})
	client := jsonrpc.NewConn(stdio.New(br, bw, nil), nil)
	defer server.Close()
	defer client.Close()
	params := json.RawMessage(`{"name":"echo","arguments":{"text":"hello, world"}}`)
	ctx := context.Background()
	var res json.RawMessage
	b.ReportAllocs()
	for b.Loop() {
		if err := client.Call(ctx, "tools/call", params, &res); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadLine(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}` + "\n")
	r := &repeatReader{line: line}
	tr := stdio.New(r, io.Discard, nil)
	defer tr.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if _, err := tr.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// repeatReader yields the same line forever, until closed.
type repeatReader struct {
	line   []byte
	off    int
	mu     sync.Mutex
	closed bool
}

func (r *repeatReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, io.ErrClosedPipe
	}
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.off:])
		n += c
		r.off = (r.off + c) % len(r.line)
	}
	return n, nil
}

func (r *repeatReader) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	return nil
}
