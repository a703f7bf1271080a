package main

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/patterns-server/catalog"
	"github.com/wiremcp/wiremcp/examples/patterns-server/present"
	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/mcp"
)

var formats = []string{"", "markdown", "json", "both"}

func withFormat(args map[string]any, f string) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		out[k] = v
	}
	if f != "" {
		out["format"] = f
	}
	return out
}

func TestToolsListed(t *testing.T) {
	leaktest.Check(t)
	cs := connectMemory(t, nil)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if len(tool.InputSchema) == 0 || len(tool.OutputSchema) == 0 {
			t.Errorf("%s: missing input or output schema", tool.Name)
		}
		if tool.Annotations == nil || tool.Annotations.ReadOnlyHint == nil || !*tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: not marked read-only", tool.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"get_pattern", "search_patterns"}) {
		t.Errorf("tools %v", names)
	}
}

func TestSearchOverWire(t *testing.T) {
	leaktest.Check(t)
	cs := connectMemory(t, nil)
	queries := []map[string]any{
		{"q": "context", "limitCards": 2},
		{"q": "errors", "category": "errors", "limit": 3},
		{"q": "http", "limitCards": 0},
		{"q": "nothing-matches-this-xyz"},
		{"q": "*", "difficulty": "advanced", "limitCards": 20},
	}
	for _, q := range queries {
		for _, f := range formats {
			args := withFormat(q, f)
			name, _ := json.Marshal(args)
			t.Run(string(name), func(t *testing.T) {
				res := call(t, cs, "search_patterns", args)
				if res.IsError {
					t.Fatalf("isError: %+v", res.Content)
				}
				p := parseResult(t, res)
				checkFormat(t, p, f)
				if p.kind != present.KindSearchResults {
					t.Fatalf("kind %s", p.kind)
				}
				sr := decode[present.SearchResults](t, p.structured)
				md := sr.Metadata
				// The rule of the contract: markers in the Markdown equal the counts in the JSON.
				if len(p.markdown) > 0 {
					if n := countMarker(p.markdown, present.IndexMarker); n != md.ContractMarkers.Index {
						t.Errorf("index markers %d, JSON says %d", n, md.ContractMarkers.Index)
					}
					if n := countMarker(p.markdown, present.CardMarker); n != md.ContractMarkers.Cards || n != md.RenderedCards {
						t.Errorf("card markers %d, JSON says %d / %d", n, md.ContractMarkers.Cards, md.RenderedCards)
					}
				}
				var ids []string
				for _, r := range sr.Patterns {
					ids = append(ids, r.ID)
				}
				if k := md.RenderedCards; k > len(ids) || !slices.Equal(md.RenderedCardIDs, ids[:k]) {
					t.Errorf("renderedCardIds %v are not the first %d of %v", md.RenderedCardIDs, k, ids)
				}
				if lc, ok := args["limitCards"].(int); ok && md.RenderedCards != min(lc, len(ids)) {
					t.Errorf("renderedCards %d for limitCards %d and %d results", md.RenderedCards, lc, len(ids))
				}
				// The echo repeats exactly the arguments sent, plus the
				// resolved format.
				var echo map[string]any
				json.Unmarshal(mustField(t, p.structured, "query"), &echo)
				sent, _ := json.Marshal(args)
				var sentMap map[string]any
				json.Unmarshal(sent, &sentMap)
				if f == "" {
					sentMap["format"] = "markdown"
				}
				if !jsonEqual(t, mustJSON(t, echo), mustJSON(t, sentMap)) {
					t.Errorf("query echo %v, sent %v", echo, sentMap)
				}
			})
		}
	}
}

func mustField(t *testing.T, data []byte, name string) json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m[name]
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGetOverWire(t *testing.T) {
	leaktest.Check(t)
	cs := connectMemory(t, nil)
	for _, f := range formats {
		t.Run("format="+f, func(t *testing.T) {
			p := parseResult(t, call(t, cs, "get_pattern", withFormat(map[string]any{"id": "worker-pool"}, f)))
			checkFormat(t, p, f)
			if p.kind != present.KindDetails {
				t.Fatalf("kind %s", p.kind)
			}
			d := decode[present.Details](t, p.structured)
			if d.ID != "worker-pool" || len(d.Examples) != 1 || !strings.Contains(d.Examples[0].Code, "package main") {
				t.Errorf("details %+v", d)
			}
			if got, err := time.Parse(time.RFC3339, d.Provenance.Timestamp); err != nil || !got.Equal(fixedNow) {
				t.Errorf("timestamp %q: %v", d.Provenance.Timestamp, err)
			}
			if len([]rune(d.Summary)) > present.MaxSummaryChars {
				t.Errorf("summary of %d characters", len([]rune(d.Summary)))
			}
			if len(p.markdown) > 0 && countMarker(p.markdown, present.DetailsMarker) != 1 {
				t.Errorf("details marker count %d", countMarker(p.markdown, present.DetailsMarker))
			}
		})
	}
}

