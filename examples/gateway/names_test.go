package main

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAllNames(t *testing.T) {
	long := strings.Repeat("x", 80)
	items := []qualified{
		{"a", "tool"},
		{"a", "tool.v2"}, // sanitised to a__tool_v2 …
		{"a", "tool_v2"}, // … which this one has: the later one gets a hash
		{"a_", "_tool"},  // a___tool
		{"a", "_tool"},   // a___tool too
		{"srv", long},    // too long: cut and hashed
		{"srv", long + "y"},
		{"ünï", "cödé"},
	}
	got := allNames(items)
	seen := map[string]qualified{}
	for q, n := range got {
		if !allNameRE.MatchString(n) {
			t.Errorf("%v -> %q is not a valid name", q, n)
		}
		if other, dup := seen[n]; dup {
			t.Errorf("%v and %v both got %q", q, other, n)
		}
		seen[n] = q
	}
	if len(got) != len(items) {
		t.Fatalf("%d names for %d items", len(got), len(items))
	}
	for q, want := range map[qualified]string{
		{"a", "tool"}:    "a__tool",
		{"a", "tool_v2"}: "a__tool_v2",
		{"a", "_tool"}:   "a___tool",
		{"ünï", "cödé"}:  "_n___c_d_",
	} {
		if got[q] != want {
			t.Errorf("%v -> %q, want %q", q, got[q], want)
		}
	}
	if n := got[qualified{"a", "tool.v2"}]; !strings.HasPrefix(n, "a__tool_v2_") || len(n) != len("a__tool_v2_")+8 {
		t.Errorf("collision -> %q, want a hashed a__tool_v2_XXXXXXXX", n)
	}
	if n := got[qualified{"srv", long}]; len(n) != 64 || !strings.HasPrefix(n, "srv__xxx") {
		t.Errorf("long name -> %q (%d), want 64 characters", n, len(n))
	}
	// The same set in any order gives the same names.
	for i := 0; i < 20; i++ {
		shuffled := append([]qualified(nil), items...)
		rand.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if diff := cmp.Diff(got, allNames(shuffled)); diff != "" {
			t.Fatalf("names depend on order:\n%s", diff)
		}
	}
}
