package main

// Tests of rest servers: timeouts, retries, headers, the concurrency cap, transports.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/conformance"
	"github.com/wiremcp/wiremcp/examples/gateway/kbapi"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

func TestRESTTimeoutsAndRetries(t *testing.T) {
	b := startKB(t, nil)
	// Calls that must be served get a timeout no loaded machine reaches; the
	// timeout case has a server of its own with a short one.
	tg := kbGateway(t, b, `"timeout": "30s", "retries": 2`)
	cs := tg.connect(t, "/mcp/kb", nil)

	t.Run("503 twice then served", func(t *testing.T) {
		var n atomic.Int64
		b.setFault(func(w http.ResponseWriter, r *http.Request) bool {
			if n.Add(1) <= 2 {
				w.WriteHeader(503)
				return true
			}
			return false
		})
		defer b.setFault(nil)
		before := b.calls.Load()
		res, sc := restCall(t, cs, "list_projects", nil)
		if res.IsError || len(items(t, sc)) != 3 {
			t.Errorf("result %s", resultText(res))
		}
		if got := b.calls.Load() - before; got != 3 {
			t.Errorf("backend called %d times, want 3", got)
		}
	})
	t.Run("502 and 504 are retried, 500 is not", func(t *testing.T) {
		for _, tc := range []struct {
			status, calls int
			ok            bool
		}{{502, 2, true}, {504, 2, true}, {500, 1, false}} {
			var n atomic.Int64
			b.setFault(func(w http.ResponseWriter, r *http.Request) bool {
				if n.Add(1) == 1 {
					w.WriteHeader(tc.status)
					return true
				}
				return false
			})
			before := b.calls.Load()
			res, _ := restCall(t, cs, "list_projects", nil)
			if res.IsError == tc.ok {
				t.Errorf("%d once: isError %v: %s", tc.status, res.IsError, resultText(res))
			}
			if got := b.calls.Load() - before; got != int64(tc.calls) {
				t.Errorf("%d once: backend called %d times, want %d", tc.status, got, tc.calls)
			}
		}
		b.setFault(nil)
	})
	t.Run("503 always: bounded", func(t *testing.T) {
		b.setFault(func(w http.ResponseWriter, r *http.Request) bool {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(503)
			fmt.Fprint(w, `{"error":{"code":"SERVER_ERROR","message":"maintenance"}}`)
			return true
		})
		defer b.setFault(nil)
		before := b.calls.Load()
		res, sc := restCall(t, cs, "list_projects", nil)
		e := restErr(t, res, sc)
		if e["status"] != 503.0 || e["retryable"] != true || !strings.Contains(e["message"].(string), "after 3 attempts") {
			t.Errorf("error %v", e)
		}
		if got := b.calls.Load() - before; got != 3 {
			t.Errorf("backend called %d times, want 1 + 2 retries", got)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		short := kbGateway(t, b, `"timeout": "300ms", "retries": 2`).connect(t, "/mcp/kb", nil)
		release := make(chan struct{})
		defer close(release)
		b.setFault(func(w http.ResponseWriter, r *http.Request) bool {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return true
		})
		defer b.setFault(nil)
		before := b.calls.Load()
		start := time.Now()
		res, sc := restCall(t, short, "list_projects", nil)
		e := restErr(t, res, sc)
		if e["code"] != "TIMEOUT" || !strings.Contains(e["message"].(string), "300ms") {
			t.Errorf("error %v", e)
		}
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("took %v", el)
		}
		if got := b.calls.Load() - before; got != 1 {
			t.Errorf("a timed-out request was sent %d times, want 1 (not retried)", got)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		url := dead.URL
		dead.Close()
		// The base URL's variable part stays a reference in what the model sees.
		t.Setenv("KB_SECRET_PATH", "hush-9f3a")
		tg2 := startGateway(t, fmt.Sprintf(`{"servers": {"kb": {"rest": {"baseUrl": %q, "retries": 1,
			"tools": {"ping": {"path": "/api/projects", "parameters": [{"name": "q", "in": "query"}]}}}}}}`, url+"/${KB_SECRET_PATH}"))
		cs2 := tg2.connect(t, "/mcp/kb", nil)
		res, sc := restCall(t, cs2, "ping", map[string]any{"q": "term"})
		e := restErr(t, res, sc)
		if e["code"] != "UNAVAILABLE" || !strings.Contains(e["message"].(string), "after 2 attempts") {
			t.Errorf("error %v", e)
		}
		if text := resultText(res); strings.Contains(text, "hush-9f3a") || strings.Contains(text, "q=term") || !strings.Contains(text, "${KB_SECRET_PATH}/api/projects") {
			t.Errorf("message shows the expanded URL or its query: %s", text)
		}
	})
}

func TestRESTHeaders(t *testing.T) {
	t.Setenv("KB_TOKEN", "s3cret")
	b := startKB(t, &kbapi.Options{Token: "s3cret"})
	tg := kbGateway(t, b, `"headers": {"Authorization": "Bearer ${KB_TOKEN}"}, "forwardHeaders": ["x-project-slug", "x-request-id"]`)
	tr, err := streamable.NewClient(tg.srv.URL+"/mcp/kb", &streamable.ClientOptions{Header: http.Header{
		"Authorization":  {"Bearer client-token"},
		"X-Project-Slug": {"atlas-notes"},
		"X-Request-Id":   {"req-7"},
		"X-Other":        {"not allowed"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(testCtx(t), tr)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, sc := restCall(t, cs, "list_projects", nil)
	if res.IsError {
		t.Fatalf("with the configured credentials: %s", resultText(res))
	}
	_ = sc
	h := b.lastHeader(t)
	if got := h.Get("Authorization"); got != "Bearer s3cret" {
		t.Errorf("Authorization at the backend = %q, want the configured one", got)
	}
	if h.Get("X-Project-Slug") != "atlas-notes" || h.Get("X-Request-Id") != "req-7" {
		t.Errorf("allowed headers not forwarded: %v", h)
	}
	if h.Get("X-Other") != "" {
		t.Errorf("a header not allowed by name was forwarded")
	}
	// projectId is the model's choice (the document declares it), the slug the
	// client's: the id wins at the API, as the API's rule says.
	res, sc = restCall(t, cs, "search_entities", map[string]any{"projectId": p1, "limit": 1})
	if res.IsError || items(t, sc)[0]["projectId"] != p1 {
		t.Errorf("search: %s", resultText(res))
	}
	if got := b.lastHeader(t).Get("X-Project-Id"); got != p1 {
		t.Errorf("x-project-id = %q", got)
	}
}

func TestRESTFixedScope(t *testing.T) {
	// A scope fixed by the configuration: the header is not an argument any more.
	b := startKB(t, nil)
	tg := kbGateway(t, b, fmt.Sprintf(`"headers": {"x-project-id": %q}`, p2))
	cs := tg.connect(t, "/mcp/kb", nil)
	for tool, err := range cs.Tools(testCtx(t)) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(tool.InputSchema), "projectId") {
			t.Errorf("%s still takes projectId: %s", tool.Name, tool.InputSchema)
		}
	}
	res, sc := restCall(t, cs, "search_entities", map[string]any{"limit": 100})
	if res.IsError {
		t.Fatal(resultText(res))
	}
	for _, e := range items(t, sc) {
		if e["projectId"] != p2 {
			t.Errorf("entity of %v with the scope fixed to %s", e["projectId"], p2)
		}
	}
	res, _ = restCall(t, cs, "search_entities", map[string]any{"projectId": p1})
	if !res.IsError {
		t.Error("the model could choose the project")
	}
}

func TestRESTConcurrencyCap(t *testing.T) {
	b := startKB(t, nil)
	var inFlight, peak atomic.Int64
	release := make(chan struct{})
	arrived := make(chan struct{}, 16)
	b.setFault(func(w http.ResponseWriter, r *http.Request) bool {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		arrived <- struct{}{}
		<-release
		inFlight.Add(-1)
		return false
	})
	tg := kbGateway(t, b, `"maxConcurrent": 2, "timeout": "20s"`)
	cs := tg.connect(t, "/mcp/kb", nil)
	var wg sync.WaitGroup
	errs := make(chan string, 5)
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "list_projects", Arguments: json.RawMessage(`{}`)})
			if err != nil {
				errs <- err.Error()
			} else if res.IsError {
				errs <- resultText(res)
			}
		}()
	}
	// Two arrive; a third must not while they are held.
	<-arrived
	<-arrived
	select {
	case <-arrived:
		t.Error("a third request reached the backend while two were in flight")
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if peak.Load() != 2 {
		t.Errorf("peak in flight %d, want 2", peak.Load())
	}
}

