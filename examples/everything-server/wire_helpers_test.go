package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// wire is a raw JSON-RPC client of the everything server over an in-process pipe: the
// tests write literal frames and read back exactly what the server put on the wire.
type wire struct {
	t      *testing.T
	ctx    context.Context
	pipe   *memory.Pipe
	nextID int
}

// exchange is everything the server sent while answering one request.
type exchange struct {
	result   json.RawMessage
	err      *jsonrpc.Error
	notes    []*jsonrpc.Request // notifications before the response, in order
	requests []*jsonrpc.Request // server-to-client requests before the response
}

// initParams is an initialize request of revision 2025-11-25 with the given client
// capabilities.
func initParams(caps string) string {
	return `{"protocolVersion":"2025-11-25","capabilities":` + caps +
		`,"clientInfo":{"name":"wire-test","version":"1.0.0"}}`
}

// newWire connects a fresh everything server, performs the handshake declaring caps
// and returns the initialize result. The session is closed, and the server is waited
// for, when the test ends.
func newWire(t *testing.T, caps string) (*wire, json.RawMessage) {
	t.Helper()
	w := connectWire(t)
	ex := w.call("initialize", initParams(caps), nil)
	if ex.err != nil {
		t.Fatalf("initialize: %v", ex.err)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w, ex.result
}

// connectWire connects a fresh everything server without a handshake (2026-07-28
// requests need none). The session is closed, and the server is waited for, when the
// test ends.
func connectWire(t *testing.T) *wire {
	t.Helper()
	client, server := memory.NewPair()
	srv := newServer(nil)
	ss, err := srv.Connect(t.Context(), server)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() {
		client.Close()
		ss.Wait()
		srv.Close() // running tasks
	})
	return &wire{t: t, ctx: t.Context(), pipe: client}
}

func (w *wire) send(frame string) {
	w.t.Helper()
	if err := w.pipe.WriteRaw(w.ctx, []byte(frame)); err != nil {
		w.t.Fatalf("write %s: %v", frame, err)
	}
}

// call sends a request and reads until its response. Server-to-client requests are
// answered with the result JSON that answer returns (nil answer: the test fails).
func (w *wire) call(method, params string, answer func(*jsonrpc.Request) string) *exchange {
	w.t.Helper()
	w.nextID++
	id := jsonrpc.Int64ID(int64(w.nextID))
	frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q`, id.Raw(), method)
	if params != "" {
		frame += `,"params":` + params
	}
	w.send(frame + "}")
	ex := &exchange{}
	for range 200 {
		msg, err := w.pipe.Read(w.ctx)
		if err != nil {
			w.t.Fatalf("%s: read: %v", method, err)
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			if m.ID != id {
				w.t.Fatalf("%s: response to id %s, want %s", method, m.ID, id)
			}
			ex.result, ex.err = m.Result, m.Error
			return ex
		case *jsonrpc.Request:
			if m.IsNotification() {
				ex.notes = append(ex.notes, m)
				continue
			}
			ex.requests = append(ex.requests, m)
			if answer == nil {
				w.t.Fatalf("%s: unexpected server request %s %s", method, m.Method, m.Params)
			}
			w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID.Raw(), answer(m)))
		default:
			w.t.Fatalf("%s: unexpected message %T", method, msg)
		}
	}
	w.t.Fatalf("%s: no response after 200 messages", method)
	return nil
}

// result calls method and returns its result, failing the test on an error response.
func (w *wire) result(method, params string) json.RawMessage {
	w.t.Helper()
	ex := w.call(method, params, nil)
	if ex.err != nil {
		w.t.Fatalf("%s %s: error %d %s", method, params, ex.err.Code, ex.err.Message)
	}
	if len(ex.notes) > 0 {
		w.t.Fatalf("%s: unexpected notifications before the response: %s", method, ex.notes[0].Method)
	}
	return ex.result
}

// assertJSON fails when got and want are not the same JSON value (member order and
// whitespace aside).
func assertJSON(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: got invalid JSON %q: %v", what, got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation %q: %v", what, want, err)
	}
	if d := cmp.Diff(w, g); d != "" {
		t.Errorf("%s: wire JSON mismatch (-want +got):\n%s\ngot: %s", what, d, got)
	}
}

// sortListByName returns a list result with its array member sorted by the items'
// names, so that assertions do not depend on the listing order.
func sortListByName(t *testing.T, res json.RawMessage, member string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(res, &m); err != nil {
		t.Fatalf("list result %s: %v", res, err)
	}
	var items []map[string]any
	if err := json.Unmarshal(m[member], &items); err != nil {
		t.Fatalf("%s of %s: %v", member, res, err)
	}
	slices.SortFunc(items, func(a, b map[string]any) int {
		return strings.Compare(fmt.Sprint(a["name"]), fmt.Sprint(b["name"]))
	})
	b, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	m[member] = b
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// quote returns s as a JSON string literal.
func quote(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
