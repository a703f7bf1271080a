package present

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/wiremcp/wiremcp/examples/patterns-server/catalog"
)

func TestFormatGating(t *testing.T) {
	e := newTestEngine(t)
	for _, f := range []string{"", "markdown", "json", "both"} {
		t.Run("format="+f, func(t *testing.T) {
			a := SearchArgs{Q: ptrs("worker pool")}
			if f != "" {
				a.Format = ptrs(f)
			}
			r, res := search(t, e, a)
			blocks, err := r.Blocks()
			if err != nil {
				t.Fatal(err)
			}
			var md, js []Block
			for i, b := range blocks {
				switch b.MIMEType {
				case MIMEMarkdown:
					md = append(md, b)
					if !slices.Equal(b.Audience, []string{"user", "assistant"}) {
						t.Errorf("markdown audience %v", b.Audience)
					}
				case MIMEJSON:
					js = append(js, b)
					if i != len(blocks)-1 {
						t.Errorf("JSON block at %d of %d, want last", i, len(blocks))
					}
					if !slices.Equal(b.Audience, []string{"assistant"}) {
						t.Errorf("json audience %v", b.Audience)
					}
				default:
					t.Errorf("block %d has MIME type %q", i, b.MIMEType)
				}
			}
			wantMD, wantJS := 1+res.Metadata.RenderedCards, 1
			switch f {
			case "", "markdown":
				wantJS = 0
			case "json":
				wantMD = 0
			}
			if len(md) != wantMD || len(js) != wantJS {
				t.Fatalf("%d markdown and %d json blocks, want %d and %d", len(md), len(js), wantMD, wantJS)
			}
			if len(js) == 1 {
				validateKind(t, KindSearchResults, []byte(js[0].Text))
				if js[0].Text != string(replyJSON(t, r)) {
					t.Error("JSON block differs from the payload")
				}
			}
			var mdText []string
			for _, b := range md {
				mdText = append(mdText, b.Text)
			}
			if len(md) > 0 {
				checkMarkers(t, mdText, res)
			}
		})
	}
}

// checkMarkers asserts the marker counts of a search rendering equal its JSON.
func checkMarkers(t *testing.T, md []string, res *SearchResults) {
	t.Helper()
	if n := countMarker(md, IndexMarker); n != res.Metadata.ContractMarkers.Index || n != 1 {
		t.Errorf("index markers %d, contract says %d", n, res.Metadata.ContractMarkers.Index)
	}
	cards := countMarker(md, CardMarker)
	if cards != res.Metadata.ContractMarkers.Cards || cards != res.Metadata.RenderedCards || cards != len(res.Metadata.RenderedCardIDs) {
		t.Errorf("card markers %d, contract %d, renderedCards %d, ids %d", cards,
			res.Metadata.ContractMarkers.Cards, res.Metadata.RenderedCards, len(res.Metadata.RenderedCardIDs))
	}
	// The index marker precedes the table header.
	if i := strings.Index(md[0], IndexMarker); i < 0 || !strings.HasPrefix(md[0][i+len(IndexMarker):], "\n| # |") {
		t.Errorf("index marker is not right before the table:\n%s", md[0])
	}
	// Each card block starts with the marker and names the id in order.
	for i, id := range res.Metadata.RenderedCardIDs {
		b := md[1+i]
		if !strings.HasPrefix(b, CardMarker) || !strings.Contains(b, "`"+id+"`") {
			t.Errorf("card %d does not start with the marker or lacks id %s:\n%s", i, id, b)
		}
	}
}