func TestRESTCallTimeout(t *testing.T) {
	// The server's timeout bounds the whole call (the wait for a slot and the
	// retries included), below the per-request timeout.
	b := startKB(t, nil)
	release := make(chan struct{})
	defer close(release)
	b.setFault(func(w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return true
	})
	tg := startGateway(t, fmt.Sprintf(`{"servers": {"kb": {"timeout": "400ms", "rest": {"baseUrl": %q, "openapi": %q, "timeout": "10s"}}}}`,
		b.srv.URL, b.srv.URL+"/openapi.json"))
	cs := tg.connect(t, "/mcp/kb", nil)
	start := time.Now()
	res, sc := restCall(t, cs, "list_projects", nil)
	e := restErr(t, res, sc)
	if e["code"] != "TIMEOUT" || !strings.Contains(e["message"].(string), "the call's time (400ms) ran out") {
		t.Errorf("error %v", e)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("took %v", el)
	}
}

func TestRESTDocumentUnavailable(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	url := dead.URL
	dead.Close()
	tg := startGateway(t, fmt.Sprintf(`{"servers": {"kb": {"rest": {"baseUrl": %q, "openapi": %q, "timeout": "2s"}}}}`, url, url+"/openapi.json"))
	status, _, body := tg.get(t, "/healthz", "")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, `"kind": "rest"`) || !strings.Contains(body, "openapi:") {
		t.Errorf("/healthz %d: %s", status, body)
	}
	cs := tg.connect(t, "/mcp/kb", nil)
	if names := toolNames(t, cs); len(names) != 0 {
		t.Errorf("tools without a document: %v", names)
	}
}

