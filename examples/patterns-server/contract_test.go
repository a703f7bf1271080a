package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wiremcp/wiremcp/examples/patterns-server/present"
	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/mcp"
)

// The contract's payloads as a client written against it would declare them
// (presentation-payloads.md, sections 1 and 3, "Field Type Specifications" and
// "Pattern Arrays"). Optional members are pointers, so absence is visible.
type contractSearch struct {
	Kind  string `json:"kind"`
	Query struct {
		Q          *string `json:"q"`
		Category   *string `json:"category"`
		Difficulty *string `json:"difficulty"`
		Limit      *int    `json:"limit"`
		Format     *string `json:"format"`
	} `json:"query"`
	Metadata struct {
		TotalCount      *int            `json:"totalCount"`
		Categories      map[string]int  `json:"categories"`
		Difficulties    map[string]int  `json:"difficulties"`
		RenderedCards   *int            `json:"renderedCards"`
		RenderedCardIDs []string        `json:"renderedCardIds"`
		ContractMarkers *contractMarker `json:"contractMarkers"`
	} `json:"metadata"`
	Patterns []struct {
		ID          string   `json:"id"`
		Title       string   `json:"title"`
		Category    string   `json:"category"`
		Difficulty  string   `json:"difficulty"`
		Description string   `json:"description"`
		Tags        []string `json:"tags"`
	} `json:"patterns"`
	Provenance *contractProvenance `json:"provenance"`
}

type contractMarker struct {
	Index   int    `json:"index"`
	Cards   int    `json:"cards"`
	Version string `json:"version"`
}

type contractProvenance struct {
	Source    string `json:"source"`
	Timestamp string `json:"timestamp"`
	Version   string `json:"version"`
	Marker    string `json:"marker"`
}

