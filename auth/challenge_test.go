package auth

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want []Challenge
		err  bool
	}{
		{"bare bearer", []string{"Bearer"}, []Challenge{{Scheme: "Bearer"}}, false},
		{"params", []string{`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource/mcp", scope="a b"`},
			[]Challenge{{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://x/.well-known/oauth-protected-resource/mcp", "scope": "a b"}}}, false},
		{"token values and case", []string{`bearer Error=insufficient_scope,scope="x"`},
			[]Challenge{{Scheme: "bearer", Params: map[string]string{"error": "insufficient_scope", "scope": "x"}}}, false},
		{"two challenges, one line", []string{`Basic realm="a, b", Bearer error="invalid_token"`},
			[]Challenge{{Scheme: "Basic", Params: map[string]string{"realm": "a, b"}}, {Scheme: "Bearer", Params: map[string]string{"error": "invalid_token"}}}, false},
		{"two lines", []string{`DPoP algs="ES256"`, `Bearer scope="s"`},
			[]Challenge{{Scheme: "DPoP", Params: map[string]string{"algs": "ES256"}}, {Scheme: "Bearer", Params: map[string]string{"scope": "s"}}}, false},
		{"token68", []string{`Negotiate abc+/==, Bearer`}, []Challenge{{Scheme: "Negotiate", Token68: "abc+/=="}, {Scheme: "Bearer"}}, false},
		{"escapes", []string{`Bearer realm="a\"b\\c"`}, []Challenge{{Scheme: "Bearer", Params: map[string]string{"realm": `a"b\c`}}}, false},
		{"spaces around =", []string{`Bearer scope = "x" , error = y`}, []Challenge{{Scheme: "Bearer", Params: map[string]string{"scope": "x", "error": "y"}}}, false},
		{"first of repeated", []string{`Bearer scope="a", scope="b"`}, []Challenge{{Scheme: "Bearer", Params: map[string]string{"scope": "a"}}}, false},
		{"unterminated quote", []string{`Bearer scope="a`}, nil, true},
		{"token68 with padding", []string{`Bearer scope=`}, []Challenge{{Scheme: "Bearer", Token68: "scope="}}, false},
		{"missing value", []string{`Bearer scope="x", error=`}, nil, true},
		{"garbage", []string{`Bearer "x"`}, nil, true},
		{"control character", []string{"Bearer scope=\"a\x01\""}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseChallenges(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" && !tc.err {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatChallengeRoundTrip(t *testing.T) {
	s := FormatChallenge("Bearer", [2]string{"error", "insufficient_scope"}, [2]string{"scope", `a "b" \c`}, [2]string{"empty", ""})
	got := BearerChallenge([]string{s})
	want := map[string]string{"error": "insufficient_scope", "scope": `a "b" \c`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: (-want +got):\n%s", s, diff)
	}
}