// TestNeedsInputWithoutElicitation: a client without the elicitation capability
// gets needsInput payloads as normal (non-error) results.
func TestNeedsInputWithoutElicitation(t *testing.T) {
	leaktest.Check(t)
	cs := connectMemory(t, nil)
	tests := []struct {
		tool   string
		args   map[string]any
		fields []string
	}{
		{"search_patterns", map[string]any{}, []string{"q"}},
		{"search_patterns", map[string]any{"q": "   "}, []string{"q"}},
		{"search_patterns", map[string]any{"q": "*", "limit": 1}, []string{"category", "difficulty"}},
		{"get_pattern", map[string]any{}, []string{"id"}},
		{"get_pattern", map[string]any{"id": "worker-pol"}, []string{"id"}},
	}
	for _, tc := range tests {
		for _, f := range []string{"json", "both"} {
			res := call(t, cs, tc.tool, withFormat(tc.args, f))
			p := parseResult(t, res)
			checkFormat(t, p, f)
			if res.IsError || p.kind != present.KindNeedsInput {
				t.Fatalf("%s %v: isError %v kind %s", tc.tool, tc.args, res.IsError, p.kind)
			}
			n := decode[present.NeedsInput](t, p.structured)
			if !slices.Equal(n.NeedsInput.Fields, tc.fields) {
				t.Errorf("%s %v: fields %v, want %v", tc.tool, tc.args, n.NeedsInput.Fields, tc.fields)
			}
			for _, field := range tc.fields {
				if len(n.NeedsInput.Suggestions[field]) == 0 {
					t.Errorf("%s %v: no suggestions for %s", tc.tool, tc.args, field)
				}
			}
			if tc.tool == "get_pattern" && tc.args["id"] == "worker-pol" && n.NeedsInput.Suggestions["id"][0] != "worker-pool" {
				t.Errorf("suggestions %v", n.NeedsInput.Suggestions["id"])
			}
		}
	}
}

// TestArgumentValidationOverWire: arguments the tools refuse are isError
// results in the tools' own shape (toolError:v1, CLIENT_ERROR, naming the
// field where there is one), whether the library's inputSchema check or the
// tool's own decoding caught them first (the schema check runs first, through
// the server's InvalidArgumentsHandler).
func TestArgumentValidationOverWire(t *testing.T) {
	leaktest.Check(t)
	cs := connectMemory(t, nil)
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		field string // "" when the error names no field
		text  string // in the message
	}{
		{"search_patterns", map[string]any{"q": "x", "limit": 0}, "limit", "limit"},
		{"search_patterns", map[string]any{"q": "x", "limit": 101}, "limit", "limit"},
		{"search_patterns", map[string]any{"q": "x", "category": "misc"}, "category", "misc"},
		{"search_patterns", map[string]any{"q": "x", "format": "html"}, "format", "html"},
		{"search_patterns", map[string]any{"q": "x", "unknown": true}, "", "unknown"},
		{"search_patterns", map[string]any{"q": 5}, "q", "q"},
		{"get_pattern", map[string]any{"id": 5}, "id", "id"},
		{"get_pattern", map[string]any{"id": "pipeline", "format": "xml"}, "format", "xml"},
		{"get_pattern", map[string]any{"id": "pipeline", "extra": 1}, "", "extra"},
	} {
		res := call(t, cs, tc.tool, tc.args)
		if !res.IsError {
			t.Errorf("%s %v: accepted", tc.tool, tc.args)
			continue
		}
		p := parseResult(t, res) // structuredContent valid against toolError:v1
		if p.kind != present.KindToolError || p.payload == nil {
			t.Errorf("%s %v: kind %q, JSON block %t; want toolError:v1 in both", tc.tool, tc.args, p.kind, p.payload != nil)
			continue
		}
		te := decode[present.ToolError](t, p.structured)
		if te.Code != present.CodeClient || !strings.Contains(te.Message, tc.text) {
			t.Errorf("%s %v: %s %q, want %s naming %q", tc.tool, tc.args, te.Code, te.Message, present.CodeClient, tc.text)
		}
		if got, _ := te.Details["field"].(string); got != tc.field {
			t.Errorf("%s %v: field %q, want %q (%q)", tc.tool, tc.args, got, tc.field, te.Message)
		}
	}
}

// elicitor is a client-side elicitation handler with a scripted answer; a nil
// answer makes the handler fail.
type elicitor struct {
	mu     sync.Mutex
	reqs   []*mcp.ElicitParams
	answer func(n int, p *mcp.ElicitParams) *mcp.ElicitResult
}

