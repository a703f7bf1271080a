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
	})
}

// FuzzMatch matches arbitrary URIs. It must never panic; when it succeeds, the
// values must survive a second trip: Match(Expand(values)) gives the same values
// back (or, when the URI is ambiguous, values that expand to the same URI). And
// Expand(Match(uri)) may differ from uri only where Match's contract says it may:
// without ';', '?' and '&' expressions (whose "a" for "a=" and query order are
// such differences too), only in how characters are encoded, so both decode alike.
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
