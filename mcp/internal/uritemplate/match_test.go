package uritemplate

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMatch(t *testing.T) {
	type m = map[string]string
	tests := []struct {
		name, template, uri string
		want                map[string]string // nil: no match
	}{
		// MCP-style resource templates.
		{"report id", "report://{id}", "report://42", m{"id": "42"}},
		{"report id decoded", "report://{id}", "report://q1%202025", m{"id": "q1 2025"}},
		{"report id lowercase hex", "report://{id}", "report://a%2fb", m{"id": "a/b"}},
		{"report id sub-delims and colon", "report://{id}", "report://2024:q1;v=2,x", m{"id": "2024:q1;v=2,x"}},
		{"report id no slash", "report://{id}", "report://a/b", nil},
		{"report id empty", "report://{id}", "report://", nil},
		{"report id query", "report://{id}", "report://a?b", nil},
		{"report id fragment", "report://{id}", "report://a#b", nil},
		{"report id space", "report://{id}", "report://a b", nil},
		{"report id bad pct", "report://{id}", "report://a%2", nil},
		{"report id bad pct hex", "report://{id}", "report://a%zz", nil},
		{"scheme differs", "report://{id}", "reports://42", nil},
		// An empty query parameter is not one Expand writes: the '&'s are f's
		// (Expand({#f}) with f = "&&q=%26" writes that URI).
		{"empty query parameter", "{#f}{&q}", "#&&q=%26", m{"f": "&&q=%26"}},
		{"bare query separator", "{#f}{&q}", "#&", m{"f": "&"}},
		{"empty query parameter between", "s{?a,b}", "s?a=1&&b=2", nil},
		{"file path", "file:///{+path}", "file:///home/user/a.txt", m{"path": "home/user/a.txt"}},
		{"file path decoded", "file:///{+path}", "file:///a%20b/c", m{"path": "a b/c"}},
		{"file path with query chars", "file:///{+path}", "file:///a?b=c", m{"path": "a?b=c"}},
		{"file path keeps encoded reserved", "file:///{+path}", "file:///a%2Fb%2e%C3%BC", m{"path": "a%2Fb%2eü"}},
		{"file path empty", "file:///{+path}", "file:///", nil},
		{"file path literal mismatch", "file:///{+path}", "file://x/a", nil},
		{"template data", "test://template/{id}/data", "test://template/123/data", m{"id": "123"}},
		{"template data two segments", "test://template/{id}/data", "test://template/1/2/data", nil},
		{"template data suffix", "test://template/{id}/data", "test://template/1/data/x", nil},
		{"posts no query", "users/{user}/posts{?page,limit}", "users/ada/posts", m{"user": "ada"}},
		{"posts query", "users/{user}/posts{?page,limit}", "users/ada/posts?page=2&limit=10", m{"user": "ada", "page": "2", "limit": "10"}},
		{"posts query any order", "users/{user}/posts{?page,limit}", "users/ada/posts?limit=10&page=2", m{"user": "ada", "page": "2", "limit": "10"}},
		{"posts query one", "users/{user}/posts{?page,limit}", "users/ada/posts?limit=5", m{"user": "ada", "limit": "5"}},
		{"posts query empty values", "users/{user}/posts{?page,limit}", "users/ada/posts?page=&limit", m{"user": "ada", "page": "", "limit": ""}},
		{"posts query decoded", "users/{user}/posts{?page,limit}", "users/ada/posts?page=a%26b", m{"user": "ada", "page": "a&b"}},
		{"posts query bare question mark", "users/{user}/posts{?page,limit}", "users/ada/posts?", m{"user": "ada"}},
		{"posts query unknown param", "users/{user}/posts{?page,limit}", "users/ada/posts?page=1&sort=x", nil},
		{"posts query duplicate", "users/{user}/posts{?page,limit}", "users/ada/posts?page=1&page=2", nil},
		{"posts query bad pct", "users/{user}/posts{?page,limit}", "users/ada/posts?page=%G1", nil},
		{"posts query lone percent", "users/{user}/posts{?page,limit}", "users/ada/posts?limit=%", nil},
		{"posts query fragment", "users/{user}/posts{?page,limit}", "users/ada/posts?page=1#x", nil},
		{"posts user with ampersand", "users/{user}/posts{?page,limit}", "users/a&b/posts", nil},
		{"query continuation", "search?fixed=yes{&x,y}", "search?fixed=yes&y=2", m{"y": "2"}},
		{"query continuation none", "search?fixed=yes{&x,y}", "search?fixed=yes", m{}},
		{"query continuation wrong lead", "search?fixed=yes{&x,y}", "search?fixed=yes?y=2", nil},
		{"two query expressions", "s{?a}{&b}", "s?b=1&a=2", m{"a": "2", "b": "1"}},

		// Other operators.
		{"literal only", "a/b", "a/b", m{}},
		{"literal only mismatch", "a/b", "a/c", nil},
		{"regexp metacharacters in literal", "a.b+(c)[d]$", "a.b+(c)[d]$", m{}},
		{"regexp metacharacters mismatch", "a.b", "axb", nil},
		{"encoded literal", "ü/{x}", "%C3%BC/1", m{"x": "1"}},
		{"multi simple", "map?{x,y}", "map?1024,768", m{"x": "1024", "y": "768"}},
		{"multi simple missing", "map?{x,y}", "map?1024", nil},
		{"reserved multi", "{+x,y}/here", "/foo,1/here", m{"x": "/foo", "y": "1"}},
		{"adjacent greedy", "{x}{y}", "abc", m{"x": "ab", "y": "c"}},
		{"fragment", "page{#section}", "page#intro", m{"section": "intro"}},
		{"fragment absent", "page{#section}", "page", m{}},
		{"fragment empty", "page{#section}", "page#", m{"section": ""}},
		{"fragment with slash", "page{#section}", "page#a/b", m{"section": "a/b"}},
		{"label", "www{.dom,tld}", "www.example.com", m{"dom": "example", "tld": "com"}},
		{"label one", "www{.dom,tld}", "www.example", m{"dom": "example"}},
		{"label extension", "file{.ext}", "file.tar", m{"ext": "tar"}},
		// Expand writes ext "tar.gz" as ".tar.gz" ('.' is unreserved): the URI is
		// that expansion, and no split keeps the '.' out of the value.
		{"label value with a dot", "file{.ext}", "file.tar.gz", m{"ext": "tar.gz"}},
		{"label dots split where they can", "file{.a,b}", "file.tar.gz", m{"a": "tar", "b": "gz"}},
		{"label dot value then others", "{.0}{;1}{2}", "..;1=..", m{"0": ".", "1": ".", "2": "."}},
		{"path segments", "{/a,b}/here", "/x/y/here", m{"a": "x", "b": "y"}},
		{"path segments one", "{/a,b}/here", "/x/here", m{"a": "x"}},
		{"path segments none", "{/a,b}/here", "/here", m{}},
		{"path empty segment", "{/a,b}", "//y", m{"a": "", "b": "y"}},
		{"params", "x{;a,b}", "x;a=1;b=2", m{"a": "1", "b": "2"}},
		{"params empty", "x{;a,b}", "x;a;b=", m{"a": "", "b": ""}},
		{"params skip first", "x{;a,b}", "x;b=2", m{"b": "2"}},
		{"params prefix names", "x{;a,ab}", "x;ab=2", m{"ab": "2"}},
		{"params wrong order", "x{;a,b}", "x;b=2;a=1", nil},
		{"params unknown", "x{;a}", "x;c=1", nil},
		{"repeated var same", "{x}/{x}", "a/a", m{"x": "a"}},
		{"repeated var same after decoding", "{x}/{x}", "a%20/a%20", m{"x": "a "}},
		{"repeated var differs", "{x}/{x}", "a/b", nil},
		{"repeated var missing once", "{#x}{.x}", "#0", nil},
		// The regular expression's split is x = "0.0" and no label; x = "0"
		// at both places gives the URI back.
		{"repeated var split other than the first", "{#x}{.x}", "#0.0", m{"x": "0"}},
		{"repeated var in path and query", "{x}{?x}", "a?x=a", m{"x": "a"}},
		{"repeated var missing from query", "{x}{?x}", "a", nil},
		{"repeated var query differs", "{x}{?x}", "a?x=b", nil},

		{"strict pass preferred", "{x}{;y}", "a;y=1", m{"x": "a", "y": "1"}},
		{"lenient pass takes as much as it can", "{x}{;y}", "a:b;y=1", m{"x": "a:b;y=1"}},
		{"lenient email", "users/{email}", "users/ada@example.com", m{"email": "ada@example.com"}},
		{"params lenient empty after equals", "x{;a}", "x;a=", m{"a": ""}},
		{"params empty then reserved", "x{;a}{+b}", "x;a=c", m{"a": "", "b": "=c"}},

		// Unsupported templates never match.
		{"explode unsupported", "{/list*}", "/a/b", nil},
		{"prefix unsupported", "{var:3}", "val", nil},
		{"query not at end", "{?q}/x", "?q=1/x", nil},
		{"query explode", "x{?q*}", "x?q=1", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { checkMatch(t, tc.template, tc.uri, tc.want) })
	}
}

