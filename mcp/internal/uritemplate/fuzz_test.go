package uritemplate

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse parses arbitrary templates. A template that parses must expand with
// string values, and when Match accepts the expansion, expanding the matched values
// must give the same URI back. The variables take their values from value in turn:
// split at NUL bytes, the i-th variable gets the i-th piece (cycling), and a piece
// "\x01" leaves the variable undefined, so that the variables of one template may
// differ, and some be missing, as in any expansion Match documents it gives back.
// For a template that uses a variable more than once, an expansion of values that
// Match can read back (see mustMatchRepeated) must match: the split search finds
// a split where the one of the regular expressions is not the one, unless it
// runs out of its budget.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"report://{id}", "file:///{+path}", "users/{user}/posts{?page,limit}",
		"test://template/{id}/data", "{/list*,path:4}", "X{.a,b}{;c}{#d}", "?fixed=yes{&x}",
		"{", "}", "{a{b}}", "%zz", "{x:0}",
	} {
		f.Add(s, "a b/ü%41")
	}
	f.Add("X{.a,b}{;c}{#d}{e}", "x\x00\x01\x00\x00%2F?")
	f.Add("{a}{b}{/c,d}", "\x01\x00.\x00")
	f.Add("{x}-{x}", "a-b")
	f.Add("{#x}{.x}{?x}", "0")
	f.Add("{+x}/{x}{;x}", "a/%2F%")
	f.Fuzz(func(t *testing.T, tmplText, value string) {
		tmpl, err := Parse(tmplText)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(tmplText) {
				t.Fatalf("Parse(%q): bad error %v", tmplText, err)
			}
			return
		}
		if tmpl.String() != tmplText {
			t.Fatalf("String() = %q, want %q", tmpl.String(), tmplText)
		}
		vars := map[string]any{}
		pieces := strings.Split(value, "\x00")
		for i, v := range tmpl.Vars() {
			if !validVarName(v) {
				t.Fatalf("Vars() returned invalid name %q", v)
			}
			if piece := pieces[i%len(pieces)]; piece != "\x01" {
				vars[v] = piece
			}
		}
		uri, err := tmpl.Expand(vars)
		if err != nil {
			t.Fatalf("Expand(%q) with strings: %v", tmplText, err)
		}
		checkRoundTrip(t, tmpl, uri, true)
		if mustMatchRepeated(tmpl, vars) {
			if _, ok := tmpl.Match(uri); !ok {
				_, _, strict := tmpl.search(uri, false)
				_, _, empties := tmpl.search(uri, true)
				if !strict.gaveUp && !empties.gaveUp {
					t.Fatalf("template %q: Match(%q) failed for an expansion of %q", tmpl, uri, vars)
				}
			}
		}
	})
}

// mustMatchRepeated reports whether the template uses a variable more than once
// (and Match supports it) and Match must read an expansion of vars: every
// variable has a value, a {var} or {+var} one is not empty, and every place
// writes it so that it reads back the same (not so for "%20" in a {+var}, which
// reads back as " ").
func mustMatchRepeated(tmpl *Template, vars map[string]any) bool {
	tmpl.matchOnce.Do(func() { tmpl.m = tmpl.compileMatcher() })
	if tmpl.m == nil || !tmpl.m.repeats {
		return false
	}
	for _, p := range tmpl.parts {
		e := p.expr
		if e == nil {
			continue
		}
		for _, v := range e.vars {
			val, ok := vars[v.name].(string)
			if !ok || val == "" && (e.op == opSimple || e.op == opReserved) {
				return false
			}
			var b strings.Builder
			encode(&b, val, e.op.allowReserved)
			if back, ok := unescape(b.String(), e.op.allowReserved); !ok || back != val {
				return false
			}
		}
	}
	return true
}

// FuzzMatch matches arbitrary URIs. It must never panic; when it succeeds, the
// values must survive a second trip: Match(Expand(values)) gives the same values
// back (or, when the URI is ambiguous, values that expand to the same URI). And
// Expand(Match(uri)) may differ from uri only where Match's contract says it may:
// without ';', '?' and '&' expressions (whose "a" for "a=" and query order are
// such differences too), only in how characters are encoded, so both decode alike.
// A template that uses a variable more than once matches only with values that
// expand to the URI exactly.
func FuzzMatch(f *testing.F) {
	seeds := []struct{ tmpl, uri string }{
		{"report://{id}", "report://42"},
		{"report://{id}", "report://a:b@c"},
		{"file:///{+path}", "file:///a/b%20c%2Fd"},
		{"users/{user}/posts{?page,limit}", "users/u/posts?limit=1&page=%41"},
		{"test://template/{id}/data", "test://template/x/data"},
		{"x{;a,b}", "x;b=1;a"},
		{"{x}/{x}", "a/a"},
		{"{/a,b}{.c}", "/x/y.z"},
		{"{x}-{x}", "a-b-a-b"},
		{"{.0}{.0}{;1}{2}", "....;1"},
		{"{+x}/{x}{?x}", "a/b/a%2Fb?x=a%2Fb"},
	}
	for _, s := range seeds {
		f.Add(s.tmpl, s.uri)
	}
	f.Fuzz(func(t *testing.T, tmplText, uri string) {
		tmpl, err := Parse(tmplText)
		if err != nil {
			return
		}
		got, ok := tmpl.Match(uri)
		if !ok {
			return
		}
		for k := range got {
			found := false
			for _, v := range tmpl.Vars() {
				found = found || v == k
			}
			if !found {
				t.Fatalf("Match(%q, %q) returned unknown variable %q", tmplText, uri, k)
			}
		}
		again, err := tmpl.Expand(toValues(got))
		if err != nil {
			t.Fatalf("Expand(Match(%q)): %v", uri, err)
		}
		if tmpl.m.repeats && again != uri {
			t.Fatalf("template %q: Expand(Match(%q)) = %q (values %q), want the URI", tmpl, uri, again, got)
		}
		if !hasNamedExpr(tmpl) && pctDecode(again) != pctDecode(uri) {
			t.Fatalf("template %q: Expand(Match(%q)) = %q (values %q) differs in more than encoding", tmpl, uri, again, got)
		}
		checkRoundTrip(t, tmpl, again, false)
	})
}

// checkRoundTrip checks that when Match accepts uri (an output of Expand), the
// values it returns expand to uri again. With mayFail, a failure to match is fine
// (not every expansion is matchable); without it, uri must match, because it was
// built from values Match itself returned.
func checkRoundTrip(t *testing.T, tmpl *Template, uri string, mayFail bool) {
	t.Helper()
	got, ok := tmpl.Match(uri)
	if !ok {
		if !mayFail {
			t.Fatalf("template %q: Match(%q) failed for an expansion of matched values", tmpl, uri)
		}
		return
	}
	back, err := tmpl.Expand(toValues(got))
	if err != nil {
		t.Fatalf("template %q: Expand(%v): %v", tmpl, got, err)
	}
	if back != uri {
		t.Fatalf("template %q: Expand(Match(%q)) = %q (values %q)", tmpl, uri, back, got)
	}
}

// hasNamedExpr reports whether the template has a ';', '?' or '&' expression.
func hasNamedExpr(t *Template) bool {
	for _, p := range t.parts {
		if p.expr != nil && p.expr.op.named {
			return true
		}
	}
	return false
}

// pctDecode decodes every pct-encoded triplet of s (either case), in one pass.
func pctDecode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
