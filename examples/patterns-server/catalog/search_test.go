package catalog

import (
	"slices"
	"strings"
	"testing"
)

func ids(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Pattern.ID)
	}
	return out
}

func TestTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   ", nil},
		{"the a of", nil},
		{"Worker  POOL", []string{"worker", "pool"}},
		{"worker-pool worker", []string{"worker", "pool"}},
		{"how to do io.Reader?", []string{"io", "reader"}},
		{strings.Repeat("x", 100), []string{strings.Repeat("x", 64)}},
	}
	for _, tc := range tests {
		if got := Terms(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	many := strings.Repeat("w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 ", 10)
	if n := len(Terms(many)); n != 10 {
		t.Errorf("duplicates not removed: %d terms", n)
	}
	var b strings.Builder
	for i := range 100 {
		b.WriteString("t")
		b.WriteString(strings.Repeat("x", i%7+1))
		b.WriteString(string(rune('a'+i%26)) + string(rune('a'+i/26)) + " ")
	}
	if n := len(Terms(b.String())); n != maxQueryTerms {
		t.Errorf("Terms kept %d words, want the cap %d", n, maxQueryTerms)
	}
}

func TestSearchScoring(t *testing.T) {
	c := mustDefault(t)
	// The pattern whose title is the query ranks first.
	got := c.Search(Query{Text: "worker pool"})
	if len(got) == 0 || got[0].Pattern.ID != "worker-pool" {
		t.Fatalf("worker pool: got %v", ids(got))
	}
	// Every hit must match every term.
	for _, m := range c.Search(Query{Text: "context cancellation"}) {
		e := newIndexEntry(m.Pattern)
		for _, term := range []string{"context", "cancellation"} {
			if e.termScore(term) == 0 {
				t.Errorf("%s matched without term %q", m.Pattern.ID, term)
			}
		}
	}
	// Title beats tag beats description for the same word.
	c2, err := New("v", []Pattern{
		withText(validPattern("in-title"), "Zebra stripes", []string{"x"}, "plain"),
		withText(validPattern("in-tag"), "Other", []string{"zebra"}, "plain"),
		withText(validPattern("in-desc"), "Another", []string{"y"}, "about a zebra"),
		withText(validPattern("nowhere"), "Nothing", []string{"z"}, "plain"),
	}, map[string]string{"in-title.go": "", "in-tag.go": "", "in-desc.go": "", "nowhere.go": ""})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(c2.Search(Query{Text: "zebra"})); !slices.Equal(got, []string{"in-title", "in-tag", "in-desc"}) {
		t.Errorf("ranking = %v", got)
	}
	// Prefixes match titles and tags.
	if got := ids(c2.Search(Query{Text: "zeb"})); !slices.Equal(got, []string{"in-title", "in-tag"}) {
		t.Errorf("prefix ranking = %v", got)
	}
	// Results are sorted by score, then id.
	res := c.Search(Query{Text: "errors"})
	for i := 1; i < len(res); i++ {
		a, b := res[i-1], res[i]
		if a.Score < b.Score || (a.Score == b.Score && a.Pattern.ID > b.Pattern.ID) {
			t.Fatalf("unsorted at %d: %s(%d) before %s(%d)", i, a.Pattern.ID, a.Score, b.Pattern.ID, b.Score)
		}
	}
}

func withText(p Pattern, title string, tags []string, desc string) Pattern {
	p.Title, p.Tags, p.Description = title, tags, desc
	return p
}

func TestSearchFilters(t *testing.T) {
	c := mustDefault(t)
	all := c.Search(Query{})
	if len(all) != c.Len() {
		t.Fatalf("blank query matched %d of %d", len(all), c.Len())
	}
	for _, m := range all {
		if m.Score != 0 {
			t.Fatalf("blank query scored %s = %d", m.Pattern.ID, m.Score)
		}
	}
	conc := c.Search(Query{Category: Concurrency, Difficulty: Beginner})
	if len(conc) == 0 {
		t.Fatal("no beginner concurrency patterns")
	}
	want := 0
	for _, p := range c.All() {
		if p.Category == Concurrency && p.Difficulty == Beginner {
			want++
		}
	}
	if len(conc) != want {
		t.Errorf("filters matched %d, want %d", len(conc), want)
	}
	for _, m := range conc {
		if m.Pattern.Category != Concurrency || m.Pattern.Difficulty != Beginner {
			t.Errorf("%s passed the filters", m.Pattern.ID)
		}
	}
	if got := c.Search(Query{Text: "qwertyuiop"}); len(got) != 0 {
		t.Errorf("nonsense matched %v", ids(got))
	}
	if got := c.Search(Query{Text: "worker pool", Category: Errors}); len(got) != 0 {
		t.Errorf("category filter ignored: %v", ids(got))
	}
}

func TestCounts(t *testing.T) {
	c := mustDefault(t)
	ms := c.Search(Query{Text: "http"})
	byCat, byDiff := Counts(ms)
	sumC, sumD := 0, 0
	for _, n := range byCat {
		sumC += n
	}
	for _, n := range byDiff {
		sumD += n
	}
	if sumC != len(ms) || sumD != len(ms) {
		t.Errorf("counts %d/%d do not add up to %d", sumC, sumD, len(ms))
	}
}

func TestSuggest(t *testing.T) {
	c := mustDefault(t)
	tests := []struct{ in, want string }{
		{"worker-pol", "worker-pool"},
		{"wrap-error", "wrap-errors"},
		{"generic set", "generic-set"},
		{"Pipeline", "pipeline"},
	}
	for _, tc := range tests {
		got := c.Suggest(tc.in, 5)
		if len(got) == 0 || got[0] != tc.want || len(got) > 5 {
			t.Errorf("Suggest(%q) = %v, want %q first", tc.in, got, tc.want)
		}
	}
	if got := c.Suggest("zzzzzzzzzzzzzzzz", 5); len(got) != 0 {
		t.Errorf("nonsense suggestions %v", got)
	}
	if got := c.Suggest("worker", 0); got != nil {
		t.Errorf("n=0 gave %v", got)
	}
	if got := c.Suggest("errors", 3); len(got) != 3 {
		t.Errorf("n=3 gave %d", len(got))
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"", "", 5, 0},
		{"abc", "abc", 5, 0},
		{"kitten", "sitting", 5, 3},
		{"kitten", "sitting", 3, 3},
		{"kitten", "sitting", 2, 2},
		{"a", "abcdefgh", 4, 4},
		{"héllo", "hello", 5, 1},
	}
	for _, tc := range tests {
		if got := editDistance(tc.a, tc.b, tc.limit); got != tc.want {
			t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tc.a, tc.b, tc.limit, got, tc.want)
		}
	}
}

