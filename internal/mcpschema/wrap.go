package mcpschema

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// checked wraps a server's transport and validates every message the server writes
// against the schema of the revision the session negotiated.
type checked struct {
	jsonrpc.Transport
	t   testing.TB
	dir string

	mu      sync.Mutex
	rev     string
	methods map[jsonrpc.ID]reqInfo // client request id → method and revision
}

type reqInfo struct {
	method string
	rev    string // from params._meta (2026-07-28 requests); "" for the session's
}

// metaRevision returns params._meta["io.modelcontextprotocol/protocolVersion"].
func metaRevision(params json.RawMessage) string {
	var p struct {
		Meta struct {
			V string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Meta.V
}

// CheckServer returns a transport that behaves like tr and validates every message
// written through it (the server's output) against the official schema of the
// negotiated revision, reporting failures with t.Errorf. Without MCP_SCHEMA_DIR it
// returns tr unchanged (and logs that nothing is validated).
func CheckServer(t testing.TB, tr jsonrpc.Transport) jsonrpc.Transport {
	dir := os.Getenv(EnvVar)
	if dir == "" {
		t.Logf("%s unset: server messages are not validated against the official schemas", EnvVar)
		return tr
	}
	return &checked{Transport: tr, t: t, dir: dir, methods: map[jsonrpc.ID]reqInfo{}}
}

func (c *checked) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Transport.Read(ctx)
	if err == nil {
		c.record(m)
	}
	return m, err
}

func (c *checked) record(m jsonrpc.Message) {
	switch v := m.(type) {
	case *jsonrpc.Request:
		if !v.IsNotification() {
			c.mu.Lock()
			c.methods[v.ID] = reqInfo{method: v.Method, rev: metaRevision(v.Params)}
			c.mu.Unlock()
		}
	case jsonrpc.Batch:
		for _, e := range v {
			c.record(e)
		}
	}
}

func (c *checked) Write(ctx context.Context, m jsonrpc.Message) error {
	c.check(m)
	return c.Transport.Write(ctx, m)
}

func (c *checked) check(m jsonrpc.Message) {
	switch v := m.(type) {
	case jsonrpc.Batch:
		for _, e := range v {
			c.check(e)
		}
		return
	case *jsonrpc.Invalid:
		return // replies to unreadable input carry "id": null, see the jsonrpc package
	}
	raw, err := jsonrpc.Encode(nil, m)
	if err != nil {
		c.t.Errorf("mcpschema: encode: %v", err)
		return
	}
	c.mu.Lock()
	var method, reqRev string
	if r, ok := m.(*jsonrpc.Response); ok {
		ri := c.methods[r.ID]
		method, reqRev = ri.method, ri.rev
		delete(c.methods, r.ID)
		if method == "initialize" && r.Error == nil {
			var ir struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(r.Result, &ir) == nil {
				c.rev = ir.ProtocolVersion
			}
		}
	}
	rev := c.rev
	c.mu.Unlock()
	if reqRev != "" {
		rev = reqRev
	} else if r := metaFromMessage(m); r != "" {
		rev = r
	}
	if rev == "" {
		rev = "2025-11-25"
	}
	s, err := Load(c.dir, rev)
	if err != nil && reqRev != "" {
		// A request naming a revision nobody publishes (a negative test): its error
		// reply is checked against the newest schema.
		s, err = Load(c.dir, "2026-07-28")
	}
	if err != nil {
		c.t.Errorf("mcpschema: %v", err)
		return
	}
	if r, ok := m.(*jsonrpc.Response); ok {
		if r.ID.IsNull() {
			return
		}
		if err := s.ValidateResponse(method, raw); err != nil {
			c.t.Errorf("server response to %s does not match the %s schema: %v\nmessage: %s", method, rev, err, raw)
		}
		return
	}
	if err := s.ValidateServerMessage(raw); err != nil {
		c.t.Errorf("server message does not match the %s schema: %v\nmessage: %s", rev, err, raw)
	}
}

// metaFromMessage finds the revision of a server notification that belongs to a
// 2026-07-28 request (it carries no revision of its own; listen notifications carry a
// subscriptionId, which only exists in 2026-07-28).
func metaFromMessage(m jsonrpc.Message) string {
	if r, ok := m.(*jsonrpc.Request); ok && strings.Contains(string(r.Params), "io.modelcontextprotocol/subscriptionId") {
		return "2026-07-28"
	}
	return ""
}