func TestSearchResultsContract(t *testing.T) {
	e := newTestEngine(t)
	tests := []struct {
		name string
		args SearchArgs
	}{
		{"defaults", SearchArgs{Q: ptrs("errors")}},
		{"limit below total", SearchArgs{Q: ptrs("http"), Limit: ptri(2)}},
		{"no cards", SearchArgs{Q: ptrs("http"), LimitCards: ptri(0)}},
		{"more cards than results", SearchArgs{Q: ptrs("worker pool"), LimitCards: ptri(20)}},
		{"filters", SearchArgs{Q: ptrs("context"), Category: ptrs("concurrency"), Difficulty: ptrs("beginner")}},
		{"no match", SearchArgs{Q: ptrs("qwertyuiop")}},
		{"every field", SearchArgs{Q: ptrs("io"), Category: ptrs("io"), Difficulty: ptrs("advanced"), Limit: ptri(1), Format: ptrs("both"), LimitCards: ptri(1), IncludeProvenancePanel: Ptr(true)}},
		{"provenance off", SearchArgs{Q: ptrs("retry"), IncludeProvenancePanel: Ptr(false)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, res := search(t, e, tc.args)
			plan, _ := tc.args.validate()
			want := e.cat.Search(catalog.Query{Text: plan.q, Category: plan.category, Difficulty: plan.difficulty})
			md := res.Metadata
			if md.TotalCount != len(want) {
				t.Errorf("totalCount %d, want %d", md.TotalCount, len(want))
			}
			if md.ReturnedCount != min(plan.limit, len(want)) || len(res.Patterns) != md.ReturnedCount || md.EffectiveLimit != plan.limit {
				t.Errorf("returned %d/%d with limit %d of %d", md.ReturnedCount, len(res.Patterns), md.EffectiveLimit, len(want))
			}
			for i, s := range res.Patterns {
				if s.ID != want[i].Pattern.ID || s.Score != want[i].Score {
					t.Errorf("result %d = %s/%d, want %s/%d", i, s.ID, s.Score, want[i].Pattern.ID, want[i].Score)
				}
			}
			k := min(plan.limitCards, len(res.Patterns))
			var firstK []string
			for _, s := range res.Patterns[:k] {
				firstK = append(firstK, s.ID)
			}
			if diff := cmp.Diff(append([]string{}, firstK...), md.RenderedCardIDs); diff != "" || md.RenderedCards != k {
				t.Errorf("renderedCardIds (-want +got):\n%s renderedCards %d want %d", diff, md.RenderedCards, k)
			}
			byCat, byDiff := map[string]int{}, map[string]int{}
			for _, m := range want {
				byCat[string(m.Pattern.Category)]++
				byDiff[string(m.Pattern.Difficulty)]++
			}
			if diff := cmp.Diff(byCat, md.Categories); diff != "" {
				t.Errorf("countsByCategory (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(byDiff, md.Difficulties); diff != "" {
				t.Errorf("countsByDifficulty (-want +got):\n%s", diff)
			}
			checkMarkers(t, r.Markdown, res)
			// Provenance only when the panel was asked for, then in the Markdown too.
			wantProv := tc.args.IncludeProvenancePanel != nil && *tc.args.IncludeProvenancePanel
			if (res.Provenance != nil) != wantProv || strings.Contains(r.Markdown[0], "_Source: ") != wantProv {
				t.Errorf("provenance %+v with includeProvenancePanel %v", res.Provenance, tc.args.IncludeProvenancePanel)
			}
			if wantProv && (res.Provenance.Timestamp != fixedNow.UTC().Format(TimestampLayout) || res.Provenance.Version != e.cat.Version()) {
				t.Errorf("provenance %+v", res.Provenance)
			}
			for i, s := range res.Patterns {
				if s.Description != want[i].Pattern.Description {
					t.Errorf("pattern %s: description is not the full description", s.ID)
				}
			}
			// Absent arguments are omitted from the echo; given ones repeat
			// exactly; format is always there, resolved.
			var echo map[string]any
			var whole map[string]json.RawMessage
			json.Unmarshal(replyJSON(t, r), &whole)
			json.Unmarshal(whole["query"], &echo)
			var args map[string]any
			b, _ := json.Marshal(tc.args)
			json.Unmarshal(b, &args)
			args["format"] = string(plan.format)
			if diff := cmp.Diff(args, echo); diff != "" {
				t.Errorf("query echo (-args +echo):\n%s", diff)
			}
		})
	}
}

func TestNeedsQuery(t *testing.T) {
	e := newTestEngine(t)
	for name, q := range map[string]*string{"absent": nil, "empty": ptrs(""), "blank": ptrs(" \t\n"), "common words only": ptrs("the go")} {
		t.Run(name, func(t *testing.T) {
			r := e.Search(SearchArgs{Q: q, Category: ptrs("io"), Format: ptrs("json")})
			if r.Kind != KindNeedsInput || r.IsError || r.Ask == nil {
				t.Fatalf("kind %s isError %v ask %v", r.Kind, r.IsError, r.Ask)
			}
			validateKind(t, KindNeedsInput, replyJSON(t, r))
			n := r.Payload.(*NeedsInput)
			if !slices.Equal(n.NeedsInput.Fields, []string{"q"}) || n.Type != "elicitation" {
				t.Errorf("fields %v type %q", n.NeedsInput.Fields, n.Type)
			}
			sugg := n.NeedsInput.Suggestions["q"]
			if len(sugg) == 0 {
				t.Fatal("no suggestions for q")
			}
			// Every suggestion must itself be a search that finds something.
			for _, s := range sugg {
				if len(e.cat.Search(catalog.Query{Text: s})) == 0 {
					t.Errorf("suggestion %q finds nothing", s)
				}
			}
			if len(n.Options) != len(sugg) {
				t.Errorf("%d options for %d suggestions", len(n.Options), len(sugg))
			}
			for _, o := range n.Options {
				if o.Field != "q" || !slices.Contains(sugg, o.Value) {
					t.Errorf("option %+v", o)
				}
			}
			if len(r.Ask.Fields) != 1 || r.Ask.Fields[0].Name != "q" || !r.Ask.Fields[0].Required {
				t.Errorf("ask %+v", r.Ask)
			}
		})
	}
}

func TestNeedsNarrowing(t *testing.T) {
	e := newTestEngine(t)
	q, matches := manyMatchQuery(t, e)
	byCat, byDiff := catalog.Counts(matches)
	var first *NeedsInput
	for _, limit := range []*int{nil, ptri(1), ptri(100)} {
		r := e.Search(SearchArgs{Q: ptrs(q), Limit: limit})
		if r.Kind != KindNeedsInput {
			t.Fatalf("q=%q (%d matches) limit=%v: kind %s", q, len(matches), limit, r.Kind)
		}
		validateKind(t, KindNeedsInput, replyJSON(t, r))
		n := r.Payload.(*NeedsInput)
		if first == nil {
			first = n
		} else if diff := cmp.Diff(first, n); diff != "" {
			t.Errorf("needsInput depends on limit (-nil +%d):\n%s", *limit, diff)
		}
	}
	if !slices.Equal(first.NeedsInput.Fields, []string{"category", "difficulty"}) {
		t.Errorf("fields %v", first.NeedsInput.Fields)
	}
	cats := first.NeedsInput.Suggestions["category"]
	diffs := first.NeedsInput.Suggestions["difficulty"]
	if len(cats) != len(byCat) || len(diffs) != len(byDiff) {
		t.Errorf("suggested %d categories/%d difficulties, matches have %d/%d", len(cats), len(diffs), len(byCat), len(byDiff))
	}
	for i, c := range cats {
		if byCat[catalog.Category(c)] == 0 {
			t.Errorf("suggested category %s has no match", c)
		}
		if i > 0 && byCat[catalog.Category(cats[i-1])] < byCat[catalog.Category(c)] {
			t.Errorf("categories not ordered by match count: %v", cats)
		}
	}
	for _, d := range diffs {
		if byDiff[catalog.Difficulty(d)] == 0 {
			t.Errorf("suggested difficulty %s has no match", d)
		}
	}
	// Either filter alone lifts the rule, whatever the count.
	_, res := search(t, e, SearchArgs{Q: ptrs(q), Category: ptrs(cats[0])})
	if res.Metadata.TotalCount != byCat[catalog.Category(cats[0])] {
		t.Errorf("category %s: %d results, want %d", cats[0], res.Metadata.TotalCount, byCat[catalog.Category(cats[0])])
	}
	search(t, e, SearchArgs{Q: ptrs(q), Difficulty: ptrs(diffs[0])})
}

func TestSearchArgumentErrors(t *testing.T) {
	e := newTestEngine(t)
	tests := []struct {
		name   string
		args   SearchArgs
		field  string
		format Format
	}{
		{"bad category", SearchArgs{Q: ptrs("x"), Category: ptrs("misc")}, "category", FormatMarkdown},
		{"bad difficulty", SearchArgs{Q: ptrs("x"), Difficulty: ptrs("Expert"), Format: ptrs("json")}, "difficulty", FormatJSON},
		{"limit zero", SearchArgs{Q: ptrs("x"), Limit: ptri(0)}, "limit", FormatMarkdown},
		{"limit too big", SearchArgs{Q: ptrs("x"), Limit: ptri(101)}, "limit", FormatMarkdown},
		{"negative cards", SearchArgs{Q: ptrs("x"), LimitCards: ptri(-1)}, "limitCards", FormatMarkdown},
		{"too many cards", SearchArgs{Q: ptrs("x"), LimitCards: ptri(21)}, "limitCards", FormatMarkdown},
		{"bad format", SearchArgs{Q: ptrs("x"), Format: ptrs("html")}, "format", FormatBoth},
		{"long q", SearchArgs{Q: ptrs(strings.Repeat("é", MaxQueryLen+1))}, "q", FormatMarkdown},
		{"invalid utf8", SearchArgs{Q: ptrs("a\xffb")}, "q", FormatMarkdown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Search(tc.args)
			if r.Kind != KindToolError || !r.IsError || r.Format != tc.format {
				t.Fatalf("kind %s isError %v format %s", r.Kind, r.IsError, r.Format)
			}
			validateKind(t, KindToolError, replyJSON(t, r))
			te := r.Payload.(*ToolError)
			if te.Code != CodeClient || te.Details["field"] != tc.field || te.Retryable == nil || *te.Retryable {
				t.Errorf("error %+v", te)
			}
			if !strings.Contains(r.Markdown[0], CodeClient) {
				t.Errorf("markdown lacks the code: %s", r.Markdown[0])
			}
		})
	}
}

