package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// This file turns engine errors that speak of things the caller did not write
// (DuckDB's $1 for a ?, a relative path resolved from the server's working
// directory, a time limit on SQL the caller cannot change) into errors about what
// the caller did write, with what to try.

// queryTimeoutError is a named query, a notebook cell, or a source read whole
// (execute_query with a source's path and no sql) that ran out of time: the
// caller wrote no SQL, so "aggregate or filter" must say how.
type queryTimeoutError struct {
	to     *engine.TimeoutError
	path   string // the query's or the source's path, for describe
	model  string // the model's path, for ad-hoc SQL
	source string // a source read whole: its name
	params []catalog.Param
	given  string // the call's parameter values, as JSON
	cell   bool
}

func (e *queryTimeoutError) Unwrap() error { return e.to }

// what names what ran out of time: "the named query p/k/m/q", "the notebook cell
// p/k/n/cell-1", "reading the source p/k/m/s".
func (e *queryTimeoutError) what() string {
	switch {
	case e.source != "":
		return "reading the source " + e.path
	case e.cell:
		return "the notebook cell " + e.path
	}
	return "the named query " + e.path
}

func (e *queryTimeoutError) Error() string {
	if e.to.Running {
		return fmt.Sprintf("%s ran longer than the %s limit; the engine cannot stop it inside the calculation it is in, so it finishes that in the background", e.what(), e.to.Limit)
	}
	return fmt.Sprintf("%s ran longer than the %s limit and was stopped", e.what(), e.to.Limit)
}

// hint says what to try: values that narrow a named query, or SQL of the
// caller's own that reads less.
func (e *queryTimeoutError) hint() string { return e.hintFor(false) }

// hintFor is hint for a query that ran out of time, or (memory) of the
// model's memory: the same things to try, which the caller can do (a named
// query's SQL is not theirs to aggregate or filter).
func (e *queryTimeoutError) hintFor(memory bool) string {
	over, again := "takes longer than the limit", "runs out of time again"
	if memory {
		over, again = "needs more memory than the model may use", "runs out of memory again"
	}
	if e.source != "" {
		return fmt.Sprintf("Reading the whole source %s: run sql against the model %s that reads part of it — SELECT … FROM %s WHERE a condition on its columns, or an aggregate (GROUP BY with count/sum/avg); describe %s shows its columns.", over, e.model, quoteIdent(e.source), e.path)
	}
	what := "named query"
	if e.cell {
		what = "notebook cell"
	}
	adhoc := fmt.Sprintf("run its SQL (describe %s shows it) as sql against the model %s with a narrower WHERE filter, an aggregate (GROUP BY with count/sum/avg) or a LIMIT", e.path, e.model)
	if len(e.params) == 0 {
		return fmt.Sprintf("The %s takes no parameters, so calling it again %s: %s.", what, again, adhoc)
	}
	var ps []string
	for _, p := range e.params {
		d := p.Name + " " + p.Type
		if p.Description != "" {
			d += " (" + p.Description + ")"
		}
		ps = append(ps, d)
	}
	return fmt.Sprintf("Call it again with parameter values that select less (a shorter range, a narrower filter) than this call's %s — its parameters: %s; or %s.", e.given, strings.Join(ps, ", "), adhoc)
}

