package catalog

import (
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// NotFoundError says that a path names nothing, how far it resolved, and which
// existing names are closest to the part that failed.
type NotFoundError struct {
	Path    string   // the path asked for
	Kind    string   // what the failing segment was expected to be ("project", "package", …)
	Name    string   // the failing segment
	Parent  string   // the deepest path that exists ("" for the root)
	Closest []string // paths of the closest existing names, best first
	// Far says none of Closest is close to Name: they are the first names at
	// that level.
	Far      bool
	Expected []string // every kind allowed at that level
	// Skipped, when set, says why the file that would have made the object at
	// Parent/Name was skipped when the catalog loaded (it does not parse, say).
	Skipped string
	// LookAlike, when set, says that Name differs from an existing name (the
	// first of Closest) only by characters that look alike (LookAlike).
	LookAlike string
	// SkippedNear lists, for a name close to that of an object whose file was
	// skipped when the catalog loaded (a model that does not parse), why each
	// was skipped: "retail/shop/staff (retail/shop/staff.sql: skipped: …)".
	SkippedNear []string
	// NoneThere, when set, says that Parent holds no object of Kind at all
	// ("the notebook retail/shop/review has no sources; it holds cells"), so
	// Closest is empty (ResolveAs).
	NoneThere string
	// TooDeep, when set, says that Path has more segments than an object of
	// Kind (ResolveAs): "a model's path is project/package/model (3
	// segments); this one has 4". Closest then holds objects of Kind only.
	TooDeep string
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	where := "the catalog"
	if e.Parent != "" {
		where = fmt.Sprintf("%q", e.Parent)
	}
	if e.TooDeep != "" {
		fmt.Fprintf(&b, "no %s at %q: %s", e.Kind, e.Path, e.TooDeep)
		switch {
		case len(e.Closest) > 0 && e.Far:
			fmt.Fprintf(&b, "; the %s in %s: %s", plural(e.Kind), where, strings.Join(e.Closest, ", "))
		case len(e.Closest) > 0:
			fmt.Fprintf(&b, "; closest: %s", strings.Join(e.Closest, ", "))
		}
		b.WriteString(". Call list_catalog to see what exists, or search_catalog to find by name, column or description.")
		return b.String()
	}
	fmt.Fprintf(&b, "no %s named %q in %s", e.Kind, e.Name, where)
	if e.LookAlike != "" {
		fmt.Fprintf(&b, " (%s)", e.LookAlike)
	}
	if e.Skipped != "" {
		fmt.Fprintf(&b, ": its file was skipped when the catalog loaded (%s); fix the file and it is picked up", e.Skipped)
	}
	if len(e.SkippedNear) > 0 {
		fmt.Fprintf(&b, "; close to it, skipped when the catalog loaded (fix the file and it is picked up): %s", strings.Join(e.SkippedNear, "; "))
	}
	switch {
	case len(e.Closest) > 0 && e.Far:
		fmt.Fprintf(&b, "; no name there is close to it; the first there: %s", strings.Join(e.Closest, ", "))
	case len(e.Closest) > 0:
		fmt.Fprintf(&b, "; closest: %s", strings.Join(e.Closest, ", "))
	case e.NoneThere != "":
		fmt.Fprintf(&b, "; %s", e.NoneThere)
	case e.Parent == "":
		b.WriteString("; the catalog has no projects")
	case len(e.SkippedNear) > 0 || e.Skipped != "":
		fmt.Fprintf(&b, "; %s has nothing else", e.Parent)
	default:
		fmt.Fprintf(&b, "; %s has no children", e.Parent)
	}
	b.WriteString(". Call list_catalog to see what exists, or search_catalog to find by name, column or description.")
	return b.String()
}

// kindsBelow lists what may appear as a child of an object of kind k.
func kindsBelow(k Kind) string {
	switch k {
	case "":
		return "project"
	case KindProject:
		return "package"
	case KindPackage:
		return "model or notebook"
	case KindModel:
		return "source or query"
	case KindNotebook:
		return "query (cell)"
	}
	return "child"
}

// Resolve returns the object at path, or a *NotFoundError naming the closest
// existing names at the level that failed.
//
// A path is read as its non-empty segments: slashes before, after or between
// them count once ("/retail//shop/" is "retail/shop"); a segment "." or ".." is
// refused (paths are always from the top, project first).
func (c *Catalog) Resolve(path string) (*Entry, error) {
	segs := Segments(path)
	if len(segs) == 0 {
		return nil, errors.New("empty path: give project, project/package, project/package/model or a longer path")
	}
	for i, s := range segs {
		if s == "." || s == ".." {
			return nil, fmt.Errorf("path %q: the segment %q means nothing here: a path names objects from the top down (project/package/model/…), with no . or ..; give %s for the object above", cutEcho(path), s, cmp.Or(strings.Join(segs[:max(i-1, 0)], "/"), "no path (list_catalog) or a project"))
		}
	}
	path = strings.Join(segs, "/")
	if e := c.byPath[path]; e != nil {
		return e, nil
	}
	children := c.Roots()
	var parent *Entry
	for _, s := range segs {
		var next *Entry
		for _, ch := range children {
			if ch.Name == s {
				next = ch
				break
			}
		}
		if next == nil {
			var kind Kind
			parentPath := ""
			if parent != nil {
				kind, parentPath = parent.Kind, parent.Path
			}
			names := make([]string, len(children))
			for j, ch := range children {
				names[j] = ch.Name
			}
			closest, far := Near(s, names, parentPath, 5)
			if parent == nil {
				// A path from lower down ("orders", "sales/orders"): the objects
				// whose paths end with it come first.
				if ends := c.endingWith(path, 5); len(ends) > 0 {
					closest, far = ends, false
				}
			}
			// A name that only looks like an existing one ("оrders" with a
			// Cyrillic "о") is told so, and that name comes first.
			match, lookAlike := LookAlike(s, names)
			if match != "" {
				closest, far = FirstOf(strings.TrimPrefix(parentPath+"/"+match, "/"), closest, far)
			}
			skipped := c.skipped[strings.TrimPrefix(parentPath+"/"+s, "/")]
			var near []string
			if skipped == "" {
				near = c.skippedNear(parentPath, s, 3)
			}
			return nil, &NotFoundError{Path: path, Kind: kindsBelow(kind), Name: s, Parent: parentPath, Closest: closest, Far: far, Skipped: skipped, LookAlike: lookAlike, SkippedNear: near}
		}
		parent, children = next, next.Children
	}
	return nil, &NotFoundError{Path: path, Kind: "object", Name: path}
}

// ResolveAs is Resolve for an object that should be of kind k (a resource
// URI, catalog://KIND/PATH, names its kind). When path has as many segments as
// an object of kind k and only its last names nothing, below a project (at the
// top, Resolve's answer: every name there is a project's, and a path from lower
// down gets the objects whose paths end with it), the closest names
// offered are those of the objects of kind k there, and the error names that
// kind: an unknown source gets the model's closest sources (not its named
// queries), an unknown model the package's closest models (not its
// notebooks), an unknown cell the closest cells of its notebook. A parent that
// holds no object of kind k (a notebook has no sources) is said to
// (NotFoundError.NoneThere). A path with more segments than an object of kind
// k, whose first segments name an object but whose further ones name nothing,
// is said to be too deep for one (NotFoundError.TooDeep), and offered the
// objects of kind k closest to its first segments, never a deeper object (a
// model URI is not offered a notebook's cell). Any other error is Resolve's.
func (c *Catalog) ResolveAs(path string, k Kind) (*Entry, error) {
	e, err := c.Resolve(path)
	var nf *NotFoundError
	if err == nil || !errors.As(err, &nf) {
		return e, err
	}
	segs := Segments(nf.Path)
	if d := kindDepth(k); d > 0 && len(segs) > d && len(Segments(nf.Parent)) >= d {
		return nil, c.tooDeep(nf.Path, segs, k)
	}
	parent := c.byPath[nf.Parent]
	if len(segs) != kindDepth(k) || len(Segments(nf.Parent)) != len(segs)-1 || parent == nil {
		return e, err
	}
	children, what, under := parent.Children, fmt.Sprintf("the %s %s", parent.Kind, parent.Path), parent.Kind
	var names, others []string
	for _, ch := range children {
		if ch.Kind == k {
			names = append(names, ch.Name)
		} else if o := plural(kindLabel(ch.Kind, under)); !slices.Contains(others, o) {
			others = append(others, o)
		}
	}
	out := *nf
	out.Kind = kindLabel(k, under)
	out.Closest, out.Far = Near(nf.Name, names, nf.Parent, 5)
	out.LookAlike = ""
	if match, note := LookAlike(nf.Name, names); match != "" {
		out.Closest, out.Far = FirstOf(strings.TrimPrefix(nf.Parent+"/"+match, "/"), out.Closest, out.Far)
		out.LookAlike = note
	}
	if len(names) == 0 && len(others) > 0 {
		out.NoneThere = fmt.Sprintf("%s has no %s; it holds %s", what, plural(out.Kind), joinAnd(others))
	}
	return nil, &out
}

// tooDeep is ResolveAs's error for a path of more segments than an object of
// kind k has: the object of kind k its first segments name, else the closest
// objects of kind k beside where it would be.
func (c *Catalog) tooDeep(path string, segs []string, k Kind) *NotFoundError {
	d := kindDepth(k)
	parentPath := strings.Join(segs[:d-1], "/")
	parent := c.byPath[parentPath]
	var under Kind
	if parent != nil {
		under = parent.Kind
	}
	label := kindLabel(k, under)
	shape := []string{"project", "package", "model", label}[:d]
	if k == KindNotebook || label == "cell" {
		shape[2] = "notebook"
	}
	segments := "segments"
	if d == 1 {
		segments = "segment"
	}
	out := &NotFoundError{Path: path, Kind: label, Name: path, Parent: parentPath,
		TooDeep: fmt.Sprintf("a %s's path is %s (%d %s); this one has %d", label, strings.Join(shape, "/"), d, segments, len(segs))}
	prefix := strings.Join(segs[:d], "/")
	if e := c.byPath[prefix]; e != nil && e.Kind == k {
		out.Closest = []string{prefix}
		return out
	}
	children := c.Roots()
	if d > 1 {
		if parent == nil {
			out.Parent = ""
			return out
		}
		children = parent.Children
	}
	var names []string
	for _, ch := range children {
		if ch.Kind == k {
			names = append(names, ch.Name)
		}
	}
	out.Closest, out.Far = Near(segs[d-1], names, parentPath, 5)
	return out
}

// kindDepth is how many segments the path of an object of kind k has.
func kindDepth(k Kind) int {
	switch k {
	case KindProject:
		return 1
	case KindPackage:
		return 2
	case KindModel, KindNotebook:
		return 3
	case KindSource, KindQuery:
		return 4
	}
	return 0
}

// kindLabel names the kind k of an object under one of kind parent: a query
// of a notebook is a "cell".
func kindLabel(k, parent Kind) string {
	if k == KindQuery && parent == KindNotebook {
		return "cell"
	}
	return string(k)
}

// plural is the plural of a kind's name ("query" → "queries").
func plural(kind string) string {
	if s, ok := strings.CutSuffix(kind, "y"); ok {
		return s + "ies"
	}
	return kind + "s"
}

// Segments returns the non-empty segments of path, spaces around it ignored:
// "/retail//shop/" is ["retail", "shop"].
func Segments(path string) []string {
	return strings.FieldsFunc(strings.TrimSpace(path), func(r rune) bool { return r == '/' })
}

// cutEcho is s cut to 200 bytes on a character boundary, for echoing a caller's
// text in a message.
func cutEcho(s string) string {
	if len(s) <= 200 {
		return s
	}
	return cutBytes(s, 200) + "…"
}

// skippedNear returns, for the name s under parent ("" for the top), the paths
// of at most n objects whose files were skipped when the catalog loaded and
// whose names are close to s (Closest), each with why it was skipped.
func (c *Catalog) skippedNear(parent, s string, n int) []string {
	prefix := parent + "/"
	if parent == "" {
		prefix = ""
	}
	var names []string
	for p := range c.skipped {
		if rest, ok := strings.CutPrefix(p, prefix); ok && rest != "" && !strings.Contains(rest, "/") {
			names = append(names, rest)
		}
	}
	slices.Sort(names)
	var out []string
	for _, name := range Closest(s, names, n) {
		out = append(out, fmt.Sprintf("%s (%s)", prefix+name, c.skipped[prefix+name]))
	}
	return out
}

// Near returns the paths (under parent, "" for the root) of the at most n names
// closest to name, best first; when none is close, those of the first five names,
// with far set.
func Near(name string, names []string, parent string, n int) (paths []string, far bool) {
	at := func(n string) string { return strings.TrimPrefix(parent+"/"+n, "/") }
	for _, c := range Closest(name, names, n) {
		paths = append(paths, at(c))
	}
	if len(paths) > 0 {
		return paths, false
	}
	for _, c := range names[:min(len(names), 5)] {
		paths = append(paths, at(c))
	}
	return paths, len(paths) > 0
}

// FirstOf returns paths (as Near returned them, with far) with p first: p is
// close whatever the others are, so when they were far (the first names
// there), p alone is returned.
func FirstOf(p string, paths []string, far bool) ([]string, bool) {
	if far {
		return []string{p}, false
	}
	out := []string{p}
	for _, q := range paths {
		if q != p {
			out = append(out, q)
		}
	}
	return out, false
}

// endingWith returns the paths, at most n, of the objects whose path ends with
// "/"+path, compared without case.
func (c *Catalog) endingWith(path string, n int) []string {
	suffix := "/" + strings.ToLower(path)
	var out []string
	for _, e := range c.entries {
		if len(out) == n {
			break
		}
		if strings.HasSuffix(strings.ToLower(e.Path), suffix) {
			out = append(out, e.Path)
		}
	}
	return out
}

// Page is one page of a listing.
type Page struct {
	Items      []*Entry
	NextCursor string
}

// List returns one page of the children of path ("" lists projects). The cursor is
// the opaque nextCursor of the previous page; it names the last item seen and the
// listing it belongs to, so any server reading the same catalog continues it the
// same way, and a cursor given with another path is refused (it would page
// through the wrong listing without a word).
func (c *Catalog) List(path, cursor string, size int) (*Page, error) {
	var items []*Entry
	listing := "" // the listing's own path, as the catalog spells it
	if len(Segments(path)) == 0 {
		items = c.Roots()
	} else {
		e, err := c.Resolve(path)
		if err != nil {
			return nil, err
		}
		items, listing = e.Children, e.Path
	}
	start := 0
	if cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(cursor)
		rest, ok := strings.CutPrefix(string(raw), "after:")
		after, of, tagged := strings.Cut(rest, "\x00in:")
		if err != nil || !ok || !tagged {
			return nil, errors.New("invalid cursor: pass the nextCursor of the previous page unchanged, or no cursor for the first page")
		}
		if of != listing {
			where := "the projects (no path)"
			if of != "" {
				where = of
			}
			return nil, fmt.Errorf("this cursor continues the listing of %s, not of %s: pass it with that path, or no cursor for the first page of this one", where, cmp.Or(listing, "the projects"))
		}
		start = sort.Search(len(items), func(i int) bool { return CompareNames(items[i].Name, after) > 0 })
	}
	end := min(start+size, len(items))
	p := &Page{Items: items[start:end]}
	if end < len(items) {
		p.NextCursor = base64.RawURLEncoding.EncodeToString([]byte("after:" + items[end-1].Name + "\x00in:" + listing))
	}
	return p, nil
}

