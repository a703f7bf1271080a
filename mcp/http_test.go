package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// serveHTTP serves s with the Streamable HTTP handler on 127.0.0.1 and returns the
// endpoint URL.
func serveHTTP(t *testing.T, s *Server) string { return serveHTTPWith(t, s, nil) }

// serveHTTPWith is serveHTTP with handler options; anything the HTTP server logs
// (a handler's panic, say) fails the test.
func serveHTTPWith(t *testing.T, s *Server, opts *streamable.HandlerOptions) string {
	t.Helper()
	h := streamable.NewHandler(func(ctx context.Context, tr jsonrpc.Transport) error {
		_, err := s.Connect(ctx, tr)
		return err
	}, opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ErrorLog: log.New(failWriter{t}, "", 0)}
	go srv.Serve(ln)
	t.Cleanup(func() {
		h.Shutdown(context.Background())
		srv.Close()
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// failWriter fails the test with whatever is written to it.
type failWriter struct{ t *testing.T }

func (w failWriter) Write(p []byte) (int, error) {
	w.t.Errorf("the HTTP server logged: %s", p)
	return len(p), nil
}

func headerServer() *Server {
	s := NewServer(Implementation{Name: "hdr", Version: "1"}, nil)
	s.AddTool(&Tool{Name: "lookup", Description: "region lookup", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}`)},
		func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
			return TextResult("ok " + string(req.Params.Arguments)), nil
		})
	s.AddTool(&Tool{Name: "bad_annotation", Description: "a number cannot be a header", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"x":{"type":"number","x-mcp-header":"X"}}}`)},
		func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) { return TextResult("ok"), nil })
	return s
}

func TestHTTPModernParamHeaders(t *testing.T) {
	leaktest.Check(t)
	url := serveHTTP(t, headerServer())
	ctx := testCtx(t)
	tr, err := streamable.NewClient(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := NewClient(Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	diff(t, Revision20260728, cs.ProtocolVersion())
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The tool with an annotation on a number is dropped; the other is kept.
	diff(t, 1, len(lt.Tools))
	diff(t, "lookup", lt.Tools[0].Name)
	for _, args := range []string{`{"region":"eu-west","n":3}`, `{"region":" spaced Ünïcode "}`, `{}`} {
		r, err := cs.CallTool(ctx, &CallToolParams{Name: "lookup", Arguments: json.RawMessage(args)})
		if err != nil || r.IsError {
			t.Fatalf("%s: %+v %v", args, r, err)
		}
	}

	// A raw POST whose header disagrees with the body is refused with 400 / -32020.
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"region":"eu-west"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for _, c := range []struct {
		name   string
		header string
		status int
	}{
		{"match", "eu-west", 200},
		{"mismatch", "us-east", 400},
		{"base64 match", "=?base64?ZXUtd2VzdA==?=", 200},
		{"bad base64", "=?base64?ZXUtd2VzdA?=", 400},
		{"missing", "", 400},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "lookup")
			if c.header != "" {
				req.Header.Set("Mcp-Param-Region", c.header)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, b)
			}
			if c.status == 400 && !strings.Contains(string(b), "-32020") {
				t.Errorf("body %s lacks -32020", b)
			}
		})
	}
}

func TestHTTPLegacyAndModernClientsTogether(t *testing.T) {
	leaktest.Check(t)
	url := serveHTTP(t, modernServer())
	ctx := testCtx(t)
	connect := func(rev string) *ClientSession {
		tr, err := streamable.NewClient(url, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := NewClient(Implementation{Name: "c", Version: "1"}, &ClientOptions{ProtocolVersion: rev,
			ElicitationHandler: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
				return &ElicitResult{Action: "accept", Content: map[string]any{"name": "era " + req.Session.ProtocolVersion()}}, nil
			}}).Connect(ctx, tr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	legacy, modern := connect(LatestInitializeRevision), connect("")
	diff(t, LatestInitializeRevision, legacy.ProtocolVersion())
	diff(t, Revision20260728, modern.ProtocolVersion())
	errc := make(chan error, 2)
	for _, cs := range []*ClientSession{legacy, modern} {
		go func() {
			for range 10 {
				r, err := cs.CallTool(ctx, &CallToolParams{Name: "greet"})
				if err != nil {
					errc <- err
					return
				}
				if got, want := r.Content[0].(*TextContent).Text, "Hello, era "+cs.ProtocolVersion()+"!"; got != want {
					errc <- &jsonrpc.Error{Message: got + " != " + want}
					return
				}
			}
			errc <- nil
		}()
	}
	for range 2 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
}

// TestHTTPModernDisconnectCancels: a 2026-07-28 client that closes a request's
// stream cancels the request, whether the call ran on the POST's goroutine or was
// queued for the session's reader (DisableDirectCalls).
func TestHTTPModernDisconnectCancels(t *testing.T) {
	for _, opts := range []*streamable.HandlerOptions{nil, {DisableDirectCalls: true}} {
		t.Run(fmt.Sprintf("direct=%v", opts == nil), func(t *testing.T) {
			leaktest.Check(t)
			started, cancelled := make(chan struct{}), make(chan error, 1)
			s := NewServer(Implementation{Name: "wait", Version: "1"}, nil)
			s.AddTool(&Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
					close(started)
					select {
					case <-ctx.Done():
						cancelled <- ctx.Err()
					case <-time.After(10 * time.Second):
						cancelled <- errors.New("the call was not cancelled")
					}
					return TextResult("late"), nil
				})
			url := serveHTTPWith(t, s, opts)
			defer s.Close()

			body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{},` +
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			ctx, cancel := context.WithCancel(testCtx(t))
			req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "wait")
			done := make(chan error, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				done <- err
			}()
			select {
			case <-started:
			case <-time.After(5 * time.Second):
				t.Fatal("the tool did not start")
			}
			cancel()
			if err := <-cancelled; !errors.Is(err, context.Canceled) {
				t.Errorf("the tool's context ended with %v, want context.Canceled", err)
			}
			if err := <-done; err == nil {
				t.Error("the abandoned POST got a response")
			}
		})
	}
}