func (e *elicitor) handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.reqs = append(e.reqs, req.Params)
	if res := e.answer(len(e.reqs), req.Params); res != nil {
		return res, nil
	}
	return nil, errors.New("the elicitation UI crashed")
}

func (e *elicitor) requests() []*mcp.ElicitParams {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.reqs)
}

func accept(content map[string]any) func(int, *mcp.ElicitParams) *mcp.ElicitResult {
	return func(int, *mcp.ElicitParams) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: "accept", Content: content}
	}
}

func action(a string) func(int, *mcp.ElicitParams) *mcp.ElicitResult {
	return func(int, *mcp.ElicitParams) *mcp.ElicitResult { return &mcp.ElicitResult{Action: a} }
}

// requestedProps decodes a requestedSchema and checks it stays inside the
// form-mode subset: a flat object of string properties.
func requestedProps(t *testing.T, p *mcp.ElicitParams) map[string]map[string]any {
	t.Helper()
	var s struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(p.RequestedSchema, &s); err != nil || s.Type != "object" {
		t.Fatalf("requestedSchema %s: %v", p.RequestedSchema, err)
	}
	for name, prop := range s.Properties {
		if prop["type"] != "string" {
			t.Errorf("property %s has type %v", name, prop["type"])
		}
	}
	if p.Mode != "" && p.Mode != mcp.ElicitModeForm {
		t.Errorf("mode %q", p.Mode)
	}
	return s.Properties
}

func TestNativeElicitation(t *testing.T) {
	leaktest.Check(t)
	allOf := func(cat catalog.Category) int {
		c, _ := catalog.Default()
		return len(c.Search(catalog.Query{Category: cat}))
	}
	tests := []struct {
		name      string
		tool      string
		args      map[string]any
		answer    func(int, *mcp.ElicitParams) *mcp.ElicitResult
		asks      int    // elicitation requests expected
		askFields string // properties of the first requestedSchema, comma-joined and sorted
		wantKind  string
		check     func(t *testing.T, p *parsed)
	}{
		{
			name: "accept query", tool: "search_patterns", args: map[string]any{},
			answer: accept(map[string]any{"q": "worker pool"}), asks: 1, askFields: "q",
			wantKind: present.KindSearchResults,
			check: func(t *testing.T, p *parsed) {
				sr := decode[present.SearchResults](t, p.structured)
				if sr.Query.Q == nil || *sr.Query.Q != "worker pool" || sr.Patterns[0].ID != "worker-pool" {
					t.Errorf("query %+v first %v", sr.Query, sr.Patterns)
				}
			},
		},
		{
			name: "accept category", tool: "search_patterns", args: map[string]any{"q": "*"},
			answer: accept(map[string]any{"category": "concurrency"}), asks: 1, askFields: "category,difficulty",
			wantKind: present.KindSearchResults,
			check: func(t *testing.T, p *parsed) {
				sr := decode[present.SearchResults](t, p.structured)
				if sr.Query.Category == nil || *sr.Query.Category != "concurrency" || sr.Metadata.TotalCount != allOf(catalog.Concurrency) {
					t.Errorf("echo %+v total %d", sr.Query, sr.Metadata.TotalCount)
				}
			},
		},
		{
			name: "accept id", tool: "get_pattern", args: map[string]any{"id": "worker-pol"},
			answer: accept(map[string]any{"id": "worker-pool"}), asks: 1, askFields: "id",
			wantKind: present.KindDetails,
			check: func(t *testing.T, p *parsed) {
				if d := decode[present.Details](t, p.structured); d.ID != "worker-pool" {
					t.Errorf("id %s", d.ID)
				}
			},
		},
		{
			name: "decline", tool: "search_patterns", args: map[string]any{},
			answer: action("decline"), asks: 1, askFields: "q", wantKind: present.KindNeedsInput,
		},
		{
			name: "cancel", tool: "get_pattern", args: map[string]any{"id": ""},
			answer: action("cancel"), asks: 1, askFields: "id", wantKind: present.KindNeedsInput,
		},
		{
			name: "accept with nothing", tool: "search_patterns", args: map[string]any{"q": "*"},
			answer: accept(map[string]any{}), asks: 1, askFields: "category,difficulty", wantKind: present.KindNeedsInput,
		},
		{
			name: "accept outside the enum", tool: "search_patterns", args: map[string]any{"q": "*"},
			answer: accept(map[string]any{"category": "cooking"}), asks: 1, askFields: "category,difficulty",
			wantKind: present.KindToolError,
			check: func(t *testing.T, p *parsed) {
				if te := decode[present.ToolError](t, p.structured); te.Code != present.CodeClient {
					t.Errorf("code %s", te.Code)
				}
			},
		},
		{
			name: "answers that keep asking are bounded", tool: "search_patterns", args: map[string]any{},
			answer: accept(map[string]any{"q": "the"}), asks: maxElicitRounds, askFields: "q", wantKind: present.KindNeedsInput,
		},
		{
			name: "client error falls back", tool: "search_patterns", args: map[string]any{},
			answer: func(int, *mcp.ElicitParams) *mcp.ElicitResult { return nil }, asks: 1, askFields: "q",
			wantKind: present.KindNeedsInput,
		},
		{
			name: "no question, no elicitation", tool: "get_pattern", args: map[string]any{"id": "pipeline"},
			answer: action("decline"), asks: 0, wantKind: present.KindDetails,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			el := &elicitor{answer: tc.answer}
			cs := connectMemory(t, &mcp.ClientOptions{ElicitationHandler: el.handle})
			res := call(t, cs, tc.tool, withFormat(tc.args, "both"))
			p := parseResult(t, res)
			checkFormat(t, p, "both")
			if p.kind != tc.wantKind || res.IsError != (tc.wantKind == present.KindToolError) {
				t.Fatalf("kind %s isError %v, want %s", p.kind, res.IsError, tc.wantKind)
			}
			reqs := el.requests()
			if len(reqs) != tc.asks {
				t.Fatalf("%d elicitation requests, want %d", len(reqs), tc.asks)
			}
			if tc.asks > 0 {
				props := requestedProps(t, reqs[0])
				var names []string
				for n := range props {
					names = append(names, n)
				}
				slices.Sort(names)
				if got := strings.Join(names, ","); got != tc.askFields {
					t.Errorf("asked for %s, want %s", got, tc.askFields)
				}
				if reqs[0].Message == "" {
					t.Error("elicitation without a message")
				}
			}
			if tc.check != nil {
				tc.check(t, p)
			}
		})
	}
}