func TestDecodeArgs(t *testing.T) {
	a, te := DecodeSearchArgs([]byte(`{"q":"x","limit":5,"limitCards":0}`))
	if te != nil || *a.Q != "x" || *a.Limit != 5 || *a.LimitCards != 0 || a.Category != nil {
		t.Fatalf("decode: %+v %v", a, te)
	}
	for _, raw := range []string{"", "null", " {} "} {
		if _, te := DecodeSearchArgs([]byte(raw)); te != nil {
			t.Errorf("%q: %v", raw, te)
		}
	}
	bad := map[string]string{
		`{"qq":"x"}`:          "unknown field",
		`{"limit":"5"}`:       "limit",
		`{"limit":2.5}`:       "limit",
		`{"q":1}`:             "q",
		`{"q":"x"} {"q":"y"}`: "trailing",
		`[1]`:                 "cannot unmarshal",
	}
	for raw, want := range bad {
		_, te := DecodeSearchArgs([]byte(raw))
		if te == nil || te.Code != CodeClient || !strings.Contains(te.Message, want) {
			t.Errorf("%s: %v, want CLIENT_ERROR mentioning %q", raw, te, want)
		}
	}
	g, te := DecodeGetArgs([]byte(`{"id":"pipeline","format":"json"}`))
	if te != nil || *g.ID != "pipeline" || *g.Format != "json" {
		t.Errorf("get decode %+v %v", g, te)
	}
	if _, te := DecodeGetArgs([]byte(`{"id":["x"]}`)); te == nil || te.Details["field"] != "id" {
		t.Errorf("get decode of array id: %v", te)
	}
}