type contractDetails struct {
	Kind        string   `json:"kind"`
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Category    string   `json:"category"`
	Difficulty  string   `json:"difficulty"`
	Summary     string   `json:"summary"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	UseGuidance *struct {
		UseWhen   string `json:"useWhen"`
		AvoidWhen string `json:"avoidWhen"`
	} `json:"useGuidance"`
	Sections []struct {
		Title   string `json:"title"`
		Content string `json:"content"`
		Type    string `json:"type"`
	} `json:"sections"`
	Examples []struct {
		Code        string `json:"code"`
		Language    string `json:"language"`
		Description string `json:"description"`
	} `json:"examples"`
	Provenance *contractProvenance `json:"provenance"`
}

type contractNeedsInput struct {
	Kind       string `json:"kind"`
	Type       string `json:"type"`
	Message    string `json:"message"`
	NeedsInput *struct {
		Fields      []string            `json:"fields"`
		Reason      string              `json:"reason"`
		Suggestions map[string][]string `json:"suggestions"`
	} `json:"needsInput"`
	Options []struct {
		Label       string  `json:"label"`
		Value       string  `json:"value"`
		Description *string `json:"description"`
		Field       *string `json:"field"`
	} `json:"options"`
}

// names the contract gives to members of each payload that this server renamed
// before; finding one means a client reading by the contract misses data.
var retiredNames = []string{`"results"`, `"countsByCategory"`, `"countsByDifficulty"`, `"guidance"`,
	`"heading"`, `"body"`, `"retrievedAt"`, `"catalogVersion"`, `"related"`}

// contractSchema compiles testdata/contract-v1.schema.json: the three v1
// payloads as the contract's own types describe them (its discriminated union),
// written from the contract and independent of present/schemas.
func contractSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile("testdata/contract-v1.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return compileRaw(t, "contract-v1", raw)
}

// TestContractSchemaRejects proves the contract schema can fail: payloads of
// this server, each with one member changed the way the old payloads differed
// from the contract (or with a null), are rejected.
func TestContractSchemaRejects(t *testing.T) {
	leaktest.Check(t)
	cs := connectMemory(t, nil)
	s := contractSchema(t)
	payload := func(tool string, args map[string]any) map[string]any {
		res := call(t, cs, tool, withFormat(args, "json"))
		var m map[string]any
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &m); err != nil {
			t.Fatal(err)
		}
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(mustJSON(t, m)))
		if err := s.Validate(v); err != nil {
			t.Fatalf("%s %v: the unchanged payload is rejected: %v", tool, args, err)
		}
		return m
	}
	rename := func(m map[string]any, from, to string) { m[to] = m[from]; delete(m, from) }
	obj := func(m map[string]any, k string) map[string]any { return m[k].(map[string]any) }
	first := func(m map[string]any, k string) map[string]any { return m[k].([]any)[0].(map[string]any) }
	search := func() map[string]any {
		return payload("search_patterns", map[string]any{"q": "context", "includeProvenancePanel": true})
	}
	details := func() map[string]any { return payload("get_pattern", map[string]any{"id": "worker-pool"}) }
	needs := func() map[string]any { return payload("get_pattern", map[string]any{"id": "worker-pol"}) }
	mutations := []struct {
		name   string
		mutate func() map[string]any
	}{
		{"results instead of patterns", func() map[string]any { m := search(); rename(m, "patterns", "results"); return m }},
		{"countsByCategory", func() map[string]any {
			m := search()
			rename(obj(m, "metadata"), "categories", "countsByCategory")
			return m
		}},
		{"renderedCardIds missing", func() map[string]any { m := search(); delete(obj(m, "metadata"), "renderedCardIds"); return m }},
		{"query.format missing", func() map[string]any { m := search(); delete(obj(m, "query"), "format"); return m }},
		{"query.category null", func() map[string]any { m := search(); obj(m, "query")["category"] = nil; return m }},
		{"limit as a string", func() map[string]any { m := search(); obj(m, "query")["limit"] = "5"; return m }},
		{"examples in search patterns", func() map[string]any { m := search(); first(m, "patterns")["examples"] = []any{}; return m }},
		{"provenance.retrievedAt", func() map[string]any {
			m := search()
			rename(obj(m, "provenance"), "timestamp", "retrievedAt")
			return m
		}},
		{"timestamp without milliseconds", func() map[string]any {
			m := details()
			obj(m, "provenance")["timestamp"] = "2025-06-01T12:30:00Z"
			return m
		}},
		{"guidance instead of useGuidance", func() map[string]any { m := details(); rename(m, "useGuidance", "guidance"); return m }},
		{"useWhen as an array", func() map[string]any { m := details(); obj(m, "useGuidance")["useWhen"] = []any{"x"}; return m }},
		{"section heading", func() map[string]any { m := details(); rename(first(m, "sections"), "title", "heading"); return m }},
		{"example without description", func() map[string]any { m := details(); delete(first(m, "examples"), "description"); return m }},
		{"UseGuidance capitalised", func() map[string]any { m := details(); rename(m, "useGuidance", "UseGuidance"); return m }},
		{"fields as a string", func() map[string]any { m := needs(); obj(m, "needsInput")["fields"] = "id"; return m }},
		{"option without value", func() map[string]any { m := needs(); delete(first(m, "options"), "value"); return m }},
		{"type not elicitation", func() map[string]any { m := needs(); m["type"] = "error"; return m }},
	}
	for _, mu := range mutations {
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(mustJSON(t, mu.mutate())))
		if s.Validate(v) == nil {
			t.Errorf("%s: the contract schema accepts it", mu.name)
		}
	}
}

// TestCarefulClient reads results the way the contract tells a client to: ask
// for format json or both, take the text blocks from the last one back, keep
// the first that parses as JSON and validates against the contract's
// discriminated union (testdata/contract-v1.schema.json) — with the blocks'
// mimeType removed, as some transports do — and then decode it by the
// contract's types. The payload must also validate against the tool's
// published outputSchema and equal structuredContent.
func TestCarefulClient(t *testing.T) {
	leaktest.Check(t)
	cs := connectMemory(t, nil)
	contract := contractSchema(t)
	schemas := map[string]*jsonschema.Schema{}
	for tool, err := range cs.Tools(t.Context()) {
		if err != nil {
			t.Fatal(err)
		}
		if len(tool.OutputSchema) == 0 {
			t.Fatalf("%s publishes no outputSchema", tool.Name)
		}
		schemas[tool.Name] = compileRaw(t, tool.Name, tool.OutputSchema)
	}
	tests := []struct {
		tool     string
		args     map[string]any
		wantKind string
		check    func(t *testing.T, data []byte)
	}{
		{"search_patterns", map[string]any{"q": "context"}, present.KindSearchResults, checkContractSearch(false)},
		{"search_patterns", map[string]any{"q": "errors", "category": "errors", "difficulty": "beginner", "limit": 2}, present.KindSearchResults, checkContractSearch(false)},
		{"search_patterns", map[string]any{"q": "http", "includeProvenancePanel": true}, present.KindSearchResults, checkContractSearch(true)},
		{"search_patterns", map[string]any{"q": "zzzz-no-match"}, present.KindSearchResults, checkContractSearch(false)},
		{"search_patterns", map[string]any{"q": ""}, present.KindNeedsInput, checkContractNeedsInput([]string{"q"})},
		{"search_patterns", map[string]any{"q": "*"}, present.KindNeedsInput, checkContractNeedsInput([]string{"category", "difficulty"})},
		{"get_pattern", map[string]any{"id": "worker-pool"}, present.KindDetails, checkContractDetails},
		{"get_pattern", map[string]any{"id": "no-such-pattern-at-all-qq"}, present.KindNeedsInput, checkContractNeedsInput([]string{"id"})},
		{"get_pattern", map[string]any{"id": "worker-pol"}, present.KindNeedsInput, checkContractNeedsInput([]string{"id"})},
	}
	for _, tc := range tests {
		for _, f := range []string{"json", "both"} {
			args := withFormat(tc.args, f)
			name, _ := json.Marshal(args)
			t.Run(tc.tool+string(name), func(t *testing.T) {
				res := call(t, cs, tc.tool, args)
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						tc.MIMEType = "" // a client must not need it
					}
				}
				data := extractPayload(t, res, contract)
				if err := validateBytes(schemas[tc.tool], data); err != nil {
					t.Errorf("the payload does not match the published outputSchema of %s: %v", tc.tool, err)
				}
				if sc, _ := res.StructuredContent.(json.RawMessage); !jsonEqual(t, sc, data) {
					t.Errorf("structuredContent differs from the JSON block:\n%s\n%s", sc, data)
				}
				var head struct{ Kind string }
				json.Unmarshal(data, &head)
				if head.Kind != tc.wantKind {
					t.Fatalf("kind %q, want %q", head.Kind, tc.wantKind)
				}
				validatePayload(t, data) // the kind's own schema too
				for _, old := range retiredNames {
					if bytes.Contains(data, []byte(old)) {
						t.Errorf("payload holds %s, a name the contract does not use", old)
					}
				}
				var whole any
				json.Unmarshal(data, &whole)
				if path := findNull(whole, "$"); path != "" {
					t.Errorf("%s is null; the contract omits undefined members", path)
				}
				tc.check(t, data)
			})
		}
	}
}

func validateBytes(s *jsonschema.Schema, data []byte) error {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	return s.Validate(v)
}

// extractPayload is the contract's client-side extraction, without looking at
// mimeType: scan the text blocks from the end, parse, validate.
func extractPayload(t *testing.T, res *mcp.CallToolResult, s *jsonschema.Schema) []byte {
	t.Helper()
	var problems []string
	for i := len(res.Content) - 1; i >= 0; i-- {
		tc, ok := res.Content[i].(*mcp.TextContent)
		if !ok {
			continue
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.Text))
		if err != nil {
			problems = append(problems, fmt.Sprintf("block %d: not JSON", i))
			continue
		}
		if err := s.Validate(v); err != nil {
			problems = append(problems, fmt.Sprintf("block %d: %v", i, err))
			continue
		}
		return []byte(tc.Text)
	}
	t.Fatalf("no text block parses and validates against the contract: %v", problems)
	return nil
}

// findNull returns the path of the first null in v, or "".
func findNull(v any, path string) string {
	switch v := v.(type) {
	case nil:
		return path
	case map[string]any:
		for k, e := range v {
			if p := findNull(e, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, e := range v {
			if p := findNull(e, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

func compileRaw(t *testing.T, name string, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "mem:///published/" + name
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("outputSchema of %s: %v", name, err)
	}
	return s
}

func strictDecode[T any](t *testing.T, data []byte) *T {
	t.Helper()
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("a client typed by the contract cannot decode the payload: %v", err)
	}
	return &v
}

func checkContractSearch(wantProvenance bool) func(*testing.T, []byte) {
	return func(t *testing.T, data []byte) {
		s := strictDecode[contractSearch](t, data)
		md := s.Metadata
		if md.TotalCount == nil || md.RenderedCards == nil || md.ContractMarkers == nil || md.Categories == nil || md.Difficulties == nil || md.RenderedCardIDs == nil {
			t.Fatalf("metadata lacks contract members: %s", data)
		}
		if s.Query.Format == nil {
			t.Error("query.format is missing; the contract always echoes the resolved format")
		}
		if md.ContractMarkers.Cards != len(md.RenderedCardIDs) || md.ContractMarkers.Version != "v1" || md.ContractMarkers.Index != 1 {
			t.Errorf("contractMarkers %+v with renderedCardIds %v", md.ContractMarkers, md.RenderedCardIDs)
		}
		sum := 0
		for _, n := range md.Categories {
			sum += n
		}
		if sum != *md.TotalCount {
			t.Errorf("categories add up to %d, totalCount %d", sum, *md.TotalCount)
		}
		var ids []string
		for _, p := range s.Patterns {
			ids = append(ids, p.ID)
			if p.Description == "" || p.Title == "" || len(p.Tags) == 0 {
				t.Errorf("pattern %+v lacks card summary members", p)
			}
		}
		// patterns holds every match, not only the cards; a limit given caps it.
		if want := *md.TotalCount; s.Query.Limit != nil && *s.Query.Limit < want {
			if len(ids) != *s.Query.Limit {
				t.Errorf("%d patterns for limit %d and %d matches", len(ids), *s.Query.Limit, want)
			}
		} else if len(ids) != want {
			t.Errorf("%d patterns, totalCount %d: patterns must hold every match", len(ids), want)
		}
		if *md.RenderedCards > len(ids) || !slices.Equal(ids[:*md.RenderedCards], md.RenderedCardIDs) {
			t.Errorf("renderedCardIds %v are not patterns[:%d] of %v", md.RenderedCardIDs, *md.RenderedCards, ids)
		}
		for _, forbidden := range []string{`"examples"`, `"useCases"`, `"relatedPatterns"`} {
			if bytes.Contains(mustField(t, data, "patterns"), []byte(forbidden)) {
				t.Errorf("search patterns carry %s", forbidden)
			}
		}
		if (s.Provenance != nil) != wantProvenance {
			t.Fatalf("provenance %+v, want present=%v", s.Provenance, wantProvenance)
		}
		if s.Provenance != nil {
			checkContractProvenance(t, s.Provenance)
		}
	}
}

func checkContractProvenance(t *testing.T, p *contractProvenance) {
	t.Helper()
	if p.Source == "" || p.Version == "" || p.Marker != "v1" {
		t.Errorf("provenance %+v", p)
	}
	if want := fixedNow.UTC().Format("2006-01-02T15:04:05.000Z"); p.Timestamp != want {
		t.Errorf("provenance.timestamp %q, want ISO 8601 %q", p.Timestamp, want)
	}
	for _, v := range []string{p.Source, p.Version} {
		if strings.Contains(v, "/") && strings.HasPrefix(v, "/") {
			t.Errorf("provenance holds an absolute path: %q", v)
		}
	}
}

func checkContractDetails(t *testing.T, data []byte) {
	d := strictDecode[contractDetails](t, data)
	if d.ID != "worker-pool" || d.Summary == "" || d.Description == "" || len([]rune(d.Summary)) > 200 {
		t.Errorf("details %s / summary %q", d.ID, d.Summary)
	}
	if d.UseGuidance == nil || d.UseGuidance.UseWhen == "" || d.UseGuidance.AvoidWhen == "" {
		t.Errorf("useGuidance %+v", d.UseGuidance)
	}
	types := map[string]bool{}
	for _, s := range d.Sections {
		if s.Title == "" || s.Content == "" || s.Type == "" {
			t.Errorf("section %+v lacks title, content or type", s)
		}
		types[s.Type] = true
	}
	if !types["description"] || !types["example"] {
		t.Errorf("section types %v lack description or example", types)
	}
	if len(d.Examples) == 0 {
		t.Fatal("no examples")
	}
	for _, ex := range d.Examples {
		if ex.Code == "" || ex.Language != "go" || ex.Description == "" {
			t.Errorf("example lacks code, language or description: %q %q", ex.Language, ex.Description)
		}
	}
	if d.Provenance == nil {
		t.Fatal("details without provenance")
	}
	checkContractProvenance(t, d.Provenance)
}

func checkContractNeedsInput(fields []string) func(*testing.T, []byte) {
	return func(t *testing.T, data []byte) {
		n := strictDecode[contractNeedsInput](t, data)
		if n.Type != "elicitation" || n.Message == "" || n.NeedsInput == nil {
			t.Fatalf("needsInput %s", data)
		}
		if !slices.Equal(n.NeedsInput.Fields, fields) || n.NeedsInput.Reason == "" {
			t.Errorf("fields %v reason %q, want fields %v", n.NeedsInput.Fields, n.NeedsInput.Reason, fields)
		}
		for k := range n.NeedsInput.Suggestions {
			if !slices.Contains(fields, k) {
				t.Errorf("suggestions keyed by %q, not one of the fields %v", k, fields)
			}
		}
		if n.Options != nil && len(n.Options) == 0 {
			t.Error("options present but empty; the server omits them when there are none")
		}
		for _, o := range n.Options {
			if o.Label == "" || o.Value == "" || o.Field == nil || !slices.Contains(fields, *o.Field) {
				t.Errorf("option %+v", o)
			}
		}
		// The raw form: "options" is absent exactly when there are no options.
		var raw map[string]json.RawMessage
		json.Unmarshal(data, &raw)
		if _, ok := raw["options"]; ok != (len(n.Options) > 0) {
			t.Errorf("options member present=%v with %d options", ok, len(n.Options))
		}
	}
}
