package present

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestRequestedSchemaSubset checks every Ask the engine produces against the
// restricted form-mode schema subset: a flat object of primitive properties
// using only the keywords the specification allows.
func TestRequestedSchemaSubset(t *testing.T) {
	e := newTestEngine(t)
	q, _ := manyMatchQuery(t, e)
	replies := map[string]*Reply{
		"q":      e.Search(SearchArgs{}),
		"narrow": e.Search(SearchArgs{Q: ptrs(q)}),
		"id":     e.Get(GetArgs{ID: ptrs("worker-pol")}),
		"no-id":  e.Get(GetArgs{ID: ptrs("zzzzzzzzzzzzzzzz")}),
	}
	allowed := map[string]bool{"type": true, "title": true, "description": true, "enum": true,
		"minLength": true, "maxLength": true, "format": true, "default": true}
	for name, r := range replies {
		if r.Ask == nil {
			t.Fatalf("%s: no Ask", name)
		}
		var s struct {
			Type       string                                `json:"type"`
			Properties map[string]map[string]json.RawMessage `json:"properties"`
			Required   []string                              `json:"required"`
		}
		if err := json.Unmarshal(r.Ask.RequestedSchema(), &s); err != nil || s.Type != "object" {
			t.Fatalf("%s: %v %q", name, err, s.Type)
		}
		var fields []string
		for _, f := range r.Ask.Fields {
			fields = append(fields, f.Name)
		}
		if got := slices.Sorted(maps.Keys(s.Properties)); !slices.Equal(got, slices.Sorted(slices.Values(fields))) {
			t.Errorf("%s: properties %v, fields %v", name, got, fields)
		}
		for pname, p := range s.Properties {
			if string(p["type"]) != `"string"` {
				t.Errorf("%s.%s: type %s", name, pname, p["type"])
			}
			for k := range p {
				if !allowed[k] {
					t.Errorf("%s.%s: keyword %q is outside the elicitation subset", name, pname, k)
				}
			}
		}
		for _, req := range s.Required {
			if _, ok := s.Properties[req]; !ok {
				t.Errorf("%s: required %q is not a property", name, req)
			}
		}
	}
}

func TestAskAccept(t *testing.T) {
	ask := &Ask{Fields: []AskField{
		{Name: "id", Required: true, Enum: []string{"a", "b"}},
		{Name: "note", MaxLength: 3},
	}}
	tests := []struct {
		name    string
		content map[string]any
		want    map[string]string
		errSub  string
	}{
		{"ok", map[string]any{"id": "a", "note": "hi", "extra": 1.0}, map[string]string{"id": "a", "note": "hi"}, ""},
		{"trimmed", map[string]any{"id": " b "}, map[string]string{"id": "b"}, ""},
		{"blank optional dropped", map[string]any{"id": "a", "note": "  "}, map[string]string{"id": "a"}, ""},
		{"missing required", map[string]any{"note": "x"}, nil, "id is required"},
		{"null required", map[string]any{"id": nil}, nil, "id is required"},
		{"blank required", map[string]any{"id": " "}, nil, "id is required"},
		{"not a string", map[string]any{"id": 3.0}, nil, "must be a string"},
		{"not in enum", map[string]any{"id": "c"}, nil, "not one of a, b"},
		{"too long", map[string]any{"id": "a", "note": "long"}, nil, "longer than 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, te := ask.Accept(tc.content)
			if tc.errSub != "" {
				if te == nil || te.Code != CodeClient || !strings.Contains(te.Message, tc.errSub) {
					t.Fatalf("error %v, want CLIENT_ERROR with %q", te, tc.errSub)
				}
				return
			}
			if te != nil || !maps.Equal(got, tc.want) {
				t.Fatalf("Accept = %v, %v; want %v", got, te, tc.want)
			}
		})
	}
	optional := &Ask{AtLeastOne: true, Fields: []AskField{{Name: "category", Enum: []string{"io"}}}}
	if got, te := optional.Accept(map[string]any{}); te != nil || len(got) != 0 {
		t.Errorf("empty answer: %v %v", got, te)
	}
}

func TestWithAnswers(t *testing.T) {
	a := SearchArgs{Q: ptrs("old"), Limit: ptri(3)}
	b := a.WithAnswers(map[string]string{"q": "new", "category": "io", "difficulty": " ", "other": "x"})
	if *b.Q != "new" || *b.Category != "io" || b.Difficulty != nil || *b.Limit != 3 {
		t.Errorf("WithAnswers = %s", describe(b))
	}
	if *a.Q != "old" || a.Category != nil {
		t.Error("WithAnswers changed its receiver")
	}
	g := GetArgs{Format: ptrs("json")}.WithAnswers(map[string]string{"id": "pipeline"})
	if *g.ID != "pipeline" || *g.Format != "json" {
		t.Errorf("GetArgs.WithAnswers = %+v", g)
	}
}

func TestSchemasCompile(t *testing.T) {
	for _, k := range Kinds() {
		raw, ok := Schema(k)
		if !ok {
			t.Fatalf("no schema for %s", k)
		}
		compileSchema(t, k, raw)
	}
	if _, ok := Schema("nope:v1"); ok {
		t.Error("unknown kind has a schema")
	}
	compileSchema(t, "search-input", SearchInputSchema())
	compileSchema(t, "get-input", GetInputSchema())
	// The combined output schema accepts each listed kind and rejects the others.
	e := newTestEngine(t)
	out := compileSchema(t, "out-search", OutputSchema(KindSearchResults, KindNeedsInput, KindToolError))
	for _, c := range []struct {
		r    *Reply
		want bool
	}{
		{e.Search(SearchArgs{Q: ptrs("pipeline")}), true},
		{e.Search(SearchArgs{}), true},
		{e.Search(SearchArgs{Limit: ptri(0)}), true},
		{e.Get(GetArgs{ID: ptrs("pipeline")}), false},
	} {
		var v any
		json.Unmarshal(replyJSON(t, c.r), &v)
		if err := out.Validate(v); (err == nil) != c.want {
			t.Errorf("%s: valid=%v, want %v (%v)", c.r.Kind, err == nil, c.want, err)
		}
	}
}
