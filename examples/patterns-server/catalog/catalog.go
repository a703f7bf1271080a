package catalog

import (
	"embed"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Category groups patterns by the problem area they address.
type Category string

// The categories of the catalog.
const (
	Concurrency Category = "concurrency"
	Errors      Category = "errors"
	Testing     Category = "testing"
	HTTP        Category = "http"
	Generics    Category = "generics"
	IO          Category = "io"
	Design      Category = "design"
	Performance Category = "performance"
)

// Categories lists every category in display order.
func Categories() []Category {
	return []Category{Concurrency, Errors, Testing, HTTP, Generics, IO, Design, Performance}
}

// Difficulty says how much Go experience a pattern assumes.
type Difficulty string

// The difficulty levels, from easiest to hardest.
const (
	Beginner     Difficulty = "beginner"
	Intermediate Difficulty = "intermediate"
	Advanced     Difficulty = "advanced"
)

// Difficulties lists every difficulty from easiest to hardest.
func Difficulties() []Difficulty { return []Difficulty{Beginner, Intermediate, Advanced} }

// ParseCategory returns the category named s (exact, lower case) and whether it exists.
func ParseCategory(s string) (Category, bool) {
	c := Category(s)
	return c, slices.Contains(Categories(), c)
}

// ParseDifficulty returns the difficulty named s (exact, lower case) and whether it exists.
func ParseDifficulty(s string) (Difficulty, bool) {
	d := Difficulty(s)
	return d, slices.Contains(Difficulties(), d)
}

// Section is a titled block of prose about a pattern.
type Section struct {
	Heading string
	Body    string
}

// Example is a complete, compilable Go source file illustrating a pattern.
type Example struct {
	Title    string
	Language string // always "go"
	File     string // file name inside the catalog, e.g. "worker-pool.go"
	Code     string
}

// Pattern is one catalog entry. Patterns returned by a Catalog are shared and
// must not be modified.
type Pattern struct {
	ID          string
	Title       string
	Category    Category
	Difficulty  Difficulty
	Tags        []string
	Description string
	UseWhen     []string
	AvoidWhen   []string
	Sections    []Section
	Related     []string
	Examples    []Example
}

// Catalog is an immutable, validated set of patterns. It is safe for concurrent use.
type Catalog struct {
	version  string
	patterns []*Pattern // sorted by ID
	byID     map[string]*Pattern
	index    []indexEntry // parallel to patterns
}

// Version is the catalog's content version, used in provenance.
func (c *Catalog) Version() string { return c.version }

// Len is the number of patterns.
func (c *Catalog) Len() int { return len(c.patterns) }

// All returns every pattern ordered by ID. The slice is a copy; the patterns are shared.
func (c *Catalog) All() []*Pattern { return slices.Clone(c.patterns) }

// Get returns the pattern with the given id.
func (c *Catalog) Get(id string) (*Pattern, bool) {
	p, ok := c.byID[id]
	return p, ok
}

// CatalogVersion is the version of the built-in catalog content.
const CatalogVersion = "2025.1"

//go:embed testdata/examples/*.go
var exampleFS embed.FS

var (
	defaultOnce sync.Once
	defaultCat  *Catalog
	defaultErr  error
)

// Default returns the built-in catalog, loaded and validated once.
func Default() (*Catalog, error) {
	defaultOnce.Do(func() {
		files := map[string]string{}
		entries, err := exampleFS.ReadDir("testdata/examples")
		if err != nil {
			defaultErr = err
			return
		}
		for _, e := range entries {
			b, err := exampleFS.ReadFile("testdata/examples/" + e.Name())
			if err != nil {
				defaultErr = err
				return
			}
			files[e.Name()] = string(b)
		}
		defaultCat, defaultErr = New(CatalogVersion, builtinPatterns(), files)
	})
	return defaultCat, defaultErr
}

var idRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// New validates patterns and attaches to each the example file named "<id>.go"
// from files (file name → source). Every pattern needs exactly one example file
// and every file must belong to a pattern. The patterns are copied.
func New(version string, patterns []Pattern, files map[string]string) (*Catalog, error) {
	c := &Catalog{version: version, byID: make(map[string]*Pattern, len(patterns))}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	used := map[string]bool{}
	for i := range patterns {
		p := patterns[i] // copy
		where := fmt.Sprintf("pattern %d (%q)", i, p.ID)
		if !idRE.MatchString(p.ID) {
			bad("%s: id must be lower-case words joined by '-'", where)
		}
		if _, dup := c.byID[p.ID]; dup {
			bad("%s: duplicate id", where)
		}
		if strings.TrimSpace(p.Title) == "" || strings.TrimSpace(p.Description) == "" {
			bad("%s: title and description are required", where)
		}
		if _, ok := ParseCategory(string(p.Category)); !ok {
			bad("%s: unknown category %q", where, p.Category)
		}
		if _, ok := ParseDifficulty(string(p.Difficulty)); !ok {
			bad("%s: unknown difficulty %q", where, p.Difficulty)
		}
		if len(p.Tags) == 0 || len(p.UseWhen) == 0 || len(p.AvoidWhen) == 0 || len(p.Sections) == 0 {
			bad("%s: tags, use-when, avoid-when and sections are required", where)
		}
		for _, t := range p.Tags {
			if t != strings.ToLower(strings.TrimSpace(t)) || t == "" {
				bad("%s: tag %q must be lower case and trimmed", where, t)
			}
		}
		name := p.ID + ".go"
		code, ok := files[name]
		if !ok {
			bad("%s: no example file %s", where, name)
		}
		used[name] = true
		p.Tags = slices.Clone(p.Tags)
		p.UseWhen = slices.Clone(p.UseWhen)
		p.AvoidWhen = slices.Clone(p.AvoidWhen)
		p.Sections = slices.Clone(p.Sections)
		p.Related = slices.Clone(p.Related)
		p.Examples = []Example{{Title: p.Title + " in practice", Language: "go", File: name, Code: code}}
		c.byID[p.ID] = &p
		c.patterns = append(c.patterns, &p)
	}
	for _, p := range c.patterns {
		for _, r := range p.Related {
			if _, ok := c.byID[r]; !ok || r == p.ID {
				bad("pattern %q: related id %q is not another pattern", p.ID, r)
			}
		}
	}
	for name := range files {
		if !used[name] {
			bad("example file %s belongs to no pattern", name)
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("catalog: %d problem(s): %s", len(problems), strings.Join(problems, "; "))
	}
	sort.Slice(c.patterns, func(i, j int) bool { return c.patterns[i].ID < c.patterns[j].ID })
	c.index = make([]indexEntry, len(c.patterns))
	for i, p := range c.patterns {
		c.index[i] = newIndexEntry(p)
	}
	return c, nil
}
