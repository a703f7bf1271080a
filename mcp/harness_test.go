package mcp

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/internal/mcpschema"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// pair connects an initialize-era client (2025-11-25 unless copts pins another
// revision) to s over the memory transport; every server message is validated against
// the official schema of the negotiated revision.
func pair(t *testing.T, s *Server, copts *ClientOptions) (*ClientSession, *ServerSession) {
	t.Helper()
	var o ClientOptions
	if copts != nil {
		o = *copts
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = LatestInitializeRevision
	}
	return connectClient(t, s, &o)
}

// pairProbing connects a client with default options: it probes with server/discover
// and so speaks 2026-07-28 with a wiremcp server.
func pairProbing(t *testing.T, s *Server, copts *ClientOptions) (*ClientSession, *ServerSession) {
	t.Helper()
	return connectClient(t, s, copts)
}

func connectClient(t *testing.T, s *Server, copts *ClientOptions) (*ClientSession, *ServerSession) {
	t.Helper()
	leaktest.Check(t)
	ctx := testCtx(t)
	a, b := memory.NewPair()
	ss, err := s.Connect(ctx, mcpschema.CheckServer(t, a))
	if err != nil {
		t.Fatal(err)
	}
	c := NewClient(Implementation{Name: "test-client", Version: "0.0.1"}, copts)
	cs, err := c.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Close()
	})
	return cs, ss
}

// wire is a raw JSON-RPC peer of a server session, for literal-JSON tests.
type wire struct {
	t    *testing.T
	pipe *memory.Pipe
	ctx  context.Context
}

func rawPeer(t *testing.T, s *Server) *wire {
	t.Helper()
	leaktest.Check(t)
	ctx := testCtx(t)
	a, b := memory.NewPair()
	ss, err := s.Connect(ctx, mcpschema.CheckServer(t, a))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.Close()
		ss.Close()
	})
	return &wire{t: t, pipe: b, ctx: ctx}
}

func (w *wire) send(line string) {
	w.t.Helper()
	if err := w.pipe.WriteRaw(w.ctx, []byte(line)); err != nil {
		w.t.Fatal(err)
	}
}

// recv returns the next message the server wrote, as compact JSON.
func (w *wire) recv() string {
	w.t.Helper()
	m, err := w.pipe.Read(w.ctx)
	if err != nil {
		w.t.Fatalf("read: %v", err)
	}
	b, err := jsonrpc.Encode(nil, m)
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

// roundTrip sends a request line and returns the parsed reply.
func (w *wire) roundTrip(line string) map[string]any {
	w.t.Helper()
	w.send(line)
	var v map[string]any
	if err := json.Unmarshal([]byte(w.recv()), &v); err != nil {
		w.t.Fatal(err)
	}
	return v
}

func (w *wire) initialize(rev string) map[string]any {
	w.t.Helper()
	r := w.roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + rev + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func errCode(t *testing.T, reply map[string]any) float64 {
	t.Helper()
	e, ok := reply["error"].(map[string]any)
	if !ok {
		t.Fatalf("expected an error reply, got %v", reply)
	}
	return e["code"].(float64)
}

func diff(t *testing.T, want, got any) {
	t.Helper()
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

type echoIn struct {
	Message string `json:"message" description:"the text to echo"`
}

type sumIn struct {
	A int `json:"a" mcp:"minimum=0;maximum=100"`
	B int `json:"b,omitempty"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

func newTestServer() *Server {
	s := NewServer(Implementation{Name: "test-server", Title: "Test Server", Version: "1.2.3"}, &ServerOptions{Instructions: "be nice"})
	AddTool(s, &Tool{Name: "echo", Description: "Echo a message"},
		func(ctx context.Context, req *CallToolRequest, in echoIn) (*CallToolResult, any, error) {
			return TextResult(in.Message), nil, nil
		})
	AddTool(s, &Tool{Name: "sum", Title: "Sum", Annotations: &ToolAnnotations{ReadOnlyHint: Bool(true)}},
		func(ctx context.Context, req *CallToolRequest, in sumIn) (*CallToolResult, sumOut, error) {
			return nil, sumOut{Sum: in.A + in.B}, nil
		})
	return s
}