// Hit is one search result.
type Hit struct {
	Entry *Entry
	Score float64
	Match string // what matched: "name", "column NAME", "description"
}

// Search ranks objects by how well their names, columns and descriptions match the
// words of q: an exact name beats a name prefix, which beats a name substring, a
// column or a named query's parameter, then a description, then a parameter's
// description or a notebook's prose. Every word must match somewhere. Ties go by path.
// Words and the text they are matched against are compared folded (Fold): case,
// accents and compatibility forms do not count.
func (c *Catalog) Search(q string, limit int) []Hit {
	hits, _ := c.SearchCount(q, limit)
	return hits
}

// SearchCount is Search that also says how many objects match in all: more than
// len(hits) when limit cut them.
func (c *Catalog) SearchCount(q string, limit int) (hits []Hit, total int) {
	return c.SearchWords(SplitWords(Fold(q)), limit)
}

// SearchWords is SearchCount for a query already folded and split into words
// (SplitWords(Fold(q))), for a caller that folded it to check it.
func (c *Catalog) SearchWords(words []string, limit int) (hits []Hit, total int) {
	if len(words) == 0 || limit <= 0 {
		return nil, 0
	}
	folded := c.foldedIndex()
	for i, e := range c.entries {
		f := &folded[i]
		total := 0.0
		match := ""
		ok := true
		for _, w := range words {
			best, what := f.score(e, w)
			if best == 0 {
				ok = false
				break
			}
			total += best
			if match == "" {
				match = what
			}
		}
		if !ok {
			continue
		}
		// Shallower objects first among equals: a project beats a deep source.
		total -= float64(strings.Count(e.Path, "/")) * 0.01
		hits = append(hits, Hit{Entry: e, Score: total, Match: match})
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return ComparePaths(a.Entry.Path, b.Entry.Path)
	})
	total = len(hits)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, total
}

