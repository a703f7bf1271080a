package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// TestHTTPDeclaresNoNotifications: over stateless HTTP no connection outlives its
// POST, so no change can ever be announced: the server declares neither
// listChanged nor subscribe, and refuses resources/subscribe (it had accepted
// subscriptions that were never served).
func TestHTTPDeclaresNoNotifications(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{SkipEngines: true})
	url := startHTTP(t, svc).URL
	for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		cs := connectHTTP(t, url, v)
		caps := cs.ServerCapabilities()
		if caps.Resources == nil || caps.Tools == nil {
			t.Fatalf("%s: capabilities %+v lack resources or tools", v, caps)
		}
		if caps.Resources.Subscribe || caps.Resources.ListChanged || caps.Tools.ListChanged {
			t.Errorf("%s: declares resources %+v, tools %+v over stateless HTTP", v, *caps.Resources, *caps.Tools)
		}
		if caps.Logging != nil {
			t.Errorf("%s: declares logging, but the server sends no log messages", v)
		}
		// Our client does not send what the server did not declare: a raw POST.
		body := `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"catalog://project/retail"}}`
		req, err := http.NewRequest("POST", url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", v)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var msg struct {
			Result json.RawMessage `json:"result"`
			Error  *jsonrpc.Error  `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&msg)
		resp.Body.Close()
		if err != nil || msg.Error == nil || msg.Error.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s: resources/subscribe over stateless HTTP: %+v (%v), want a -32601 refusal", v, msg, err)
		}
	}
}

// TestStdioSubscribersToldOfChanges: a session that outlives reloads (stdio's)
// is sent notifications/resources/updated for the objects it subscribed to whose
// package's files changed, and for their project; not for those of other packages.
func TestStdioSubscribersToldOfChanges(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": "{}", "p/k/m.sql": "-- @source a\nSELECT 1 AS x;\n",
		"p/j/manifest.json": "{}", "p/j/n.sql": "-- @source b\nSELECT 2 AS y;\n",
	})
	svc := newTestService(t, dir, Config{SkipEngines: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, updated := updatedSession(t, svc)
	if c := cs.ServerCapabilities().Resources; c == nil || !c.Subscribe || !c.ListChanged {
		t.Fatalf("stdio server does not declare resources.subscribe and listChanged: %+v", c)
	}
	// Its tools never change, and it sends no log messages: it says neither.
	if caps := cs.ServerCapabilities(); caps.Tools == nil || caps.Tools.ListChanged || caps.Logging != nil {
		t.Fatalf("stdio server declares tools %+v, logging %v", caps.Tools, caps.Logging)
	}
	// A URI that names nothing is refused, with the closest that do.
	var je *jsonrpc.Error
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "catalog://source/p/k/m/b"}); !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound || !strings.Contains(string(je.Data), "catalog://source/p/k/m/a") {
		t.Fatalf("subscribing to nothing: %v %s", err, je.Data)
	}
	subs := []string{"catalog://source/p/k/m/a", "catalog://model/p/j/n", "catalog://project/p"}
	for _, u := range subs {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: u}); err != nil {
			t.Fatal(err)
		}
	}
	// A later modification time than the first load's, however coarse the clock.
	time.Sleep(20 * time.Millisecond)
	writeFiles(t, dir, map[string]string{"p/k/m.sql": "-- @source a\nSELECT 3 AS x;\n"})
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for len(got) < 2 {
		select {
		case u := <-updated:
			got[u] = true
		case <-ctx.Done():
			t.Fatalf("updated after a change of p/k: %v, want catalog://source/p/k/m/a and catalog://project/p", got)
		}
	}
	// Anything else would have been sent by now: one more round trip flushes it.
	if _, err := cs.ListResources(ctx, &mcp.ListResourcesParams{}); err != nil {
		t.Fatal(err)
	}
	select {
	case u := <-updated:
		got[u] = true
	case <-time.After(200 * time.Millisecond):
	}
	if !got["catalog://source/p/k/m/a"] || !got["catalog://project/p"] || got["catalog://model/p/j/n"] || len(got) != 2 {
		t.Errorf("updated after a change of p/k: %v, want catalog://source/p/k/m/a and catalog://project/p only", got)
	}
}

// TestStdioSubscribersToldOfGoneAndBack: a subscribed object whose file is
// deleted is announced as updated (a read then answers not found), and again
// when a file with new content brings it back: the subscription outlives the
// object's absence. Before, both reloads sent only list_changed, and a client
// kept the content it had cached before the delete.
func TestStdioSubscribersToldOfGoneAndBack(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"p/k/manifest.json": "{}", "p/k/m.sql": "-- The first m.\n-- @source t\nSELECT 1 AS x;\n",
		"p/j/manifest.json": "{}", "p/j/n.sql": "-- @source b\nSELECT 2 AS y;\n",
	})
	svc := newTestService(t, dir, Config{SkipEngines: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, updated := updatedSession(t, svc)
	for _, u := range []string{"catalog://model/p/k/m", "catalog://source/p/k/m/t", "catalog://model/p/j/n"} {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: u}); err != nil {
			t.Fatal(err)
		}
	}
	// collect waits for want, then flushes with a round trip and fails on any
	// other URI.
	collect := func(step string, want ...string) {
		t.Helper()
		got := map[string]bool{}
		for _, w := range want {
			for !got[w] {
				select {
				case u := <-updated:
					got[u] = true
				case <-ctx.Done():
					t.Fatalf("%s: updated %v, want %v", step, got, want)
				}
			}
		}
		if _, err := cs.ListResources(ctx, &mcp.ListResourcesParams{}); err != nil {
			t.Fatal(err)
		}
		for done := false; !done; {
			select {
			case u := <-updated:
				got[u] = true
			case <-time.After(200 * time.Millisecond):
				done = true
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: updated %v, want %v only", step, got, want)
		}
	}

	if err := os.Remove(filepath.Join(dir, "p/k/m.sql")); err != nil {
		t.Fatal(err)
	}
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	collect("m.sql deleted", "catalog://model/p/k/m", "catalog://source/p/k/m/t")
	var je *jsonrpc.Error
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "catalog://model/p/k/m"}); !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound {
		t.Fatalf("reading the deleted model: %v, want not found", err)
	}

	time.Sleep(20 * time.Millisecond)
	writeFiles(t, dir, map[string]string{"p/k/m.sql": "-- The second m.\n-- @source t2\nSELECT 3 AS x;\n"})
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	// The model is back; its source t is not (it is t2 now): nothing to say of t.
	collect("m.sql written again", "catalog://model/p/k/m")
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "catalog://model/p/k/m"})
	if err != nil {
		t.Fatal(err)
	}
	if txt := r.Contents[0].Text; !strings.Contains(txt, "The second m.") || !strings.Contains(txt, "t2") {
		t.Errorf("the model read after it came back: %s", txt)
	}
}

// updatedSession is a followingSession (2025-06-18) whose resources/updated
// notifications' URIs arrive on the channel (16 buffered).
func updatedSession(t *testing.T, svc *Service) (*mcp.ClientSession, chan string) {
	t.Helper()
	updated := make(chan string, 16)
	cs := followingSession(t, svc, &mcp.ClientOptions{
		ProtocolVersion:        "2025-06-18",
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) { updated <- p.URI },
	})
	return cs, updated
}
