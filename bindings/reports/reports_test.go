package reports

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const validJSON = `{
  "id": "nightly-ci",
  "title": "Nightly CI",
  "category": "ci",
  "status": "failing",
  "summary": "2 of 410 tests failed.",
  "updatedAt": "2025-06-01T10:00:00Z",
  "source": "github-actions",
  "tags": ["main", "nightly"],
  "sections": [
    {"type": "markdown", "content": "Built from **main**."},
    {"type": "metrics", "title": "Tests", "items": [
      {"label": "Passed", "value": 408, "previousValue": 410, "status": "passing"},
      {"label": "Coverage", "value": 81.5, "unit": "%"},
      {"label": "Go", "value": "1.25.1", "previousValue": "1.25.0"}
    ]},
    {"type": "table", "title": "Failures", "columns": ["Test", "Elapsed", "Note"], "rows": [
      ["TestA", 0.2, null],
      ["TestB", 1, "flaky"]
    ]}
  ]
}`

func sampleReport(t *testing.T) *Report {
	t.Helper()
	r, err := Parse([]byte(validJSON))
	if err != nil {
		t.Fatalf("Parse(valid): %v", err)
	}
	return r
}

func TestParseValid(t *testing.T) {
	r := sampleReport(t)
	if r.ID != "nightly-ci" || r.Status != StatusFailing || !r.UpdatedAt.Equal(time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)) {
		t.Fatalf("summary fields wrong: %+v", r.ReportSummary)
	}
	if got := len(r.Sections); got != 3 {
		t.Fatalf("sections = %d, want 3", got)
	}
	m := r.Sections[1].Items
	if v, ok := m[0].Value.Number(); !ok || v != 408 {
		t.Errorf("metric value = %v, want number 408", m[0].Value)
	}
	if s, ok := m[2].PreviousValue.Text(); !ok || s != "1.25.0" {
		t.Errorf("previousValue = %v, want string 1.25.0", m[2].PreviousValue)
	}
	if !m[1].PreviousValue.IsZero() {
		t.Errorf("absent previousValue should be zero, got %v", m[1].PreviousValue)
	}
	if !r.Sections[2].Rows[0][2].IsZero() {
		t.Errorf("null cell should be zero Value")
	}

	// Round trip: encoding and parsing again gives the same report and still validates.
	data, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Parse(data)
	if err != nil {
		t.Fatalf("Parse(Encode(r)): %v\n%s", err, data)
	}
	if diff := cmp.Diff(r, r2, cmp.Comparer(func(a, b Value) bool { return a == b })); diff != "" {
		t.Errorf("round trip changed the report (-want +got):\n%s", diff)
	}
	// The encoding keeps only each section kind's members and omits null previousValue.
	if strings.Contains(string(data), `"content": ""`) || strings.Contains(string(data), `"previousValue": null`) {
		t.Errorf("encoding has members of other kinds or null previousValue:\n%s", data)
	}
}

func mutate(t *testing.T, f func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(validJSON), &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func section(m map[string]any, i int) map[string]any {
	return m["sections"].([]any)[i].(map[string]any)
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		name string
		data func(t *testing.T) []byte
		want string // substring of the error
	}{
		{"missing title", func(t *testing.T) []byte { return mutate(t, func(m map[string]any) { delete(m, "title") }) }, "title"},
		{"bad status", func(t *testing.T) []byte { return mutate(t, func(m map[string]any) { m["status"] = "green" }) }, "/status"},
		{"path id", func(t *testing.T) []byte { return mutate(t, func(m map[string]any) { m["id"] = "../../etc/passwd" }) }, "/id"},
		{"hidden id", func(t *testing.T) []byte { return mutate(t, func(m map[string]any) { m["id"] = ".x" }) }, "/id"},
		{"bad date", func(t *testing.T) []byte { return mutate(t, func(m map[string]any) { m["updatedAt"] = "yesterday" }) }, "/updatedAt"},
		{"boolean metric value", func(t *testing.T) []byte {
			return mutate(t, func(m map[string]any) {
				section(m, 1)["items"].([]any)[0].(map[string]any)["value"] = true
			})
		}, "/sections/1/items/0/value"},
		{"null metric value", func(t *testing.T) []byte {
			return mutate(t, func(m map[string]any) {
				section(m, 1)["items"].([]any)[0].(map[string]any)["value"] = nil
			})
		}, "/sections/1/items/0/value"},
		{"markdown without content", func(t *testing.T) []byte {
			return mutate(t, func(m map[string]any) { delete(section(m, 0), "content") })
		}, "/sections/0"},
		{"unknown section type", func(t *testing.T) []byte {
			return mutate(t, func(m map[string]any) { section(m, 0)["type"] = "chart" })
		}, "/sections/0/type"},
		{"object cell", func(t *testing.T) []byte {
			return mutate(t, func(m map[string]any) { section(m, 2)["rows"].([]any)[0].([]any)[0] = map[string]any{} })
		}, "/sections/2/rows/0/0"},
		{"short row", func(t *testing.T) []byte {
			return mutate(t, func(m map[string]any) { section(m, 2)["rows"].([]any)[1] = []any{"TestB"} })
		}, "/sections/2/rows/1: row has 1 cells, want 3"},
		{"misspelt member", func(t *testing.T) []byte { return mutate(t, func(m map[string]any) { m["updated_at"] = "x" }) }, "updated_at"},
		{"wrong case member", func(t *testing.T) []byte {
			return mutate(t, func(m map[string]any) { m["Title"] = m["title"]; delete(m, "title") })
		}, "Title"},
		{"duplicate member", func(t *testing.T) []byte {
			return []byte(strings.Replace(validJSON, `"status": "failing",`, `"status": "failing", "status": "passing",`, 1))
		}, `duplicate member "status"`},
		{"not json", func(t *testing.T) []byte { return []byte(`{"id": `) }, "not valid JSON"},
		{"array", func(t *testing.T) []byte { return []byte(`[]`) }, "at /"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.data(t))
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error %T is not *ValidationError: %v", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
		})
	}
}