// Unmatched is a word of a search that matches no object's name, column or
// description, with the existing names closest to it.
type Unmatched struct {
	Word    string
	Closest []NameMatch // best first
}

// NameMatch is an existing name and some of the objects that bear it: objects so
// named first, then sources with a column so named.
type NameMatch struct {
	Name    string
	Entries []*Entry
	Column  []bool // Column[i]: Entries[i] has a column so named (rather than the name)
}

// Unmatched returns the words of q that match nothing at all in the catalog, in
// the order of q, each with up to n of the closest names of objects (projects,
// packages, models, notebooks, sources, queries) and columns, compared folded
// (Closest), and up to perName of the objects bearing each name. A search that
// found nothing while every word matches something has no unmatched word: no
// object holds all of them. At most most words are returned (looking for close
// names is the costly part); more counts the further words that match nothing.
func (c *Catalog) Unmatched(q string, n, perName, most int) (out []Unmatched, more int) {
	folded := c.foldedIndex()
	var names []string
	var bearers map[string]*NameMatch
	seen := map[string]bool{}
	for _, word := range strings.Fields(q) {
		w := Fold(word)
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		found := false
		for i, e := range c.entries {
			if best, _ := folded[i].score(e, w); best > 0 {
				found = true
				break
			}
		}
		if found {
			continue
		}
		if len(out) >= most {
			more++
			continue
		}
		if bearers == nil {
			bearers = map[string]*NameMatch{}
			add := func(name string, e *Entry, column bool) {
				m := bearers[name]
				if m == nil {
					m = &NameMatch{Name: name}
					bearers[name] = m
					names = append(names, name)
				}
				if len(m.Entries) < perName {
					m.Entries = append(m.Entries, e)
					m.Column = append(m.Column, column)
				}
			}
			for _, e := range c.entries {
				add(e.Name, e, false)
			}
			for _, e := range c.entries {
				for _, col := range e.Columns {
					add(col, e, true)
				}
			}
		}
		u := Unmatched{Word: word}
		for _, name := range Closest(word, names, n) {
			u.Closest = append(u.Closest, *bearers[name])
		}
		out = append(out, u)
	}
	return out, more
}