// placeholders returns the ? placeholders of sqlText outside strings ('…' and
// dollar-quoted $$…$$, $tag$…$tag$), quoted names and comments (-- and /* */,
// which nest), as DuckDB numbers them ("?" is the next number, "?3" is 3),
// with the character offset (1-based) of each.
func placeholders(sqlText string) (nums, offsets []int) {
	next := 1
	for i, chars := 0, 0; i < len(sqlText); {
		c := sqlText[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(sqlText) {
				if sqlText[j] == c {
					if j+1 < len(sqlText) && sqlText[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			chars += utf8.RuneCountInString(sqlText[i:min(j+1, len(sqlText))])
			i = j + 1
			continue
		case c == '-' && strings.HasPrefix(sqlText[i:], "--"):
			j := strings.IndexByte(sqlText[i:], '\n')
			if j < 0 {
				j = len(sqlText) - i
			}
			chars += utf8.RuneCountInString(sqlText[i : i+j])
			i += j
			continue
		case c == '/' && strings.HasPrefix(sqlText[i:], "/*"):
			// Comments nest: /* a /* b */ c */ is one.
			end, depth := len(sqlText), 0
			for j := i; j+1 < len(sqlText); {
				switch sqlText[j : j+2] {
				case "/*":
					depth++
					j += 2
				case "*/":
					depth--
					j += 2
					if depth == 0 {
						end = j
						j = len(sqlText)
					}
				default:
					j++
				}
			}
			chars += utf8.RuneCountInString(sqlText[i:end])
			i = end
			continue
		case c == '$' && (i == 0 || !identByte(sqlText[i-1])):
			// A dollar-quoted string, $$…$$ or $tag$…$tag$ (a $ inside a name,
			// a$b, starts none; $1 is a parameter).
			j := i + 1
			if j < len(sqlText) && sqlText[j] != '$' && identByte(sqlText[j]) && !isDigit(sqlText[j]) {
				for j < len(sqlText) && sqlText[j] != '$' && identByte(sqlText[j]) {
					j++
				}
			}
			if j >= len(sqlText) || sqlText[j] != '$' {
				break
			}
			tag := sqlText[i : j+1]
			end := len(sqlText)
			if k := strings.Index(sqlText[j+1:], tag); k >= 0 {
				end = j + 1 + k + len(tag)
			}
			chars += utf8.RuneCountInString(sqlText[i:end])
			i = end
			continue
		case c == '?':
			j := i + 1
			for j < len(sqlText) && sqlText[j] >= '0' && sqlText[j] <= '9' {
				j++
			}
			n := next
			if j > i+1 {
				n, _ = strconv.Atoi(sqlText[i+1 : j])
			}
			next = n + 1
			nums = append(nums, n)
			offsets = append(offsets, chars+1)
			chars += j - i
			i = j
			continue
		}
		_, size := utf8.DecodeRuneInString(sqlText[i:])
		chars++
		i += size
	}
	return nums, offsets
}

// identByte reports whether c may continue a name (letters, digits, '_', '$'
// and the bytes of non-ASCII characters), as DuckDB's lexer reads them.
func identByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '_' || c == '$' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// questionPlaceholder returns how the caller wrote the parameter DuckDB calls
// name ("$1") in sqlText: "?" or "?1" with its character offset, when sqlText
// numbers its placeholders with ?; ok is false otherwise.
func questionPlaceholder(sqlText, name string) (shown string, offset int, ok bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "$"))
	if err != nil || !strings.HasPrefix(name, "$") {
		return "", 0, false
	}
	nums, offs := placeholders(sqlText)
	at := slices.Index(nums, n)
	if at < 0 && len(nums) > 0 {
		// A number the SQL skips ("SELECT ?2" has no ?1): its first
		// placeholder is the one to write as a literal.
		at = 0
	}
	if at < 0 {
		return "", 0, false
	}
	// As written: "?" alone, or "?n".
	shown = "?"
	if numberedAt(sqlText, offs[at]) {
		shown = "?" + strconv.Itoa(nums[at])
	}
	return shown, offs[at], true
}

// numberedAt reports whether the ? at character offset off (1-based) of s is
// followed by a digit.
func numberedAt(s string, off int) bool {
	i := 0
	for k := 1; k < off && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i+1 < len(s) && s[i] == '?' && s[i+1] >= '0' && s[i+1] <= '9'
}

// unboundAdHoc is the answer to ad-hoc SQL using a parameter: it takes none. It
// is the server's own check, not the engine's error (no "duckdb error:").
func unboundAdHoc(sqlText, name string) *engine.SQLError {
	if shown, off, ok := questionPlaceholder(sqlText, name); ok {
		return &engine.SQLError{Position: off, Message: fmt.Sprintf("the SQL uses the placeholder %s (at character %d), but ad-hoc SQL takes no parameters: write the value into the SQL as a literal, or run a named query that declares it (queryName)", shown, off)}
	}
	return &engine.SQLError{Message: fmt.Sprintf("the SQL uses the parameter %s, but ad-hoc SQL takes no parameters: write the value into the SQL as a literal, or run a named query that declares it (queryName)", name)}
}

// unboundNamed is the answer to a named query whose SQL uses a parameter none of
// its @param lines declares.
func unboundNamed(q *catalog.Query, name string) error {
	if q.Notebook != nil {
		// A cell has no @param lines to declare it with.
		what := "the parameter " + name
		if shown, off, ok := questionPlaceholder(q.SQL, name); ok {
			what = fmt.Sprintf("the placeholder %s (at character %d of its SQL)", shown, off)
		}
		where := ""
		if nb := q.Notebook; nb.Package != nil && nb.Package.Project != nil {
			for _, m := range nb.Package.Models {
				if m.Name == nb.ModelName {
					where = " against path " + nb.Package.Project.Name + "/" + nb.Package.Name + "/" + m.Name
				}
			}
		}
		return &catalogFaultError{fmt.Errorf("notebook cell %s uses %s, but a notebook cell takes no parameters, so no call can give it a value; the notebook must write the value into the cell (or make it a named query of a model). To run it now, run the cell's SQL with sql%s, the value written in as a literal", q.Name, what, where)}
	}
	if shown, off, ok := questionPlaceholder(q.SQL, name); ok {
		return &catalogFaultError{fmt.Errorf("named query %s uses the placeholder %s (at character %d of its SQL), which has no name, so no call can give it a value; the catalog's file must name it ($name in the SQL) and declare it (@param name TYPE)", q.Name, shown, off)}
	}
	return &catalogFaultError{fmt.Errorf("named query %s uses the parameter %s, which none of its @param lines declares, so no call can give it; the catalog's file must declare it (@param %s TYPE)", q.Name, name, strings.TrimLeft(name, "$@"))}
}

// queryWhat names what q is in a message: a named query or a notebook cell.
func queryWhat(q *catalog.Query) string {
	if q.Notebook != nil {
		return "notebook cell"
	}
	return "named query"
}

// rowLocksNamed is the refusal of a named query or notebook cell (at qpath, of
// the model at mpath) whose SQL locks rows: the catalog's fault, said as its
// model's check says it (engine.RowLocksProblem), as no call can drop the
// clause.
func rowLocksNamed(q *catalog.Query, qpath, mpath string) error {
	return &catalogFaultError{fmt.Errorf("%s %s: %s. To run it now, run its SQL without the locking clause with sql against the model %s", queryWhat(q), qpath, engine.RowLocksProblem, mpath)}
}

// refusedNamed is the refusal of a named query or notebook cell (at qpath, of
// the model at mpath) whose SQL the server does not run (not a single
// read-only query, a refused function, a file outside the package): the
// catalog's fault, since no call changes that SQL; calling again cannot help.
// Execute calls it for a refusal its parameters' values cannot have caused.
func refusedNamed(q *catalog.Query, qpath, mpath string, ref *engine.RefusedError) error {
	return &catalogFaultError{fmt.Errorf("%s %s cannot run: the server refuses its SQL (%s), and no call can change it; the catalog's file must. To run something like it now, send SQL of your own with sql against the model %s", queryWhat(q), qpath, strings.TrimSuffix(ref.Reason, "."), mpath)}
}

// refusedAtLoad is the refusal of a named query or notebook cell (at qpath, of
// the model at mpath) whose check when its model loaded crashed DuckDB or
// needed more memory than the load may hold (chk.Refuse says which).
// Running it would do that again — with -isolate=false, in the server's own
// process — so no call runs it until the catalog's file changes it and the
// model loads again: the catalog's fault. One whose check never ran, the
// model's load process having crashed too often before it (chk.Unchecked),
// is refused too: it may crash DuckDB as well, and only the catalog's file
// can let the check reach it.
func refusedAtLoad(q *catalog.Query, qpath, mpath string, chk engine.QueryCheck) error {
	why := chk.Refuse
	if chk.Unchecked {
		pkg, _ := path.Split(mpath)
		return &catalogFaultError{fmt.Errorf("%s %s is not run: when its model loaded, %s. Whether running it crashes DuckDB too (with -isolate=false, the server itself) is not known, so no call runs it. No call can change that: the catalog's files must fix or remove what crashed DuckDB (the problems of the package %s list each one), and it is checked and runs once its model has loaded with fewer crashes. To run something like it now, send SQL of your own with sql against the model %s", queryWhat(q), qpath, why, strings.TrimSuffix(pkg, "/"), mpath)}
	}
	return &catalogFaultError{fmt.Errorf("%s %s is not run: when its model loaded, %s, and running it would do the same. No call can change that: the catalog's file must change what it computes (a deeply nested JSON value or expression, a huge constant string or list), and it runs again once its model has loaded with that change. To run something like it now, send SQL of your own with sql against the model %s", queryWhat(q), qpath, why, mpath)}
}

// namedPaths returns the path of the named query or notebook cell q and of
// the model it runs against (q.Model, not nil).
func namedPaths(q *catalog.Query) (qpath, mpath string) {
	mpath = modelPath(q.Model)
	if q.Notebook != nil {
		return packagePath(q.Model.Package) + "/" + q.Notebook.Name + "/" + q.Name, mpath
	}
	return mpath + "/" + q.Name, mpath
}

// unboundPositional is the refusal of a named query or notebook cell whose SQL
// holds a positional placeholder ($1): the catalog's fault, as no call gives a
// value by position.
func unboundPositional(q *catalog.Query, sp catalog.Span) error {
	off := utf8.RuneCountInString(q.SQL[:sp.Start]) + 1
	if q.Notebook != nil {
		return unboundNamed(q, "$"+sp.Name)
	}
	sign := catalog.ParamSign(queryEngine(q))
	return &catalogFaultError{fmt.Errorf("named query %s uses the positional placeholder $%s (at character %d of its SQL), which no call can give a value (values are given by name); the catalog's file must name it (%sname in the SQL) and declare it (@param name TYPE)", q.Name, sp.Name, off, sign)}
}

var (
	duckFileRefused = regexp.MustCompile(`Cannot access file "([^"]*)"`)
	duckNoFiles     = regexp.MustCompile(`No files found that match the pattern "([^"]*)"`)
)

// dataFileExts are the endings of the files a package's listing in an error
// names (what a source can read).
var dataFileExts = []string{".csv", ".tsv", ".txt", ".parquet", ".json", ".jsonl", ".ndjson", ".csv.gz", ".tsv.gz", ".json.gz", ".jsonl.gz", ".ndjson.gz", ".csv.zst", ".json.zst"}

// maxPackageFiles is how many data files of a package folder an error looks
// at, and maxPackageEntries how many entries (files and folders, data or not).
const (
	maxPackageFiles   = 5000
	maxPackageEntries = 20000
)

// packageFiles returns data files under the package folder dir, as paths
// relative to it with '/', and whether the listing was cut (more than
// maxPackageFiles data files, or more than maxPackageEntries entries read):
// then it holds some of the files, not all. Each folder's entries are listed
// by name, folders where they sort (a folder with more entries than are left
// to read gives those the system returned first, in name order); hidden
// folders and files are left out.
func packageFiles(dir string) ([]string, bool) {
	return packageFilesWithin(dir, maxPackageEntries)
}

// packageFilesWithin is packageFiles reading at most budget entries of dir and
// its folders.
func packageFilesWithin(dir string, budget int) ([]string, bool) {
	var out []string
	cut := false
	var walk func(rel string)
	walk = func(rel string) {
		if budget <= 0 {
			cut = true
			return
		}
		f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return
		}
		ents, _ := f.ReadDir(budget)
		if len(ents) == budget {
			// Maybe more: ReadDir returns at most budget.
			if more, _ := f.ReadDir(1); len(more) > 0 {
				cut = true
			}
		}
		f.Close()
		budget -= len(ents)
		slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		for _, d := range ents {
			if len(out) >= maxPackageFiles {
				cut = true
				return
			}
			p := path.Join(rel, d.Name())
			if d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
				walk(p)
				continue
			}
			if isListedFile(p, d.Type()) {
				out = append(out, p)
			}
		}
	}
	walk("")
	return out, cut
}

