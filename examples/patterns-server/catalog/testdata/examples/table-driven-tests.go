// Table-driven tests: one row per case, one subtest per row.
package tabletest

import (
	"strings"
	"testing"
)

func TestTitle(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "empty", in: "", want: ""},
		{name: "one word", in: "go", want: "Go"},
		{name: "two words", in: "hello gopher", want: "Hello Gopher"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := title(tc.in)
			if got != tc.want {
				t.Errorf("title(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func title(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}