// score says how well the folded word w matches the entry e (whose folded text
// f is): 10 its exact name, 6 a name prefix, 4 a name substring, 3 a column's
// exact name, 2 a column substring, 1 the description, 0 nothing; and what
// matched.
func (f *foldedEntry) score(e *Entry, w string) (float64, string) {
	best, what := 0.0, ""
	switch {
	case f.name == w:
		return 10, "name"
	case strings.HasPrefix(f.name, w):
		return 6, "name"
	case strings.Contains(f.name, w):
		return 4, "name"
	}
	for j, col := range f.cols {
		if col == w {
			return 3, "column " + e.Columns[j]
		} else if best < 2 && strings.Contains(col, w) {
			best, what = 2, "column "+e.Columns[j]
		}
	}
	for j, p := range f.params {
		if p == w {
			return 3, "parameter " + e.Query.Params[j].Name
		} else if best < 2 && strings.Contains(p, w) {
			best, what = 2, "parameter "+e.Query.Params[j].Name
		}
	}
	if best == 0 && strings.Contains(f.desc, w) {
		best, what = 1, "description"
	}
	if best == 0 && strings.Contains(f.more, w) {
		best, what = 0.5, "parameter description"
		if e.Kind == KindNotebook {
			best, what = 0.5, "text"
		}
	}
	return best, what
}