// TestRESTEveryTransport calls a bridged tool over the legacy SSE route and as a
// 2026-07-28 (stateless) client, with a scoping header forwarded in both.
func TestRESTEveryTransport(t *testing.T) {
	b := startKB(t, nil)
	tg := kbGateway(t, b, `"forwardHeaders": ["x-request-id"]`)
	sse := tg.connectSSE(t, "/mcp/kb/sse")
	// A 2024-11-05 client has no structuredContent: the JSON text carries it all.
	res, sc := restCall(t, sse, "search_entities", map[string]any{"projectId": p2, "limit": 3})
	var fromText map[string]any
	if err := json.Unmarshal([]byte(resultText(res)), &fromText); err != nil || res.IsError || sc != nil {
		t.Fatalf("over SSE: %s (structured %v)", resultText(res), sc)
	}
	if es := items(t, fromText); len(es) != 3 || es[0]["projectId"] != p2 {
		t.Errorf("over SSE: %s", resultText(res))
	}
	tr, err := streamable.NewClient(tg.srv.URL+"/mcp/kb", &streamable.ClientOptions{Header: http.Header{"X-Request-Id": {"modern-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	modern, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Revision20260728}).Connect(testCtx(t), tr)
	if err != nil {
		t.Fatal(err)
	}
	defer modern.Close()
	res, sc = restCall(t, modern, "get_entity_graph", map[string]any{"projectId": p1, "entityId": "e0000001-0000-4000-8000-000000000002", "depth": 2})
	if res.IsError || sc["data"].(map[string]any)["depth"] != 2.0 {
		t.Errorf("2026-07-28 client: %s", resultText(res))
	}
	if got := b.lastHeader(t).Get("X-Request-Id"); got != "modern-1" {
		t.Errorf("x-request-id from a 2026-07-28 client = %q", got)
	}
	res, _ = restCall(t, modern, "get_entity_graph", map[string]any{"projectId": p1, "entityId": "e0000001-0000-4000-8000-000000000002", "depth": 5})
	if !res.IsError {
		t.Error("2026-07-28 client: depth 5 accepted")
	}
}

// TestConformanceRESTServer runs our conformance suite, every revision, against a
// rest server bridging the demo API (its structured-output checks call the tools
// with arguments built from the schemas' examples), and over the SSE route.
func TestConformanceRESTServer(t *testing.T) {
	b := startKB(t, nil)
	tg := kbGateway(t, b, "")
	t.Run("streamable", func(t *testing.T) {
		conformance.Run(t, conformance.Target{URL: tg.srv.URL + "/mcp/kb"}, conformanceOptions(t, conformance.RevisionAll))
	})
	t.Run("sse", func(t *testing.T) {
		conformance.Run(t, conformance.Target{SSEURL: tg.srv.URL + "/mcp/kb/sse"}, conformanceOptions(t, ""))
	})
}

// TestRESTCloseUnstarted: a part that never started (another part of its server
// failed first) closes at once.
func TestRESTCloseUnstarted(t *testing.T) {
	p := newRESTPart("kb", &RESTConfig{BaseURL: "http://127.0.0.1:1", OpenAPI: "http://127.0.0.1:1/openapi.json"}, time.Minute, "", newLineRing(5))
	done := make(chan struct{})
	go func() { p.waitFirstStart(); p.close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("close of a part that never started blocks")
	}
}