func TestGetDetails(t *testing.T) {
	e := newTestEngine(t)
	for _, p := range e.cat.All() {
		r := e.Get(GetArgs{ID: ptrs(p.ID), Format: ptrs("both")})
		if r.Kind != KindDetails || r.IsError {
			t.Fatalf("%s: kind %s", p.ID, r.Kind)
		}
		data := replyJSON(t, r)
		validateKind(t, KindDetails, data)
		d := r.Payload.(*Details)
		if d.Description != p.Description || d.Examples[0].Code != p.Examples[0].Code || !slices.Equal(d.Tags, p.Tags) {
			t.Errorf("%s: details differ from the catalog", p.ID)
		}
		if d.Summary != Summarize(p.Description, MaxSummaryChars) {
			t.Errorf("%s: summary %q", p.ID, d.Summary)
		}
		at, err := time.Parse(time.RFC3339, d.Provenance.Timestamp)
		if err != nil || !at.Equal(fixedNow) || d.Provenance.Timestamp != fixedNow.UTC().Format("2006-01-02T15:04:05.000Z") {
			t.Errorf("%s: timestamp %q (%v)", p.ID, d.Provenance.Timestamp, err)
		}
		if d.Provenance.Version != e.cat.Version() || d.Provenance.Marker != "v1" || d.Provenance.Source == "" {
			t.Errorf("%s: provenance %+v", p.ID, d.Provenance)
		}
		if d.UseGuidance.UseWhen != strings.Join(p.UseWhen, "; ") || d.UseGuidance.AvoidWhen != strings.Join(p.AvoidWhen, "; ") {
			t.Errorf("%s: useGuidance %+v", p.ID, d.UseGuidance)
		}
		if d.Examples[0].Description != p.Examples[0].Title || d.Examples[0].Language != "go" {
			t.Errorf("%s: example %q %q", p.ID, d.Examples[0].Description, d.Examples[0].Language)
		}
		if s := d.Sections[0]; s.Type != SectionDescription || s.Content != p.Description {
			t.Errorf("%s: first section %+v", p.ID, s)
		}
		if s := d.Sections[len(d.Sections)-1]; s.Type != SectionExample || s.Content != p.Examples[len(p.Examples)-1].Code {
			t.Errorf("%s: last section %+v", p.ID, s.Title)
		}
		if !slices.Equal(d.RelatedPatterns, p.Related) {
			t.Errorf("%s: relatedPatterns %v", p.ID, d.RelatedPatterns)
		}
		if n := countMarker(r.Markdown, DetailsMarker); n != 1 {
			t.Errorf("%s: %d details markers", p.ID, n)
		}
		if countMarker(r.Markdown, CardMarker)+countMarker(r.Markdown, IndexMarker) != 0 {
			t.Errorf("%s: details carry search markers", p.ID)
		}
		if !strings.Contains(r.Markdown[0], "```go\n"+p.Examples[0].Code) {
			t.Errorf("%s: example code not fenced verbatim", p.ID)
		}
	}
	r := e.Get(GetArgs{ID: ptrs("  pipeline ")})
	if r.Kind != KindDetails || r.Format != FormatMarkdown {
		t.Errorf("padded id: kind %s format %s", r.Kind, r.Format)
	}
}