// maxSearchedProse is how much of a notebook's prose (in bytes) search reads.
const maxSearchedProse = 64 << 10

// foldedIndex returns the folded text of every entry, in the order of entries,
// folding it at the first call.
func (c *Catalog) foldedIndex() []foldedEntry {
	c.foldOnce.Do(func() {
		c.folded = make([]foldedEntry, len(c.entries))
		for i, e := range c.entries {
			f := foldedEntry{name: Fold(e.Name), desc: Fold(e.Description), cols: make([]string, len(e.Columns))}
			for j, col := range e.Columns {
				f.cols[j] = Fold(col)
			}
			switch {
			case e.Kind == KindQuery && e.Query != nil:
				var descs []string
				for _, p := range e.Query.Params {
					f.params = append(f.params, Fold(p.Name))
					descs = append(descs, p.Description)
				}
				f.more = Fold(strings.Join(descs, "\n"))
			case e.Kind == KindNotebook && e.Notebook != nil:
				f.more = Fold(cutBytes(NotebookProse(e.Notebook.Markdown), maxSearchedProse))
			}
			c.folded[i] = f
		}
	})
	return c.folded
}

// maxClosestInput is the longest string (in characters) Closest looks for
// names close to: the comparison's cost grows with its length, and a caller
// may have written it (a path in 4 MB of SQL).
const maxClosestInput = 256