func TestParseDropsLifecycle(t *testing.T) {
	data := mutate(t, func(m map[string]any) { m["lifecycleStatus"] = "dismissed" })
	r, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if r.LifecycleStatus != "" {
		t.Errorf("lifecycleStatus from a file = %q, want it dropped", r.LifecycleStatus)
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"nightly-ci": true, "a": true, "A.b_c-9": true, strings.Repeat("x", 128): true,
		"": false, ".": false, "..": false, "../x": false, "a/b": false, `a\b`: false,
		".hidden": false, "-x": false, "a b": false, "é": false, strings.Repeat("x", 129): false,
		"a\x00": false,
	} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
		if _, err := FileName(id); (err == nil) != want || (err != nil && !errors.Is(err, ErrInvalidID)) {
			t.Errorf("FileName(%q) error = %v", id, err)
		}
	}
}

func TestValueJSON(t *testing.T) {
	tests := []struct {
		in   string
		want Value
	}{
		{`3`, Num(3)}, {`-0.25`, Num(-0.25)}, {`"3"`, Str("3")}, {`null`, Value{}}, {`""`, Str("")},
	}
	for _, tt := range tests {
		var v Value
		if err := json.Unmarshal([]byte(tt.in), &v); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if v != tt.want {
			t.Errorf("%s decoded to %#v, want %#v", tt.in, v, tt.want)
		}
		out, err := json.Marshal(v)
		if err != nil || string(out) != tt.in {
			t.Errorf("%s re-encoded to %s (%v)", tt.in, out, err)
		}
	}
	var v Value
	if err := json.Unmarshal([]byte(`true`), &v); err == nil {
		t.Error("decoding true into Value succeeded")
	}
}

func summaries() []ReportSummary {
	t0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	return []ReportSummary{
		{ID: "b", Category: "ci", Status: StatusPassing, UpdatedAt: t0, Source: "gha", Tags: []string{"main"}},
		{ID: "a", Category: "ci", Status: StatusFailing, UpdatedAt: t0, LifecycleStatus: LifecycleRead},
		{ID: "c", Category: "security", Status: StatusWarning, UpdatedAt: t0.Add(time.Hour), Tags: []string{"main", "deps"}, LifecycleStatus: LifecycleDismissed},
		{ID: "d", Category: "performance", Status: StatusInfo, UpdatedAt: t0.Add(-time.Hour), Source: "gha"},
	}
}

func ids(s []ReportSummary) []string {
	out := []string{}
	for _, r := range s {
		out = append(out, r.ID)
	}
	return out
}