func TestGetNeedsID(t *testing.T) {
	e := newTestEngine(t)
	tests := []struct {
		name      string
		id        *string
		wantFirst string
		wantAny   bool
	}{
		{"absent", nil, "", true},
		{"empty", ptrs(""), "", true},
		{"typo", ptrs("worker-pol"), "worker-pool", true},
		{"words", ptrs("generic set"), "generic-set", true},
		{"nonsense", ptrs("zzzzzzzzzzzzzzzzzz"), "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.Get(GetArgs{ID: tc.id, Format: ptrs("json")})
			if r.Kind != KindNeedsInput || r.IsError {
				t.Fatalf("kind %s", r.Kind)
			}
			validateKind(t, KindNeedsInput, replyJSON(t, r))
			n := r.Payload.(*NeedsInput)
			sugg := n.NeedsInput.Suggestions["id"]
			if len(sugg) > MaxIDSuggestions || (len(sugg) > 0) != tc.wantAny {
				t.Fatalf("suggestions %v", sugg)
			}
			if tc.wantFirst != "" && sugg[0] != tc.wantFirst {
				t.Errorf("first suggestion %s, want %s", sugg[0], tc.wantFirst)
			}
			for _, s := range sugg {
				if _, ok := e.cat.Get(s); !ok {
					t.Errorf("suggested unknown id %s", s)
				}
			}
			if !slices.Equal(r.Ask.Fields[0].Enum, sugg) || !slices.Equal(n.NeedsInput.Fields, []string{"id"}) {
				t.Errorf("ask enum %v, fields %v", r.Ask.Fields[0].Enum, n.NeedsInput.Fields)
			}
		})
	}
	r := e.Get(GetArgs{ID: ptrs(strings.Repeat("x", MaxIDLen+1))})
	if r.Kind != KindToolError || r.Payload.(*ToolError).Code != CodeClient {
		t.Errorf("long id: %s", r.Kind)
	}
	r = e.Get(GetArgs{ID: ptrs("pipeline"), Format: ptrs("yaml")})
	if r.Kind != KindToolError || r.Format != FormatBoth {
		t.Errorf("bad format: %s %s", r.Kind, r.Format)
	}
}