// TestElicitationEnumsFollowMatches: the narrowing form offers exactly the
// categories and difficulties present among the matches.
func TestElicitationEnumsFollowMatches(t *testing.T) {
	leaktest.Check(t)
	el := &elicitor{answer: action("cancel")}
	cs := connectMemory(t, &mcp.ClientOptions{ElicitationHandler: el.handle})
	p := parseResult(t, call(t, cs, "search_patterns", map[string]any{"q": "*", "format": "json"}))
	n := decode[present.NeedsInput](t, p.structured)
	props := requestedProps(t, el.requests()[0])
	for _, field := range []string{"category", "difficulty"} {
		var enum []string
		for _, v := range props[field]["enum"].([]any) {
			enum = append(enum, v.(string))
		}
		if !slices.Equal(enum, n.NeedsInput.Suggestions[field]) {
			t.Errorf("%s enum %v, suggestions %v", field, enum, n.NeedsInput.Suggestions[field])
		}
	}
}

// TestRevisions: on every revision the JSON block carries the contract; the
// elicitation form is used where the revision has elicitation (2025-06-18 on)
// and the needsInput payload comes back where it does not.
func TestRevisions(t *testing.T) {
	leaktest.Check(t)
	for _, rev := range mcp.SupportedRevisions() {
		t.Run(rev, func(t *testing.T) {
			el := &elicitor{answer: accept(map[string]any{"q": "worker pool"})}
			cs := connectMemory(t, &mcp.ClientOptions{ProtocolVersion: rev, ElicitationHandler: el.handle})
			if got := cs.ProtocolVersion(); got != rev {
				t.Fatalf("negotiated %s", got)
			}
			res := call(t, cs, "search_patterns", map[string]any{"format": "both"})
			var payload []byte
			for _, c := range res.Content {
				tc, ok := c.(*mcp.TextContent)
				var obj map[string]any
				if ok && json.Unmarshal([]byte(tc.Text), &obj) == nil {
					payload = []byte(tc.Text)
				}
			}
			if payload == nil {
				t.Fatal("no JSON block")
			}
			validatePayload(t, payload)
			hasElicitation := rev >= mcp.Revision20250618
			want := present.KindNeedsInput
			if hasElicitation {
				want = present.KindSearchResults
			}
			var head struct{ Kind string }
			json.Unmarshal(payload, &head)
			if head.Kind != want {
				t.Errorf("kind %s, want %s", head.Kind, want)
			}
			if n := len(el.requests()); n != map[bool]int{true: 1, false: 0}[hasElicitation] {
				t.Errorf("%d elicitation requests", n)
			}
			if _, ok := res.StructuredContent.(json.RawMessage); ok != hasElicitation {
				t.Errorf("structuredContent present = %v", ok)
			}
		})
	}
}
