package main

import (
	"strings"
	"testing"
)

// TestQuotedFirst: a value is quoted on the message's first line, or across
// lines from it; the excerpt after the first line is not searched.
func TestQuotedFirst(t *testing.T) {
	for _, c := range []struct {
		msg, q string
		want   bool
	}{
		{`Could not convert string 'yesterday' to INTERVAL`, `'yesterday'`, true},
		{`Could not convert string 'yesterday' to INTERVAL`, `"yesterday"`, false},
		{"Conversion Error: bad\nLINE 1: SELECT 'yesterday'", `'yesterday'`, false},
		{"Could not convert string '1 day\nxyz' to INTERVAL\nLINE 1: …", "'1 day\nxyz'", true},
		{"Conversion Error: bad\nLINE 1: SELECT '1 day\nxyz'", "'1 day\nxyz'", false},
		{"one line", `'one line'`, false},
		{"", `''`, false},
		{"\nrest", "", true}, // "" is on every line, the empty first one too
	} {
		first, _, _ := strings.Cut(c.msg, "\n")
		if got := quotedFirst(c.msg, first, c.q); got != c.want {
			t.Errorf("quotedFirst(%q, %q) = %v, want %v", c.msg, c.q, got, c.want)
		}
	}
}
