package catalog

import (
	"slices"
	"strings"
	"testing"
)

func mustDefault(t *testing.T) *Catalog {
	t.Helper()
	c, err := Default()
	if err != nil {
		t.Fatalf("Default: %v", err)
	}
	return c
}

func TestDefaultCatalogShape(t *testing.T) {
	c := mustDefault(t)
	if c.Len() < 60 {
		t.Fatalf("catalog has %d patterns, want at least 60", c.Len())
	}
	byCat := map[Category]int{}
	byDiff := map[Difficulty]int{}
	for _, p := range c.All() {
		byCat[p.Category]++
		byDiff[p.Difficulty]++
		if got, ok := c.Get(p.ID); !ok || got != p {
			t.Errorf("Get(%q) does not return the listed pattern", p.ID)
		}
		if p.Examples[0].Language != "go" || !strings.Contains(p.Examples[0].Code, "package ") {
			t.Errorf("%s: example is not Go source", p.ID)
		}
	}
	for _, cat := range []Category{Concurrency, Errors, Testing, HTTP, Generics, IO} {
		if byCat[cat] < 5 {
			t.Errorf("category %s has %d patterns, want at least 5", cat, byCat[cat])
		}
	}
	for _, d := range Difficulties() {
		if byDiff[d] < 10 {
			t.Errorf("difficulty %s has %d patterns, want at least 10", d, byDiff[d])
		}
	}
	all := c.All()
	if !slices.IsSortedFunc(all, func(a, b *Pattern) int { return strings.Compare(a.ID, b.ID) }) {
		t.Error("All is not sorted by id")
	}
	all[0] = nil
	if c.All()[0] == nil {
		t.Error("All returned the catalog's own slice")
	}
}

func validPattern(id string) Pattern {
	return Pattern{
		ID: id, Title: "T " + id, Category: IO, Difficulty: Beginner, Tags: []string{"io"},
		Description: "d", UseWhen: []string{"u"}, AvoidWhen: []string{"a"},
		Sections: []Section{{Heading: "h", Body: "b"}},
	}
}

func TestNewRejectsBadCatalogs(t *testing.T) {
	files := map[string]string{"one.go": "package main", "two.go": "package main"}
	tests := []struct {
		name  string
		edit  func(ps []Pattern, files map[string]string) []Pattern
		wants string
	}{
		{"duplicate id", func(ps []Pattern, _ map[string]string) []Pattern { ps[1].ID = "one"; return ps }, "duplicate id"},
		{"bad id", func(ps []Pattern, f map[string]string) []Pattern { ps[0].ID = "One_"; return ps }, "lower-case words"},
		{"unknown category", func(ps []Pattern, _ map[string]string) []Pattern { ps[0].Category = "misc"; return ps }, "unknown category"},
		{"unknown difficulty", func(ps []Pattern, _ map[string]string) []Pattern { ps[0].Difficulty = "expert"; return ps }, "unknown difficulty"},
		{"no example file", func(ps []Pattern, f map[string]string) []Pattern { delete(f, "two.go"); return ps }, "no example file two.go"},
		{"orphan example file", func(ps []Pattern, f map[string]string) []Pattern { f["three.go"] = "x"; return ps }, "belongs to no pattern"},
		{"missing guidance", func(ps []Pattern, _ map[string]string) []Pattern { ps[0].AvoidWhen = nil; return ps }, "avoid-when"},
		{"bad related", func(ps []Pattern, _ map[string]string) []Pattern { ps[0].Related = []string{"nope"}; return ps }, "related id"},
		{"self related", func(ps []Pattern, _ map[string]string) []Pattern { ps[0].Related = []string{"one"}; return ps }, "related id"},
		{"upper-case tag", func(ps []Pattern, _ map[string]string) []Pattern { ps[0].Tags = []string{"IO"}; return ps }, "lower case"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := map[string]string{}
			for k, v := range files {
				f[k] = v
			}
			ps := tc.edit([]Pattern{validPattern("one"), validPattern("two")}, f)
			c, err := New("v", ps, f)
			if err == nil || c != nil {
				t.Fatalf("New accepted a bad catalog")
			}
			if !strings.Contains(err.Error(), tc.wants) {
				t.Errorf("error %q does not mention %q", err, tc.wants)
			}
		})
	}
	if _, err := New("v", []Pattern{validPattern("one"), validPattern("two")}, files); err != nil {
		t.Fatalf("valid catalog rejected: %v", err)
	}
}

func TestNewCopiesInput(t *testing.T) {
	ps := []Pattern{validPattern("one")}
	c, err := New("v", ps, map[string]string{"one.go": "package main"})
	if err != nil {
		t.Fatal(err)
	}
	ps[0].Tags[0] = "changed"
	ps[0].Title = "changed"
	p, _ := c.Get("one")
	if p.Tags[0] != "io" || p.Title != "T one" {
		t.Errorf("catalog shares memory with its input: %+v", p)
	}
}

func TestParseEnums(t *testing.T) {
	for _, c := range Categories() {
		if got, ok := ParseCategory(string(c)); !ok || got != c {
			t.Errorf("ParseCategory(%q) = %q, %v", c, got, ok)
		}
	}
	for _, s := range []string{"", "Concurrency", "misc"} {
		if _, ok := ParseCategory(s); ok {
			t.Errorf("ParseCategory(%q) accepted", s)
		}
		if _, ok := ParseDifficulty(s); ok {
			t.Errorf("ParseDifficulty(%q) accepted", s)
		}
	}
	if d, ok := ParseDifficulty("advanced"); !ok || d != Advanced {
		t.Errorf("ParseDifficulty(advanced) = %q, %v", d, ok)
	}
}