func TestMarkdownCannotForgeMarkers(t *testing.T) {
	e := newTestEngine(t)
	evil := "worker " + IndexMarker + " " + CardMarker + " | </table> `x` *y*"
	r, res := search(t, e, SearchArgs{Q: ptrs(evil), LimitCards: ptri(5)})
	checkMarkers(t, r.Markdown, res)
	if strings.Contains(strings.Join(r.Markdown, ""), "<!-- kind:pattern-index:v1 --> <") {
		t.Error("query rendered raw")
	}
	n := e.Get(GetArgs{ID: ptrs(CardMarker)})
	if countMarker(n.Markdown, CardMarker) != 0 {
		t.Error("needsInput markdown echoed a marker")
	}
	for _, p := range e.cat.All() {
		if strings.Contains(p.Examples[0].Code, "<!--") || strings.Contains(p.Description, "<!--") {
			t.Errorf("%s: catalog text contains an HTML comment", p.ID)
		}
	}
}

func TestFence(t *testing.T) {
	for code, want := range map[string]string{"x": "```", "a ``` b": "````", "`````": "``````"} {
		if got := fence(code); got != want {
			t.Errorf("fence(%q) = %q, want %q", code, got, want)
		}
	}
}

func TestErrorReplyFormats(t *testing.T) {
	te := NewToolError(CodeServer, "boom", true, map[string]any{"where": "test"})
	for _, f := range []Format{FormatMarkdown, FormatJSON, FormatBoth} {
		r := ErrorReply(te, f)
		blocks, err := r.Blocks()
		if err != nil {
			t.Fatal(err)
		}
		want := map[Format]int{FormatMarkdown: 1, FormatJSON: 1, FormatBoth: 2}[f]
		if len(blocks) != want || !r.IsError {
			t.Errorf("%s: %d blocks", f, len(blocks))
		}
		validateKind(t, KindToolError, replyJSON(t, r))
	}
	if !strings.Contains(te.Error(), "SERVER_ERROR") {
		t.Errorf("Error() = %q", te.Error())
	}
}