// maxClosestDistance is the furthest edit distance Closest reports, whatever
// the strings' lengths.
const maxClosestDistance = 16

// closeLimit is the furthest edit distance at which a name counts as close to
// a string of n characters: one edit in three characters, rounded (a typo or a
// swap of two letters in a short name, "stuff" for "staff", "salse" for
// "sales"), at least 1 and at most maxClosestDistance. "nope" is not close to
// "top_n" (3 edits), nor ".." to "hr" (2).
func closeLimit(n int) int {
	return min(max(1, (n+1)/3), maxClosestDistance)
}

// Closest returns up to n of names nearest to s by edit distance, compared folded
// (Fold: regardless of case, accents and compatibility forms), skipping any
// further than closeLimit of s's length, best first; names that contain s or
// that s contains count as distance 1 when the shorter of the two has 3
// characters or more (a single letter is in most names), and an abbreviation of
// the other (abbreviates: "qty" and "quantity") counts whatever its distance. A string
// s longer than maxClosestInput characters has no close names. The work is
// O(len(s)·maxClosestDistance) per name, rows reused: only distances under the
// limit are computed.
func Closest(s string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	out := []string{}
	if utf8.RuneCountInString(s) > maxClosestInput {
		return out
	}
	fs := Fold(s)
	ls := []rune(fs)
	if len(ls) > maxClosestInput {
		return out
	}
	var cs []cand
	var dist runeDistancer
	limit := closeLimit(len(ls))
	for _, name := range names {
		fn := Fold(name)
		ln := []rune(fn)
		var d int
		switch {
		case fs == fn:
			d = 0
		case min(len(ls), len(ln)) >= 3 && (strings.Contains(fn, fs) || strings.Contains(fs, fn)):
			d = 1
		case abbreviates(ls, ln) || abbreviates(ln, ls):
			// Its edit distance (only letters left out), past the limit.
			d = abs(len(ls) - len(ln))
		default:
			var ok bool
			if d, ok = dist.bounded(ls, ln, limit); !ok {
				continue
			}
		}
		cs = append(cs, cand{name, d})
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].name)
	}
	return out
}

// abbreviates reports whether short abbreviates long: at least 3 characters,
// the same first one, and every character in long's order ("qty" for
// "quantity", "cust_id" for "customer_id", "amt" for "amount").
func abbreviates(short, long []rune) bool {
	if len(short) < 3 || len(short) >= len(long) || short[0] != long[0] {
		return false
	}
	i := 0
	for _, r := range long {
		if i < len(short) && r == short[i] {
			i++
		}
	}
	return i == len(short)
}

// runeDistancer computes the edit distance between two strings (in characters:
// insertions, deletions, substitutions, and swaps of two neighbours, each one
// edit — the optimal string alignment distance, so "shpo" is one edit from
// "shop") when it is at most a limit, reusing its rows from one call to the
// next. Its zero value is ready; it is not safe for concurrent use.
type runeDistancer struct {
	prev2, prev, cur []int
}

// bounded returns the edit distance between a and b when it is at most limit;
// ok is false when it is more. Only the cells within limit of the diagonal are
// computed (the others are past limit), and it gives up as soon as a whole row
// is past limit: O(len(a)·limit).
func (dd *runeDistancer) bounded(a, b []rune, limit int) (d int, ok bool) {
	if abs(len(a)-len(b)) > limit {
		return 0, false
	}
	far := limit + 1
	if cap(dd.prev) < len(b)+1 {
		dd.prev2, dd.prev, dd.cur = make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev2, prev, cur := dd.prev2[:len(b)+1], dd.prev[:len(b)+1], dd.cur[:len(b)+1]
	for j := range prev {
		prev[j] = min(j, far)
		prev2[j] = far
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		cur[0] = min(i, far)
		if lo > 1 {
			cur[lo-1] = far
		}
		low := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, far)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			low = min(low, v)
		}
		if hi < len(b) {
			cur[hi+1] = far
		}
		if low > limit {
			return 0, false
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if prev[len(b)] > limit {
		return 0, false
	}
	return prev[len(b)], true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
