package present

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wiremcp/wiremcp/examples/patterns-server/catalog"
)

var fixedNow = time.Date(2025, 3, 14, 15, 9, 26, 0, time.FixedZone("X", 3600))

func newTestEngine(t *testing.T) *Engine {
	t.Helper()
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return NewEngine(cat, &Options{Now: func() time.Time { return fixedNow }})
}

var (
	schemaMu    sync.Mutex
	schemaCache = map[string]*jsonschema.Schema{}
)

// compileSchema compiles a schema document with format assertions on.
func compileSchema(t *testing.T, name string, raw []byte) *jsonschema.Schema {
	t.Helper()
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if s, ok := schemaCache[name]; ok {
		return s
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	url := "mem:///" + name
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("schema %s: %v", name, err)
	}
	schemaCache[name] = s
	return s
}

// validateKind checks that payload JSON has the given kind and matches its schema.
func validateKind(t *testing.T, kind string, data []byte) {
	t.Helper()
	var head struct{ Kind string }
	if err := json.Unmarshal(data, &head); err != nil {
		t.Fatalf("payload is not JSON: %v", err)
	}
	if head.Kind != kind {
		t.Fatalf("kind = %q, want %q", head.Kind, kind)
	}
	raw, ok := Schema(kind)
	if !ok {
		t.Fatalf("no schema for %s", kind)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := compileSchema(t, kind, raw).Validate(v); err != nil {
		t.Fatalf("%s payload does not match its schema: %v\n%s", kind, err, data)
	}
}

func replyJSON(t *testing.T, r *Reply) []byte {
	t.Helper()
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func search(t *testing.T, e *Engine, a SearchArgs) (*Reply, *SearchResults) {
	t.Helper()
	r := e.Search(a)
	if r.Kind != KindSearchResults {
		t.Fatalf("Search(%s) kind = %s: %s", describe(a), r.Kind, replyJSON(t, r))
	}
	validateKind(t, KindSearchResults, replyJSON(t, r))
	return r, r.Payload.(*SearchResults)
}

func describe(a SearchArgs) string {
	b, _ := json.Marshal(a)
	return string(b)
}

// manyMatchQuery returns a query with more than ManyMatches matches: the
// browse-everything query, checked against the catalog rather than assumed.
func manyMatchQuery(t *testing.T, e *Engine) (string, []catalog.Match) {
	t.Helper()
	ms := e.cat.Search(catalog.Query{Text: catalog.MatchAll})
	if len(ms) <= ManyMatches {
		t.Fatalf("browsing matches only %d patterns", len(ms))
	}
	return catalog.MatchAll, ms
}

func countMarker(blocks []string, marker string) int {
	n := 0
	for _, b := range blocks {
		n += strings.Count(b, marker)
	}
	return n
}

func ptrs(s string) *string { return &s }
func ptri(i int) *int       { return &i }