func TestFilterAndOrder(t *testing.T) {
	tests := []struct {
		name string
		in   ListInput
		want []string
	}{
		{"all, newest first, ties by id", ListInput{}, []string{"c", "a", "b", "d"}},
		{"category", ListInput{Category: "ci"}, []string{"a", "b"}},
		{"status", ListInput{Status: StatusFailing}, []string{"a"}},
		{"category and status", ListInput{Category: "ci", Status: StatusWarning}, []string{}},
		{"source", ListInput{Source: "gha"}, []string{"b", "d"}},
		{"tag", ListInput{Tag: "main"}, []string{"c", "b"}},
		{"unread includes unset", ListInput{LifecycleStatus: LifecycleUnread}, []string{"b", "d"}},
		{"dismissed", ListInput{LifecycleStatus: LifecycleDismissed}, []string{"c"}},
		{"category is exact", ListInput{Category: "CI"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := summaries()
			// Reverse the input so the order cannot come from the input order.
			for i, j := 0, len(in)-1; i < j; i, j = i+1, j-1 {
				in[i], in[j] = in[j], in[i]
			}
			if diff := cmp.Diff(tt.want, ids(Filter(in, tt.in))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestSchemasAcceptOwnOutput(t *testing.T) {
	r := sampleReport(t)
	r.LifecycleStatus = LifecycleRead
	out, _ := json.Marshal(ListOutput{Reports: []ReportSummary{r.ReportSummary}})
	if err := ValidateJSON(SchemaListOutput, out); err != nil {
		t.Errorf("list output: %v", err)
	}
	empty, _ := json.Marshal(ListOutput{})
	if string(empty) != `{"reports":[]}` {
		t.Errorf("empty list output = %s", empty)
	}
	full, _ := json.Marshal(r)
	if err := ValidateJSON(SchemaReport, full); err != nil {
		t.Errorf("report: %v", err)
	}
	if err := ValidateJSON(SchemaGetOutput, full); err != nil {
		t.Errorf("get output: %v", err)
	}
	// Another server's report may use any id and extra members; a file may not.
	other := []byte(strings.Replace(string(full), `"id":"nightly-ci"`, `"id":"ci/nightly:42","x-extra":true`, 1))
	if err := ValidateJSON(SchemaGetOutput, other); err != nil {
		t.Errorf("get output with a free-form id: %v", err)
	}
	if err := ValidateJSON(SchemaReport, other); err == nil {
		t.Error("the file schema accepted a path-like id and an unknown member")
	}
	bad := []byte(strings.Replace(string(full), `"status":"failing"`, `"status":"red"`, 1))
	if err := ValidateJSON(SchemaGetOutput, bad); err == nil {
		t.Error("get output schema accepted status red")
	}
	upd, _ := json.Marshal(UpdateStatusOutput{Success: true})
	if err := ValidateJSON(SchemaUpdateStatusOutput, upd); err != nil {
		t.Errorf("update output: %v", err)
	}
	for _, bad := range []struct{ schema, doc string }{
		{SchemaListInput, `{"status":"red"}`},
		{SchemaListInput, `{"category":3}`},
		{SchemaGetInput, `{}`},
		{SchemaUpdateStatusInput, `{"reportId":"x","lifecycleStatus":"archived"}`},
		{SchemaUpdateStatusInput, `{"reportId":"x"}`},
	} {
		if err := ValidateJSON(bad.schema, []byte(bad.doc)); err == nil {
			t.Errorf("%s accepted %s", bad.schema, bad.doc)
		}
	}
	for _, good := range []struct{ schema, doc string }{
		{SchemaListInput, `{}`},
		{SchemaListInput, `{"category":"ci","status":"failing","tag":"x","source":"y","lifecycleStatus":"read"}`},
		{SchemaGetInput, `{"id":"anything at all"}`},
		{SchemaUpdateStatusInput, `{"reportId":"x","lifecycleStatus":"dismissed"}`},
	} {
		if err := ValidateJSON(good.schema, []byte(good.doc)); err != nil {
			t.Errorf("%s rejected %s: %v", good.schema, good.doc, err)
		}
	}
	for name, raw := range map[string]json.RawMessage{"list in": ListInputSchema, "list out": ListOutputSchema, "get in": GetInputSchema,
		"get out": GetOutputSchema, "update in": UpdateStatusInputSchema, "update out": UpdateStatusOutputSchema} {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil || m["type"] != "object" {
			t.Errorf("%s schema must be a JSON object schema of type object (MCP requires it): %v", name, err)
		}
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func withID(t *testing.T, id string) string {
	return string(mutate(t, func(m map[string]any) { m["id"] = id }))
}

func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "nightly-ci.json", validJSON)
	writeFile(t, dir, "other.json", withID(t, "other"))
	writeFile(t, dir, "aaa-copy.json", validJSON) // same id as nightly-ci.json, loses
	writeFile(t, dir, "broken.json", `{"id":"broken"`)
	writeFile(t, dir, ".nightly-ci.json.tmp-123", `garbage`)
	writeFile(t, dir, "notes.txt", `garbage`)
	if err := os.Mkdir(filepath.Join(dir, "sub.json"), 0o755); err != nil {
		t.Fatal(err)
	}

	loaded, diags, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range loaded {
		got = append(got, filepath.Base(l.File)+"="+l.Report.ID)
	}
	if diff := cmp.Diff([]string{"nightly-ci.json=nightly-ci", "other.json=other"}, got); diff != "" {
		t.Errorf("loaded (-want +got):\n%s", diff)
	}
	var dfiles []string
	for _, d := range diags {
		dfiles = append(dfiles, filepath.Base(d.File))
	}
	if diff := cmp.Diff([]string{"broken.json", "aaa-copy.json"}, dfiles); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, diags)
	}
	if !strings.Contains(diags[1].Message, "duplicate id") {
		t.Errorf("duplicate diagnostic = %q", diags[1].Message)
	}

	if _, _, err := LoadDir(filepath.Join(dir, "missing")); err == nil {
		t.Error("LoadDir of a missing dir succeeded")
	}

	r, err := FindReport(dir, "other")
	if err != nil || r == nil || r.ID != "other" {
		t.Errorf("FindReport(other) = %v, %v", r, err)
	}
	if r, err := FindReport(dir, "nope"); err != nil || r != nil {
		t.Errorf("FindReport(nope) = %v, %v; want nil, nil", r, err)
	}
	if _, err := FindReport(dir, "../x"); !errors.Is(err, ErrInvalidID) {
		t.Errorf("FindReport(../x) error = %v, want ErrInvalidID", err)
	}
}

func TestWriteReportAtomic(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	r := sampleReport(t)
	p, err := WriteReport(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(dir, "nightly-ci.json") {
		t.Errorf("path = %s", p)
	}
	r.Summary = "changed"
	if _, err := WriteReport(dir, r); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("dir has %d entries, want 1 (no temp files left): %v", len(entries), entries)
	}
	got, err := LoadFile(p)
	if err != nil || got.Summary != "changed" {
		t.Errorf("reloaded = %v, %v", got, err)
	}

	bad := r.Clone()
	bad.ID = "../escape"
	if _, err := WriteReport(dir, bad); !errors.Is(err, ErrInvalidID) {
		t.Errorf("WriteReport(../escape) error = %v", err)
	}
	bad = r.Clone()
	bad.Status = "green"
	if _, err := WriteReport(dir, bad); err == nil {
		t.Error("WriteReport of an invalid report succeeded")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.json")); !os.IsNotExist(err) {
		t.Error("a file was written outside the directory")
	}
}

func TestPublish(t *testing.T) {
	src := t.TempDir()
	dst := filepath.Join(t.TempDir(), "reports")
	good1 := writeFile(t, src, "one.json", withID(t, "one"))
	good2 := writeFile(t, src, "two-any-name.json", withID(t, "two"))
	bad := writeFile(t, src, "bad.json", `{"id":"bad"}`)

	if _, err := Publish(dst, good1, bad, good2); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Fatalf("Publish with an invalid file: err = %v", err)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Fatal("Publish wrote something although a file was invalid")
	}
	dup := writeFile(t, src, "dup.json", withID(t, "one"))
	if _, err := Publish(dst, good1, dup); err == nil || !strings.Contains(err.Error(), `id "one"`) {
		t.Fatalf("Publish with duplicate ids: err = %v", err)
	}
	paths, err := Publish(dst, good1, good2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{filepath.Join(dst, "one.json"), filepath.Join(dst, "two.json")}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	loaded, diags, err := LoadDir(dst)
	if err != nil || len(loaded) != 2 || len(diags) != 0 {
		t.Errorf("LoadDir after publish: %d loaded, %v, %v", len(loaded), diags, err)
	}
	if _, err := Publish(dst); err == nil {
		t.Error("Publish without files succeeded")
	}
}

func TestContentHash(t *testing.T) {
	r := sampleReport(t)
	h := ContentHash(r)
	c := r.Clone()
	c.LifecycleStatus = LifecycleDismissed
	c.UpdatedAt = c.UpdatedAt.In(time.FixedZone("x", 3600))
	if ContentHash(c) != h {
		t.Error("hash changed with lifecycle status or time zone")
	}
	c.Sections[1].Items[0].Value = Num(407)
	if ContentHash(c) == h {
		t.Error("hash did not change with a metric value")
	}
	if ContentHash(r) != h {
		t.Error("Clone shares section items with the original")
	}
}