// isListedFile reports whether the package file p (relative, with '/'), of
// the type t, is one packageFiles lists: a regular data file, not hidden, not
// the manifest.
func isListedFile(p string, t fs.FileMode) bool {
	if !t.IsRegular() || p == "manifest.json" || slices.ContainsFunc(strings.Split(p, "/"), func(part string) bool { return strings.HasPrefix(part, ".") }) {
		return false
	}
	name := strings.ToLower(path.Base(p))
	return slices.ContainsFunc(dataFileExts, func(ext string) bool { return strings.HasSuffix(name, ext) })
}

// packageHasFile reports whether the package folder dir has the file clean (a
// cleaned relative path with '/', no "..", no glob characters) as packageFiles
// would list it, looking at that path alone. A path through a symbolic link
// counts only when the link resolves inside the package folder; the file
// itself must be a regular file, not a link (packageFiles lists no links).
func packageHasFile(dir, clean string) bool {
	full := filepath.Join(dir, filepath.FromSlash(clean))
	fi, err := os.Lstat(full)
	if err != nil || !isListedFile(clean, fi.Mode().Type()) {
		return false
	}
	// The folders on the way may be links: the file must still be inside.
	realDir, err1 := filepath.EvalSymlinks(dir)
	real, err2 := filepath.EvalSymlinks(full)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(realDir, real)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// maxEchoPath is the longest file path (in bytes) an error about it repeats
// and looks for in the package: past it, the path is cut ("…") and the
// package's files are not compared with it.
const maxEchoPath = 256

// cutPath returns p, or its first maxEchoPath bytes (whole characters) and
// "…" when it is longer.
func cutPath(p string) string {
	if len(p) <= maxEchoPath {
		return p
	}
	return p[:runeFloor(p, maxEchoPath)] + "…"
}

var sqlStringLit = regexp.MustCompile(`'((?:[^']|'')*)'`)

// readers returns, for the package file rel, the sources of pkg whose SQL names
// it (or a pattern matching it), as "name" for sources of m and "model/name"
// for the package's other models.
func readers(pkg *catalog.Package, m *catalog.Model, rel string) []string {
	var out []string
	for _, mm := range pkg.Models {
		for _, src := range mm.Sources {
			for _, lit := range sqlStringLit.FindAllStringSubmatch(src.SQL, -1) {
				p := strings.TrimPrefix(strings.ReplaceAll(lit[1], "''", "'"), "./")
				if p == rel || strings.ContainsAny(p, "*?[") && globMatch(p, rel) {
					if mm == m {
						out = append(out, src.Name)
					} else {
						out = append(out, mm.Name+"/"+src.Name)
					}
					break
				}
			}
		}
	}
	return out
}

// describeFiles names files of the package with the sources that read them.
func describeFiles(pkg *catalog.Package, m *catalog.Model, files []string) string {
	var parts []string
	for _, f := range files {
		rs := readers(pkg, m, f)
		switch {
		case len(rs) == 0:
			parts = append(parts, f+" (no source reads it)")
		case !strings.Contains(rs[0], "/"):
			parts = append(parts, fmt.Sprintf("%s (the source %s: SELECT * FROM %s)", f, rs[0], quoteIdent(rs[0])))
		default:
			model, src, _ := strings.Cut(rs[0], "/")
			parts = append(parts, fmt.Sprintf("%s (the source %s of the model %s/%s/%s)", f, src, pkg.Project.Name, pkg.Name, model))
		}
	}
	return strings.Join(parts, ", ")
}

// closestFiles returns up to n files of files closest to p (by path, and by the
// file's name alone), best first.
func closestFiles(p string, files []string, n int) []string {
	var out []string
	base := path.Base(p)
	for _, f := range files {
		if len(out) < n && path.Base(f) == base && f != p {
			out = append(out, f)
		}
	}
	for _, f := range catalog.Closest(p, files, n) {
		if len(out) < n && !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// fileRefusal turns DuckDB's refusal of a file a query names by a relative path
// (resolved from the server's working directory, outside the package, so
// refused) into what happened in the package's terms: where such paths are
// resolved from, whether the package has the file, and the sources that read
// the closest files. Paths are shown relative to the package folder. It
// returns nil for other errors (an absolute path, a URL: the engine's own
// message names what the caller wrote).
func fileRefusal(ref *engine.RefusedError, m *catalog.Model) error {
	mt := duckFileRefused.FindStringSubmatch(ref.Reason)
	if mt == nil || mt[1] == "" || filepath.IsAbs(mt[1]) || strings.Contains(mt[1], "://") {
		return nil
	}
	p := mt[1]
	pkg := m.Package
	pkgPath := pkg.Project.Name + "/" + pkg.Name
	files, cut := packageFiles(pkg.Dir)
	some := "the package's files"
	if cut {
		some = fmt.Sprintf("some of the package's files (an error looks at no more than %d data files among %d entries, and the package has more)", maxPackageFiles, maxPackageEntries)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the SQL names the file %q by a relative path, and a query's relative paths are not read from the package folder (%s) but from the server's working directory, outside the catalog", cutPath(p), pkgPath)
	rule := "Query the model's sources by name instead (describe the model to see them)"
	if len(p) > maxEchoPath {
		// Said once, cut, and not looked for: the caller chose its length.
		if len(files) > 0 {
			rule += "; " + some + ": " + describeFiles(pkg, m, files[:min(len(files), 5)])
		}
		return &engine.RefusedError{Reason: b.String(), Rule: rule + ".", AtRun: true}
	}
	clean := path.Clean(strings.ReplaceAll(p, `\`, "/"))
	glob := strings.ContainsAny(clean, "*?[")
	outside := clean == ".." || strings.HasPrefix(clean, "../")
	var matched []string
	if !glob && !outside {
		// The path itself, whether or not the listing reached it.
		if packageHasFile(pkg.Dir, clean) {
			matched = []string{clean}
		}
	} else {
		for _, f := range files {
			if ok, _ := path.Match(clean, f); ok {
				matched = append(matched, f)
			}
		}
	}
	switch {
	case outside:
		fmt.Fprintf(&b, "; %q would leave the package folder too, and a query reads only files inside it", p)
	case len(matched) > 0 && glob:
		fmt.Fprintf(&b, "; in the package it matches %s", describeFiles(pkg, m, matched[:min(len(matched), 5)]))
		if cut {
			b.WriteString(" (among the files an error looks at: the package has more)")
		}
	case len(matched) > 0:
		fmt.Fprintf(&b, "; in the package it is %s", describeFiles(pkg, m, matched))
	case glob && cut:
		fmt.Fprintf(&b, "; it matches none of the package's first %d data files an error looks at (the package has more)", len(files))
	case glob:
		fmt.Fprintf(&b, "; it matches no file of the package either")
	default:
		fmt.Fprintf(&b, "; the package has no file %s either", clean)
	}
	if len(matched) == 0 {
		closest := "the package's files closest to it"
		if cut {
			closest = "the closest to it of the files an error looks at (the package has more)"
		}
		if c := closestFiles(clean, files, 3); len(c) > 0 {
			rule += "; " + closest + ": " + describeFiles(pkg, m, c)
		} else if len(files) > 0 {
			rule += "; " + some + ": " + describeFiles(pkg, m, files[:min(len(files), 5)])
		}
	}
	return &engine.RefusedError{Reason: b.String(), Rule: rule + ".", AtRun: true}
}

// sourceProblem is the reason a source did not load as a client is shown it:
// the package folder's absolute path left out (paths relative to the package),
// and for a file that does not exist, the package's closest files.
func sourceProblem(m *catalog.Model, reason string) string {
	if m == nil || m.Package == nil || reason == "" {
		return reason
	}
	pkg := m.Package
	out := packageRelative(m, reason)
	// Said on the first line, before DuckDB's excerpt of the SQL.
	first, rest, multi := strings.Cut(out, "\n")
	if out != reason {
		first += fmt.Sprintf(" (paths are relative to the package folder %s/%s)", pkg.Project.Name, pkg.Name)
	}
	if mt := duckNoFiles.FindStringSubmatch(first); mt != nil && !filepath.IsAbs(mt[1]) && len(mt[1]) <= maxEchoPath {
		files, _ := packageFiles(pkg.Dir)
		if c := closestFiles(mt[1], files, 3); len(c) > 0 {
			first += "; the package's files closest to it: " + strings.Join(c, ", ")
		}
	}
	if multi {
		return first + "\n" + rest
	}
	return first
}

// lookAlikeNote says, for DuckDB's error about a table or column it did not find
// whose name only looks like one the model has (a Cyrillic "о" in "оrders"),
// which characters differ and the name meant; "" otherwise.
func lookAlikeNote(msg string, m *catalog.Model, cols map[string][]engine.Column) string {
	// The error first: most are about something else, and then no name list is
	// built.
	for _, re := range []struct {
		re      *regexp.Regexp
		columns bool
	}{
		{duckNoTable, false}, {duckRefTable, false},
		{duckNoColumn, true}, {duckRefColumn, true},
	} {
		mt := re.re.FindStringSubmatch(msg)
		if mt == nil {
			continue
		}
		var names []string
		if re.columns {
			seen := map[string]bool{}
			for _, src := range slices.Sorted(maps.Keys(cols)) {
				for _, c := range cols[src] {
					if !seen[c.Name] {
						seen[c.Name] = true
						names = append(names, c.Name)
					}
				}
			}
		} else {
			for _, src := range m.Sources {
				names = append(names, src.Name)
			}
		}
		if _, note := catalog.LookAlike(strings.Trim(mt[1], `"`), names); note != "" {
			return note
		}
	}
	return ""
}

var (
	duckRefColumn = regexp.MustCompile(`Referenced column "((?:[^"]|"")+)" not found`)
	duckRefTable  = regexp.MustCompile(`Referenced table "((?:[^"]|"")+)" not found`)
)

// describeTimeoutProblem says what a source's description could not read in
// time (what: "row count" or "sample rows", by sqlText), and what still works.
// budget is describe's limit, shared by its queries: the timed-out one had
// to.Limit, what the ones before it left. queryTimeout is execute_query's.
func describeTimeoutProblem(to *engine.TimeoutError, src, sqlText string, budget, queryTimeout time.Duration) string {
	if to.Busy() {
		return fmt.Sprintf("not done within describe's %s limit, most of it spent %s; describe it again shortly", budget, to.BusyWith())
	}
	had, within := budget, ""
	if lim, part := describeLimit(to.Limit, budget); part {
		had, within = to.Limit, "in "+lim
	} else {
		within = "within " + lim
	}
	if queryTimeout > had {
		return fmt.Sprintf("not done %s; run %s with execute_query, which may take up to %s, or add a WHERE condition to read part of the source", within, sqlText, queryTimeout)
	}
	limit := "which execute_query has too"
	if queryTimeout < had {
		limit = fmt.Sprintf("and execute_query's limit is shorter (%s)", queryTimeout)
	}
	return fmt.Sprintf("not done %s, %s, so running it again will not finish either: the source is large or its SQL slow. Its columns above are complete; with execute_query, read part of it (SELECT … FROM %s WHERE a condition on its columns) or aggregate part of it", within, limit, quoteIdent(src))
}

// describeBusyProblem is what describe says of a query of its own (sqlText)
// that did not start: every connection or query process it could have used
// ran other queries for the time it had, which was what was left of
// describe's budget (be.Limit), not execute_query's limit.
func describeBusyProblem(be *engine.BusyError, budget time.Duration) string {
	within, _ := describeLimit(be.Limit, budget)
	return fmt.Sprintf("not read: the server is busy: all %d %s were running other queries for %s; describe it again shortly", be.Conns, be.ConnsWhat(), within)
}

// describeLimit names the time a query of describe's had (had, its own limit)
// out of describe's limit budget, which its queries share: "describe's 10s
// limit", or, with part, "the 38ms left of describe's 10s limit" when the
// queries before it used some of it. The first query has the whole budget,
// but for the moment it took to start.
func describeLimit(had, budget time.Duration) (phrase string, part bool) {
	if had < budget*19/20 {
		return fmt.Sprintf("the %s left of describe's %s limit", had.Round(time.Millisecond), budget), true
	}
	return fmt.Sprintf("describe's %s limit", budget), false
}

// duckICUAdvice is DuckDB's advice for a TIMESTAMP written with a time zone
// other than UTC, which a caller cannot follow: extensions are not theirs to
// load (and the one needed is loaded already).
const duckICUAdvice = "Use the TIMESTAMPTZ type with the ICU extension loaded to handle non-UTC timestamps."

// timeZoneAdvice replaces DuckDB's advice to load an extension with what to
// send or write instead.
func timeZoneAdvice(se *engine.SQLError) *engine.SQLError {
	if !strings.Contains(se.Message, duckICUAdvice) {
		return se
	}
	c := *se
	c.Message = strings.Replace(c.Message, duckICUAdvice, "A TIMESTAMP takes no time zone but UTC: for the time in that zone, read the value as a TIMESTAMPTZ (CAST('2024-07-14 09:30:00 Europe/Paris' AS TIMESTAMPTZ), which time zones work with here, nothing to load); for the clock time as written, leave the zone out or write a two-digit offset right after the seconds (2024-07-14 09:30:00+02:00), which a TIMESTAMP reads and drops.", 1)
	return &c
}

// packageRelative is msg with the absolute path of m's package folder left out:
// a file in it named by its path in the package (data/orders.csv), the folder
// itself as "the package folder". DuckDB names the files it read by the
// absolute paths the model's views give them (a CSV that fails to convert, a
// JSON file that does not parse): where the server's catalog lies on its disk
// is no business of a client's.
func packageRelative(m *catalog.Model, msg string) string {
	if m == nil || m.Package == nil || m.Package.Dir == "" || msg == "" {
		return msg
	}
	dirs := []string{m.Package.Dir}
	if real, err := filepath.EvalSymlinks(m.Package.Dir); err == nil && real != m.Package.Dir {
		dirs = append([]string{real}, dirs...)
	}
	for _, d := range dirs {
		msg = strings.ReplaceAll(msg, d+string(filepath.Separator), "")
		msg = strings.ReplaceAll(msg, d, "the package folder")
	}
	return msg
}

// withPackageRelative is err with the package folder's path left out of its
// message (packageRelative), for the engine's SQL errors; other errors as they
// are. A line of DuckDB's excerpt (LINE n: …) that quotes the caller's own
// SQL, sqlText, stays as sent: the caller wrote the path, and its caret stays
// under the character it marks.
func withPackageRelative(err error, m *catalog.Model, sqlText string) error {
	var se *engine.SQLError
	if !errors.As(err, &se) {
		return err
	}
	lines := strings.Split(se.Message, "\n")
	for i, l := range lines {
		if !quotesCaller(l, sqlText) {
			lines[i] = packageRelative(m, l)
		}
	}
	msg := strings.Join(lines, "\n")
	if msg == se.Message {
		return err
	}
	c := *se
	c.Message = msg
	return &c
}

// excerptLine is a line of DuckDB's excerpt of the SQL an error is in.
var excerptLine = regexp.MustCompile(`^LINE \d+: `)

// quotesCaller reports whether line is a line of DuckDB's excerpt whose text —
// without the "..." DuckDB puts where it cut a long line — is in sqlText.
func quotesCaller(line, sqlText string) bool {
	loc := excerptLine.FindStringIndex(line)
	if loc == nil || sqlText == "" {
		return false
	}
	text := strings.TrimSuffix(strings.TrimPrefix(line[loc[1]:], "..."), "...")
	return text != "" && strings.Contains(sqlText, text)
}

// adviseOnFailure gives a query of the caller's that ran out of time (not for
// want of a connection) or of memory advice that fits what it is, by DuckDB's
// parser (engine.QueryShape): an aggregate is not told to aggregate, a long list
// of literals is told to shorten it, a huge range to narrow it. Only on this
// error path: a query that ran was parsed by its engine alone.
func adviseOnFailure(ctx context.Context, err error, sqlText string) {
	var to *engine.TimeoutError
	var me *engine.MemoryError
	switch {
	case errors.As(err, &to) && !to.Busy() && to.Advice == "":
		if s, ok := engine.QueryShape(ctx, sqlText); ok {
			to.Advice = s.TimeoutAdvice()
		}
	case errors.As(err, &me) && me.Advice == "":
		if s, ok := engine.QueryShape(ctx, sqlText); ok {
			me.Advice = s.MemoryAdvice()
		}
	}
}

// maxFileLiterals is how many of a query's string literals that could be paths
// specialFileRead looks at.
const maxFileLiterals = 32

// specialFileRead refuses ad-hoc SQL that names, in a string literal, a named
// pipe, socket or device inside the package folder dir: DuckDB would wait on it
// for a writer until the query's time limit (DuckDB reads only inside the
// package folder, so what lies outside it is refused anyway). The check is a
// scan of the text for quoted strings and a stat of at most maxFileLiterals of
// them that are absolute paths; nothing is opened. It is a courtesy, not a
// guard: a path the query builds ('data' || '/pipe.csv') is not seen, and waits
// until the time limit.
func specialFileRead(sqlText, dir string) error {
	n := 0
	for i := 0; i < len(sqlText) && n < maxFileLiterals; i++ {
		switch {
		case strings.HasPrefix(sqlText[i:], "--"):
			j := strings.IndexByte(sqlText[i:], '\n')
			if j < 0 {
				return nil
			}
			i += j
		case strings.HasPrefix(sqlText[i:], "/*"):
			j := strings.Index(sqlText[i+2:], "*/")
			if j < 0 {
				return nil
			}
			i += j + 3
		case sqlText[i] == '"':
			j := strings.IndexByte(sqlText[i+1:], '"')
			if j < 0 {
				return nil
			}
			i += j + 1
		case sqlText[i] == '\'':
			var lit strings.Builder
			j := i + 1
			for ; j < len(sqlText); j++ {
				if sqlText[j] == '\'' {
					if j+1 < len(sqlText) && sqlText[j+1] == '\'' {
						lit.WriteByte('\'')
						j++
						continue
					}
					break
				}
				lit.WriteByte(sqlText[j])
			}
			i = j
			p := lit.String()
			if !strings.Contains(p, "/") || strings.ContainsAny(p, "*?[") || strings.Contains(p, "://") {
				continue
			}
			if !filepath.IsAbs(p) {
				// DuckDB reads a relative path from the server's working
				// directory, outside the package: refused without a wait.
				continue
			}
			n++
			abs := filepath.Clean(p)
			in := dir
			if !catalog.Within(dir, abs) {
				// The package folder as DuckDB compares it, its links resolved.
				real, err := filepath.EvalSymlinks(dir)
				if err != nil || !catalog.Within(real, abs) {
					continue
				}
				in = real
			}
			if st, err := os.Stat(abs); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
				rel, _ := filepath.Rel(in, abs)
				return &engine.RefusedError{Reason: fmt.Sprintf("%q (%s in the package) is %s, not a regular file: a query reads regular files only (reading %s waits for a writer, and would hold the query until its time limit)", p, filepath.ToSlash(rel), catalog.FileKind(st.Mode()), catalog.FileKind(st.Mode())), AtRun: true}
			}
		}
	}
	return nil
}

// sourceFileError is a query that failed while DuckDB read the file of one of
// the model's sources (a CSV value its detected type does not hold, JSON that
// does not parse, a Parquet file that is not one): the catalog's file, or the
// source's SQL that reads it, is at fault, not the caller's SQL, which any
// query reading the source meets alike.
type sourceFileError struct {
	sources []string // the model's sources that read the file
	file    string   // the file, relative to the package folder
	model   string   // the model's path
	msg     string   // DuckDB's message, the package folder left out
	shape   fileShape
}

// fileShape is what DuckDB's error of a file scan says of the file, by the
// error's form (not by the file's name or the text it quotes).
type fileShape int

const (
	fileOther   fileShape = iota
	fileCSV               // a CSV value its column's type does not hold
	fileJSON              // JSON that does not parse or fit
	fileParquet           // not a (whole) Parquet file
	fileMissing           // no file, or none DuckDB can open
)

func (e *sourceFileError) Error() string {
	what := "the source " + e.sources[0]
	if len(e.sources) > 1 {
		what = "the sources " + strings.Join(e.sources, ", ")
	}
	return fmt.Sprintf("the file %s of %s (model %s) could not be read as the catalog reads it; the fault is the catalog's file or its source's SQL, not this call's SQL: %s", e.file, what, e.model, e.msg)
}

// hint says that no SQL of the caller's reading the source helps, and what
// the catalog's author can change.
func (e *sourceFileError) hint() string {
	fix := "fix or replace the file"
	switch e.shape {
	case fileMissing:
		fix = "put the file back, or change the path in the source's SQL"
	case fileCSV:
		fix = "give the column's type in the source's read_csv (types={'col': 'VARCHAR'}), detect types from the whole file (sample_size=-1), skip the bad lines (ignore_errors=true), or fix the file"
	case fileJSON:
		fix = "fix the file, or skip what does not parse (ignore_errors=true in the source's read_json)"
	case fileParquet:
		fix = "replace the file with a whole Parquet file"
	}
	return fmt.Sprintf("Nothing in this call's SQL can fix it: every query that reads %s fails the same way until the catalog is fixed (tell its owner); queries on the model's other sources still run. For the catalog's author: %s.", strings.Join(e.sources, ", "), fix)
}

var (
	// duckScanError is the first line of an error DuckDB meets while it scans
	// a file, naming the file (the first group that matched, whose shape is
	// duckScanShapes' at its index): a CSV scan names it on a later line
	// (duckCSVFile). Anchored after DuckDB's "… Error: " so that a message
	// quoting such text (a value that failed to convert) does not match.
	duckScanError, duckScanShapes = scanErrors([]scanForms{
		{fileJSON, []string{`Malformed JSON in file "([^"\n]+)"`, `JSON transform error in file "([^"\n]+)"`, `JSON auto-detection error in file "([^"\n]+)"`,
			`"maximum_object_size" of \d+ bytes exceeded while reading file "([^"\n]+)"`,
			`(?:Missing closing brace|Empty array with trailing data).* in file "([^"\n]+)"`, `Expected top-level JSON array.* in file "([^"\n]+)"`}},
		{fileParquet, []string{`Failed to read Parquet file ["']([^"'\n]+)["']`, `Failed to read file "([^"\n]+)":`, `File '([^'\n]+)' too small to be a Parquet file`,
			`(?:Parquet )?[Ff]ile '([^'\n]+)': metadata is corrupt`, `Footer length error in file '([^'\n]+)'`, `No magic bytes found at end of file '([^'\n]+)'`,
			`Invalid footer length provided for file '([^'\n]+)'`, `Invalid string encoding found in Parquet file "([^"\n]+)"`, `Malformed Parquet schema in file "([^"\n]+)"`}},
		// Any reader: the file gone, or not a file it can open.
		{fileMissing, []string{`No files found that match the pattern "([^"\n]+)"`, `Cannot open file "([^"\n]+)"`}},
		{fileOther, []string{`Error when sniffing file "([^"\n]+)"`}},
	})
	duckCSVError = regexp.MustCompile(`^[A-Z][A-Za-z ]* Error: CSV Error on Line`)
	duckCSVFile  = regexp.MustCompile(`(?m)^  file = (.+?)\s*$`)
	// callerError is the name error, quoted or not, before "(": what a call
	// of DuckDB's error() looks like (callsError).
	callerError = regexp.MustCompile(`(?i)\berror"?\s*\(`)
	// cteColumns is what follows a CTE's column list: error(x) AS (…).
	cteColumns = regexp.MustCompile(`(?i)^\s*AS\s+(?:NOT\s+)?(?:MATERIALIZED\s*)?\(`)
	// quotedText is a string literal of the caller's SQL or of its parameter
	// values (as JSON).
	quotedText = regexp.MustCompile(`'((?:[^'\n]|'')+)'|"((?:[^"\\\n]|\\.)+)"`)
)

// scanForms is the forms of DuckDB's scan errors that say one thing of a file
// (shape), each with one group: the file's name.
type scanForms struct {
	shape fileShape
	forms []string
}

// scanErrors is one expression matching any of the forms after DuckDB's
// "… Error: ", and the shape of each of its groups, in order.
func scanErrors(all []scanForms) (*regexp.Regexp, []fileShape) {
	var alts []string
	var shapes []fileShape
	for _, f := range all {
		for _, form := range f.forms {
			alts = append(alts, form)
			shapes = append(shapes, f.shape)
		}
	}
	re := regexp.MustCompile(`^[A-Z][A-Za-z ]* Error: (?:` + strings.Join(alts, "|") + `)`)
	if re.NumSubexp() != len(shapes) {
		panic("scanErrors: a form without one group")
	}
	return re, shapes
}

// sourceFileFault returns, for DuckDB's error se (its message with the package
// folder left out, packageRelative) met while a query on m scanned a file
// that a source of m reads, the error that blames the catalog. Only DuckDB's
// errors of a scan, naming the file as DuckDB names it there: a CSV error
// ("Conversion Error: CSV Error on Line …", then "  file = data/x.csv"),
// Malformed JSON in file "data/x.json" and the other JSON scan errors, a
// Parquet file DuckDB cannot read (Footer length error in file '…', No magic
// bytes …, Failed to read file "…": …). Not an error at a place in the
// caller's SQL (a position: the caller's cast or call did it), not one from a
// call of error() in the caller's SQL (its text is the caller's), and not when
// the caller's SQL or parameter values (given, as JSON) name the file or a
// pattern that reads it — then the caller chose to read it. nil otherwise.
func sourceFileFault(se *engine.SQLError, m *catalog.Model, callerText, given string) error {
	if se.Engine != "duckdb" || m == nil || m.Package == nil || se.Position > 0 {
		return nil
	}
	first, _, _ := strings.Cut(se.Message, "\n")
	// DuckDB's error() answers "Invalid Input Error: " and the caller's text:
	// only such a message can be the caller's own (a Conversion Error or an IO
	// Error of a scan never is).
	if strings.HasPrefix(first, "Invalid Input Error: ") && callsError(catalog.CodeOnly(callerText, catalog.EngineDuckDB)) {
		return nil
	}
	file, shape := "", fileOther
	if duckCSVError.MatchString(first) {
		if mt := duckCSVFile.FindStringSubmatch(se.Message); mt != nil {
			file, shape = mt[1], fileCSV
		}
	} else if mt := duckScanError.FindStringSubmatch(first); mt != nil {
		for i, g := range mt[1:] {
			if g != "" {
				file, shape = g, duckScanShapes[i]
				break
			}
		}
	}
	if file == "" || filepath.IsAbs(file) || strings.Contains(file, "://") {
		return nil
	}
	rel := strings.TrimPrefix(path.Clean(filepath.ToSlash(file)), "./")
	if callerNamesFile(callerText, rel) || callerNamesFile(given, rel) {
		return nil
	}
	var srcs []string
	for _, r := range readers(m.Package, m, rel) {
		if !strings.Contains(r, "/") {
			srcs = append(srcs, r)
		}
	}
	if len(srcs) == 0 {
		return nil
	}
	return &sourceFileError{sources: srcs, file: rel, model: modelPath(m), msg: strings.TrimPrefix(se.Error(), "duckdb error: "), shape: shape}
}

// callsError reports whether code, the caller's SQL with its literals and
// comments blanked (catalog.CodeOnly), calls DuckDB's error(): error( or
// "error"(, but not error( inside a quoted name ("error(" as an alias), an
// alias's column list (AS error(x, y)) or a CTE's name with its columns
// (WITH error(x) AS (…)), where the message is DuckDB's and may be the
// catalog's file's fault.
func callsError(code string) bool {
	for _, loc := range callerError.FindAllStringIndex(code, -1) {
		quoted := strings.Contains(code[loc[0]:loc[1]], `"`)
		if opened := loc[0] > 0 && code[loc[0]-1] == '"'; opened != quoted {
			continue // "error(" is a quoted name; error"( is no call
		}
		before := strings.TrimRight(code[:loc[0]], " \t\r\n\"")
		if i := strings.LastIndexAny(before, " \t\r\n(,"); strings.EqualFold(before[i+1:], "AS") {
			continue // AS error(x, y): an alias's column names
		}
		if end := strings.IndexByte(code[loc[1]:], ')'); end >= 0 && cteColumns.MatchString(code[loc[1]+end+1:]) {
			continue // WITH error(x) AS (…): a CTE
		}
		return true
	}
	return false
}

// callerNamesFile reports whether text (the caller's SQL, or its parameter
// values as JSON) names the package file rel: its name, or a quoted pattern
// (data/*.csv, data/**/*.csv) that matches it.
func callerNamesFile(text, rel string) bool {
	if text == "" {
		return false
	}
	if strings.Contains(text, path.Base(rel)) {
		return true
	}
	for _, mt := range quotedText.FindAllStringSubmatch(text, 256) {
		q := mt[1] + mt[2]
		if !strings.ContainsAny(q, "*?[") {
			continue
		}
		pat := strings.TrimPrefix(path.Clean(filepath.ToSlash(q)), "./")
		if globMatch(pat, rel) {
			return true
		}
	}
	return false
}

// globMatch is DuckDB's file pattern pat matching the relative path rel:
// * and ? within a folder's name, ** across none or more folders, [...] a
// class.
func globMatch(pat, rel string) bool {
	var re strings.Builder
	re.WriteString("^")
	for i := 0; i < len(pat); i++ {
		switch c := pat[i]; c {
		case '*':
			switch {
			case strings.HasPrefix(pat[i:], "**/"):
				re.WriteString("(?:.*/)?") // none or more folders
				i += 2
			case strings.HasPrefix(pat[i:], "**"):
				re.WriteString(".*")
				i++
			default:
				re.WriteString("[^/]*")
			}
		case '?':
			re.WriteString("[^/]")
		case '[':
			if j := strings.IndexByte(pat[i:], ']'); j > 0 {
				re.WriteString(strings.Replace(pat[i:i+j+1], "[!", "[^", 1))
				i += j
			} else {
				re.WriteString(regexp.QuoteMeta("["))
			}
		default:
			re.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	re.WriteString("$")
	r, err := regexp.Compile(re.String())
	return err == nil && r.MatchString(rel)
}