func TestTopTags(t *testing.T) {
	c := mustDefault(t)
	tags := c.TopTags(5)
	if len(tags) != 5 {
		t.Fatalf("TopTags(5) = %v", tags)
	}
	count := func(tag string) int {
		n := 0
		for _, p := range c.All() {
			if slices.Contains(p.Tags, tag) {
				n++
			}
		}
		return n
	}
	for i := 1; i < len(tags); i++ {
		if count(tags[i-1]) < count(tags[i]) {
			t.Errorf("%s (%d) ranked above %s (%d)", tags[i-1], count(tags[i-1]), tags[i], count(tags[i]))
		}
	}
	if len(c.TopTags(10000)) == 0 {
		t.Error("TopTags with a large n returned nothing")
	}
}

func TestPluralMatchesSingular(t *testing.T) {
	c, err := New("v", []Pattern{withText(validPattern("one"), "Table test", []string{"x"}, "plain")},
		map[string]string{"one.go": ""})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"tests", "test", "tes", "table tests"} {
		if got := c.Search(Query{Text: q}); len(got) != 1 {
			t.Errorf("%q matched %d", q, len(got))
		}
	}
	if got := c.Search(Query{Text: "te"}); len(got) != 0 {
		t.Errorf("two-letter prefix matched")
	}
	if got := len(c.Search(Query{Text: MatchAll})); got != 1 {
		t.Errorf("MatchAll matched %d", got)
	}
}