// checkMatch checks that template matches uri with the values want, or does
// not match it when want is nil.
func checkMatch(t *testing.T, template, uri string, want map[string]string) {
	t.Helper()
	got, ok := MustParse(template).Match(uri)
	if want == nil {
		if ok {
			t.Errorf("Match(%q, %q) = %v, want no match", template, uri, got)
		}
		return
	}
	if !ok {
		t.Fatalf("Match(%q, %q) failed, want %v", template, uri, want)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Match(%q, %q) (-want +got):\n%s", template, uri, diff)
	}
}

// TestMatchInvertsExpand expands templates with awkward values and checks that Match
// recovers the values and that expanding them again gives the same URI.
func TestMatchInvertsExpand(t *testing.T) {
	values := []string{"%20", "plain", "a b", "a/b", "50%", "%41", "ü€", "x,y", "a&b=c", "?#", "semi;colon", "dot.ted", "~_-."}
	templates := []string{
		"report://{id}",
		"file:///{+id}",
		"test://template/{id}/data",
		"users/{id}/posts{?page,limit}",
		"search?fixed=yes{&id}",
		"x{;id}",
		"x{/id}",
		"x{#id}",
		"x{.id}",
		"{id}-{other}",
	}
	for _, tmplText := range templates {
		tmpl := MustParse(tmplText)
		for _, v := range values {
			vars := map[string]any{"id": v, "other": "o", "page": v}
			uri, err := tmpl.Expand(vars)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := tmpl.Match(uri)
			if !ok {
				// Some values cannot be told apart from separators; that must
				// only happen for the documented cases.
				if !documentedAmbiguity(tmplText, v) {
					t.Errorf("%s with %q: Match(%q) failed", tmplText, v, uri)
				}
				continue
			}
			again, err := tmpl.Expand(toValues(got))
			if err != nil {
				t.Fatal(err)
			}
			if again != uri {
				t.Errorf("%s with %q: Expand(Match(%q)) = %q", tmplText, v, uri, again)
			}
			if got["id"] != v && !documentedAmbiguity(tmplText, v) {
				t.Errorf("%s: Match(%q)[id] = %q, want %q", tmplText, uri, got["id"], v)
			}
		}
	}
}

// documentedAmbiguity lists the value/template pairs where Match cannot recover the
// value: reserved expansion passes "%XX" through (so a value "50%" and "%41" are
// kept but a "%20" would read back as " "), a '#' value is taken for a delimiter in
// a fragment, and a '.' value in a label expression cannot be told from the
// separator.
func documentedAmbiguity(tmpl, v string) bool {
	switch tmpl {
	case "file:///{+id}":
		return v == "%20"
	case "x{#id}":
		return v == "?#" || v == "%20"
	case "x{.id}":
		return v == "dot.ted" || v == "~_-."
	}
	return false
}

func TestMatchConcurrent(t *testing.T) {
	tmpl := MustParse("users/{user}/posts{?page}")
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, ok := tmpl.Match("users/u/posts?page=1")
			if !ok || got["user"] != "u" || got["page"] != "1" {
				errs <- "bad match"
			}
			_ = i
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func BenchmarkMatch(b *testing.B) {
	tmpl := MustParse("users/{user}/posts{?page,limit}")
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := tmpl.Match("users/ada/posts?limit=10&page=2"); !ok {
			b.Fatal("no match")
		}
	}
}

func BenchmarkExpand(b *testing.B) {
	tmpl := MustParse("users/{user}/posts{?page,limit}")
	vars := map[string]any{"user": "ada lovelace", "page": "2", "limit": "10"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tmpl.Expand(vars); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMatchEmptyValuesExactly: a URI that is what Expand writes for empty
// values matches with values that give it back, not with a lenient split that
// takes the operator for an unencoded character ({;a}{b} of ";a" is a = "",
// not b = ";a", which would expand to "%3Ba"); a URI only the lenient split
// reads keeps it.
func TestMatchEmptyValuesExactly(t *testing.T) {
	for _, tc := range []struct {
		tmpl, uri, back string
	}{
		{"{;a}{b}", ";a", ";a"},
		{"{;0}{1}", ";0", ";0"},
		{"x{.a}{b}", "x.", "x."},
		{"{;a}{b}", ";b=1", "%3Bb%3D1"}, // no exact split: the lenient one
	} {
		tmpl, err := Parse(tc.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := tmpl.Match(tc.uri)
		if !ok {
			t.Errorf("%s: %q does not match", tc.tmpl, tc.uri)
			continue
		}
		back, err := tmpl.Expand(toValues(got))
		if err != nil || back != tc.back {
			t.Errorf("%s: Expand(Match(%q)) = %q (values %q), want %q", tc.tmpl, tc.uri, back, got, tc.back)
		}
	}
}

// TestMatchRepeatedVariables: a template that uses a variable more than once
// matches a URI with the first split whose values agree at every place and
// expand to the URI, also where the regular expressions' split is another.
func TestMatchRepeatedVariables(t *testing.T) {
	type m = map[string]string
	for _, tc := range []struct {
		name, template, uri string
		want                map[string]string // nil: no match
	}{
		{"path twice", "/a/{x}/b/{x}", "/a/1/b/1", m{"x": "1"}},
		{"path twice differs", "/a/{x}/b/{x}", "/a/1/b/2", nil},
		{"path twice missing", "/a/{x}/b/{x}", "/a/1/b/", nil},
		// The passes' split is x = "a-b-a" and x = "b".
		{"first split wrong", "{x}-{x}", "a-b-a-b", m{"x": "a-b"}},
		{"adjacent", "{x}{x}", "abab", m{"x": "ab"}},
		{"adjacent odd", "{x}{x}", "aba", nil},
		// {.0} of "." is "..": the passes' split takes "..." for the first.
		{"labels dot and empties", "{.0}{.0}{;1}{2}", "....;1", m{"0": ".", "1": "", "2": ""}},
		// An empty {var} only when no split without one gives the URI back,
		// as the empty patterns come after the others.
		{"empty value last", "{a}{b}-{a}", "x-x-x-x", m{"a": "x", "b": "-x-x"}},
		{"empty value when no other", "{a}{b}/{a}", "xx/xx", m{"a": "xx", "b": ""}},
		{"fragment then label", "{#x}{.x}", "#0.0", m{"x": "0"}},
		{"label list then label", "{.a,b}{.a}", ".x.y.z.x", m{"a": "x", "b": "y.z"}},
		{"reserved then simple", "{+x}/{x}", "a/b/a%2Fb", m{"x": "a/b"}},
		{"simple then reserved", "{x}/{+x}", "a%20b/a%20b", m{"x": "a b"}},
		{"with query", "{x}-{x}{?y}", "a-b-a-b?y=1", m{"x": "a-b", "y": "1"}},
		{"in query too", "{x}-{x}{?x}", "a-b-a-b?x=a-b", m{"x": "a-b"}},
		{"in query differs", "{x}-{x}{?x}", "a-b-a-b?x=a", nil},
		{"param twice", "{;a}{x}{;a}", ";a=1-;a=1", m{"a": "1", "x": "-"}},
		// Only values that give the URI back: "a:b" is what a client writes by
		// hand, Expand writes "a%3Ab".
		{"unencoded", "{x}-{x}", "a:b-a:b", nil},
		{"never empty alone", "report://{id}{id}", "report://", nil},
	} {
		t.Run(tc.name, func(t *testing.T) { checkMatch(t, tc.template, tc.uri, tc.want) })
	}
}

// TestMatchSearchBounded: a URI that makes the split search try many splits
// stops at the documented budget, and a long URI with a right split finds it
// well within it.
func TestMatchSearchBounded(t *testing.T) {
	for _, tc := range []struct {
		template, uri string
		exprs         int
		want          bool
	}{
		// Every split of the a's agrees at the later places; none ends in "!".
		{"{a}{b}{c}{a}{b}{c}!", strings.Repeat("a", 5000), 6, false},
		{"{a}{.b}{/c}{a}{.b}{/c}{?q}", strings.Repeat("a.", 3000) + "?q", 7, false},
		{"{x}-{x}", strings.Repeat("ab-", 2000) + "z-" + strings.Repeat("ab-", 2000) + "z", 2, true},
	} {
		tmpl := MustParse(tc.template)
		if _, ok := tmpl.Match(tc.uri); ok != tc.want {
			t.Errorf("%s: Match ok = %v, want %v", tc.template, ok, tc.want)
		}
		_, ok, st := tmpl.search(tc.uri, true)
		limit := max(searchMinSteps, searchBudget*(len(tc.uri)+1)*tc.exprs)
		if st.limit != limit {
			t.Errorf("%s: limit %d, want %d", tc.template, st.limit, limit)
		}
		// One unit may overshoot the limit by a URI's length at most.
		if st.steps > st.limit+len(tc.uri)+1 {
			t.Errorf("%s: %d steps, limit %d", tc.template, st.steps, st.limit)
		}
		if ok != tc.want || st.gaveUp == tc.want {
			t.Errorf("%s: search ok = %v, gave up = %v after %d steps (limit %d)", tc.template, ok, st.gaveUp, st.steps, st.limit)
		}
		if tc.want && st.steps > st.limit/4 {
			t.Errorf("%s: %d steps for a URI with a plain split (limit %d)", tc.template, st.steps, st.limit)
		}
	}
}

// TestMatchSearchKeepsBindings: a {;var} place of a variable bound at an
// earlier place keeps that binding when the search goes back over it. Before,
// going back unbound the variable, and the search tried splits the binding
// rules out (946 steps here, against 222).
func TestMatchSearchKeepsBindings(t *testing.T) {
	tmpl := MustParse("{;a}{b}{;a}{b}{a}!")
	tmpl.Match("")
	uri := ";a" + strings.Repeat("y", 50) + ";a" + strings.Repeat("y", 20) + "!"
	if _, ok, st := tmpl.search(uri, true); ok || st.gaveUp || st.steps > 400 {
		t.Errorf("search ok = %v, gave up = %v, %d steps (want no match in at most 400)", ok, st.gaveUp, st.steps)
	}
}
