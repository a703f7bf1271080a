package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
)

// Limits of what Load reads, so a stray huge file cannot exhaust memory.
const (
	maxManifestBytes = 64 << 10
	maxModelBytes    = 1 << 20
	maxNotebookBytes = 1 << 20
)

// validName is the shape of every object name: it is a path segment, a URI
// template variable and (for sources) a SQL identifier.
var validName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,127}$`)

// sqlIdent is the shape of source and parameter names (they appear in SQL unquoted).
var sqlIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

type projectManifest struct {
	Description string `json:"description"`
}

type packageManifest struct {
	Description string `json:"description"`
	Engine      string `json:"engine"`
	DSNEnv      string `json:"dsnEnv"`
	Schema      string `json:"schema"`
}

// Load reads the catalog in dir. Errors in single files become Diagnostics; only an
// unreadable dir is an error.
func Load(dir string) (*Catalog, error) { return LoadAfter(dir, nil) }

// LoadAfter is Load for a catalog that was loaded before as prev (nil: none). A
// model file or package manifest that prev had and that no longer parses — an
// edit saved half-way, a typo — keeps its previous version, so the objects it made
// stay served; the diagnostic says so, and the next load that finds the file
// parsing takes the new version. A file that is gone, or cannot be read, is not
// kept.
func LoadAfter(dir string, prev *Catalog) (*Catalog, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil, fmt.Errorf("catalog directory: %w", err)
	}
	c := &Catalog{Dir: abs, prev: prev}
	for _, de := range ents {
		if strings.HasPrefix(de.Name(), ".") {
			continue
		}
		if link := linkedFolder(abs, abs, de); link != "" {
			c.note(&c.Problems, de.Name(), "%s: skipped: %s", de.Name(), link)
			continue
		}
		if !de.IsDir() {
			if n := de.Name(); n == "manifest.json" || n == "project.json" || strings.HasSuffix(n, ".sql") {
				c.note(&c.Problems, n, "%s: not read: the catalog's top holds project folders only, and each project holds package folders; a package's manifest.json and .sql files go in PROJECT/PACKAGE/, a project's project.json in PROJECT/", n)
			}
			continue
		}
		if !validName.MatchString(de.Name()) {
			c.note(&c.Problems, de.Name(), "%s: skipped: a project name must match %s (ASCII letters, digits, _ and -, starting with a letter or _)", de.Name(), validName)
			continue
		}
		p := c.loadProject(filepath.Join(abs, de.Name()), de.Name())
		c.Projects = append(c.Projects, p)
	}
	c.prev = nil // a catalog does not hold on to the ones before it
	c.index()
	return c, nil
}

// prevModel returns the model at path in the catalog loaded before, if any.
func (c *Catalog) prevModel(path string) *Model {
	if c.prev == nil {
		return nil
	}
	return c.prev.Model(path)
}

// prevPackage returns the package at path in the catalog loaded before, if any.
func (c *Catalog) prevPackage(path string) *Package {
	if c.prev == nil {
		return nil
	}
	if e := c.prev.Lookup(path); e != nil && e.Kind == KindPackage {
		return e.Package
	}
	return nil
}

// note records a diagnostic about a file of a project or package: in Diagnostics,
// in problems (the Problems of the project or package, shown when it is described)
// and, when path is not empty, as the reason why no object is at path (the object
// the skipped file would have made), which Resolve tells a caller asking for it.
func (c *Catalog) note(problems *[]string, path string, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.Diagnostics = append(c.Diagnostics, msg)
	*problems = append(*problems, msg)
	if path != "" {
		if c.skipped == nil {
			c.skipped = map[string]string{}
		}
		c.skipped[path] = msg
	}
}

// check reports what is wrong with a package manifest that decoded.
func (m *packageManifest) check() error {
	switch m.Engine {
	case "", EngineDuckDB:
	case EnginePostgres:
		if m.DSNEnv == "" {
			return errors.New("engine postgres needs dsnEnv, the environment variable holding the connection string")
		}
	default:
		// A misspelling ("duckbd", "Postgres") is told its engine.
		if c := Closest(m.Engine, []string{EngineDuckDB, EnginePostgres}, 1); len(c) > 0 {
			return fmt.Errorf("unknown engine %q (want duckdb or postgres): did you mean %q?", m.Engine, c[0])
		}
		return fmt.Errorf("unknown engine %q (want duckdb or postgres)", m.Engine)
	}
	return nil
}

// isParseError reports whether err, from readJSON, says the file's JSON is not
// what it should be (rather than that the file could not be read).
func isParseError(err error) bool {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	return errors.As(err, &se) || errors.As(err, &te) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.As(err, new(*jsonError))
}

func readJSON(dir, name string, limit int64, v any) error {
	b, err := readLimited(dir, name, limit)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonProblem(err, string(b), v)
	}
	return nil
}

// readLimited reads the file name of folder dir, which must resolve inside dir
// (os.Root: a symbolic link may point anywhere in dir, not out of it), and be at
// most limit bytes.
func readLimited(dir, name string, limit int64) ([]byte, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// Only a regular file is read: opening a named pipe would wait for a writer,
	// holding the catalog's load (the server's start, or every later reload)
	// for as long as none comes.
	if st, err := root.Stat(name); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file", name, FileKind(st.Mode()))
	}
	f, err := root.Open(name)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			if st, lerr := root.Lstat(name); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
				return nil, fmt.Errorf("%s is a symbolic link that leads outside its folder; a catalog's files must stay inside it", name)
			}
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("larger than %d bytes", limit)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(b)) > limit {
		err = fmt.Errorf("larger than %d bytes", limit)
	}
	return b, err
}

// FileKind names the kind of a file that is not a regular one (a named pipe, a
// socket, a device, a folder), for a diagnostic.
func FileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	}
	return "a special file (" + m.Type().String() + ")"
}

func (c *Catalog) loadProject(dir, name string) *Project {
	p := &Project{Name: name, Dir: dir}
	var pm projectManifest
	if err := readJSON(dir, "project.json", maxManifestBytes, &pm); err == nil {
		p.Description = pm.Description
	} else if !errors.Is(err, fs.ErrNotExist) {
		c.note(&p.Problems, "", "%s/project.json: %v", name, err)
	}
	if st, err := os.Lstat(filepath.Join(dir, "manifest.json")); err == nil && !st.IsDir() {
		c.note(&p.Problems, "", "%s/manifest.json: not read: %s is a project, and a package's manifest.json belongs in a folder of the project (%s/PACKAGE/manifest.json, beside the package's .sql files)", name, name, name)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		c.note(&p.Problems, "", "%s: %v", name, err)
		return p
	}
	for _, de := range ents {
		if strings.HasPrefix(de.Name(), ".") {
			continue
		}
		if link := linkedFolder(c.Dir, dir, de); link != "" {
			c.note(&p.Problems, name+"/"+de.Name(), "%s/%s: skipped: %s", name, de.Name(), link)
			continue
		}
		if !de.IsDir() {
			if strings.HasSuffix(de.Name(), ".sql") {
				c.note(&p.Problems, name+"/"+de.Name(), "%s/%s: not read: %s is a project, and a model's .sql file belongs in a package folder of it (%s/PACKAGE/, beside the package's manifest.json)", name, de.Name(), name, name)
			}
			continue
		}
		pdir := filepath.Join(dir, de.Name())
		if _, err := os.Stat(filepath.Join(pdir, "manifest.json")); err != nil {
			// Not a package; one with models would be served with a manifest.
			if _, models := peekFolder(pdir); len(models) > 0 {
				c.note(&p.Problems, name+"/"+de.Name(), "%s/%s: not a package: it holds %s but no manifest.json, so nothing in it is served; add a manifest.json to it ({} will do: the engine is then duckdb)", name, de.Name(), fileList(models))
			}
			continue
		}
		if !validName.MatchString(de.Name()) {
			c.note(&p.Problems, name+"/"+de.Name(), "%s/%s: skipped: a package name must match %s", name, de.Name(), validName)
			continue
		}
		if pkg := c.loadPackage(p, pdir, de.Name()); pkg != nil {
			p.Packages = append(p.Packages, pkg)
		}
	}
	return p
}

func (c *Catalog) loadPackage(p *Project, dir, name string) *Package {
	where := p.Name + "/" + name
	var m packageManifest
	err := readJSON(dir, "manifest.json", maxManifestBytes, &m)
	broken := err != nil && isParseError(err) // the file is there and reads, but is wrong
	if err == nil {
		err = m.check()
		broken = err != nil
	}
	var kept string // why the previous manifest is used
	if err != nil {
		old := c.prevPackage(where)
		if old == nil || !broken {
			c.note(&p.Problems, where, "%s/manifest.json: skipped: %v", where, err)
			return nil
		}
		m = packageManifest{Description: old.Description, Engine: old.Engine, DSNEnv: old.DSNEnv, Schema: old.Schema}
		kept = fmt.Sprintf("%s/manifest.json: %v; still serving its previous version until the file is fixed", where, err)
	}
	if m.Engine == "" {
		m.Engine = EngineDuckDB
	}
	pkg := &Package{Project: p, Name: name, Dir: dir, Description: m.Description, Engine: m.Engine, DSNEnv: m.DSNEnv, Schema: m.Schema}
	if kept != "" {
		c.note(&pkg.Problems, "", "%s", kept)
	}
	if pkg.Engine == EngineDuckDB {
		if links, complete, err := OutsideLinks(dir); err == nil && len(links) > 0 {
			pkg.OutsideLinks = links
			c.note(&pkg.Problems, "", "%s", outsideLinksProblem(where, links, complete))
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		c.note(&pkg.Problems, "", "%s: %v", where, err)
		return pkg
	}
	taken := map[string]string{}
	for _, de := range ents {
		if de.IsDir() {
			// A folder of data files is the package's; one holding models or
			// a manifest of its own is not read, and is told so.
			if strings.HasPrefix(de.Name(), ".") {
				continue
			}
			manifest, models := peekFolder(filepath.Join(dir, de.Name()))
			switch {
			case manifest:
				c.note(&pkg.Problems, "", "%s/%s: not read: a package inside a package is not served (it holds a manifest.json); move it up beside %s, as a package of %s", where, de.Name(), name, p.Name)
			case len(models) > 0:
				c.note(&pkg.Problems, "", "%s/%s: not read: it holds %s, but a package's models and notebooks are read only beside its manifest.json; move them up to %s", where, de.Name(), fileList(models), where)
			}
			continue
		}
		fn := de.Name()
		base, ext := modelFileName(fn)
		if ext == "" {
			continue
		}
		if !validName.MatchString(base) {
			c.note(&pkg.Problems, where+"/"+base, "%s/%s: skipped: a model or notebook name must match %s", where, fn, validName)
			continue
		}
		if other, ok := taken[base]; ok {
			c.note(&pkg.Problems, "", "%s/%s: skipped: the name %q is already used by %s", where, fn, base, other)
			continue
		}
		path := filepath.Join(dir, fn)
		switch ext {
		case ".sql":
			b, err := readLimited(dir, fn, maxModelBytes)
			if err != nil {
				c.note(&pkg.Problems, where+"/"+base, "%s/%s: skipped: %v", where, fn, err)
				continue
			}
			text := string(b)
			mod, err := ParseModel(text)
			if err != nil {
				old := c.prevModel(where + "/" + base)
				if old == nil || old.File != path {
					c.note(&pkg.Problems, where+"/"+base, "%s/%s: skipped: %v", where, fn, err)
					continue
				}
				// The version that parsed before: it parses again.
				prevMod, perr := ParseModel(old.Text)
				if perr != nil {
					c.note(&pkg.Problems, where+"/"+base, "%s/%s: skipped: %v", where, fn, err)
					continue
				}
				mod, text = prevMod, old.Text
				c.note(&pkg.Problems, "", "%s/%s: %v; still serving its previous version until the file parses", where, fn, err)
				mod.Problems = []string{fmt.Sprintf("%s/%s: %v; still serving its previous version (its sources and queries as they were when the file last parsed) until the file parses", where, fn, err)}
			}
			mod.Package, mod.Name, mod.File, mod.Text = pkg, base, path, text
			for _, s := range mod.Sources {
				s.Model = mod
			}
			for _, q := range mod.Queries {
				q.Model = mod
			}
			pkg.Models = append(pkg.Models, mod)
		case ".md":
			b, err := readLimited(dir, fn, maxNotebookBytes)
			if err != nil {
				c.note(&pkg.Problems, where+"/"+base, "%s/%s: skipped: %v", where, fn, err)
				continue
			}
			nb := ParseNotebook(string(b))
			nb.Package, nb.Name, nb.File = pkg, base, path
			for i, p := range nb.Problems {
				nb.Problems[i] = where + "/" + fn + ": " + p
				c.note(&pkg.Problems, "", "%s", nb.Problems[i])
			}
			pkg.Notebooks = append(pkg.Notebooks, nb)
		}
		taken[base] = fn
	}
	// A notebook runs against the model it names, or the package's first model.
	for _, nb := range pkg.Notebooks {
		var mod *Model
		for _, m := range pkg.Models {
			if nb.ModelName == "" || m.Name == nb.ModelName {
				mod = m
				break
			}
		}
		if mod == nil && nb.ModelName != "" {
			c.note(&pkg.Problems, "", "%s/%s: its cells name model %q, which the package does not have", where, nb.Name, nb.ModelName)
		}
		if mod != nil {
			nb.ModelName = mod.Name
		}
		for _, q := range nb.Cells {
			q.Model, q.Notebook = mod, nb
		}
	}
	c.checkQueries(pkg, where)
	return pkg
}

// modelFileName splits the name of a file in a package folder into the name of
// the model (.sql) or notebook (.md) it holds and its extension; ext is "" for a
// file Load does not read as one (another extension, or a README.md). The name
// must still match validName.
func modelFileName(fn string) (base, ext string) {
	ext = filepath.Ext(fn)
	if ext != ".sql" && ext != ".md" {
		return "", ""
	}
	base = strings.TrimSuffix(fn, ext)
	if ext == ".md" && strings.EqualFold(base, "README") {
		return "", ""
	}
	return base, ext
}

// checkQueries reports, as problems of the queries and of pkg, the parameters
// their SQL uses and does not declare, and those declared and never used: for
// the named queries of a PostgreSQL package (a DuckDB package's are judged by
// DuckDB's parser when the model opens) and for every notebook cell (a cell
// takes no parameters). In a DuckDB package it also reports two parameters of
// a named query whose names differ only in case (ParamCaseClash).
func (c *Catalog) checkQueries(pkg *Package, where string) {
	check := func(q *Query, file string) {
		what := "query " + q.Name
		if q.Notebook != nil {
			what = q.Name
		}
		var msgs []string
		if a, b, clash := ParamCaseClash(q, pkg.Engine); clash {
			msgs = append(msgs, CaseClashProblem(a, b))
		}
		if pkg.Engine == EnginePostgres || q.Notebook != nil {
			msgs = append(msgs, ParamProblems(q, Placeholders(q.SQL, pkg.Engine), pkg.Engine)...)
		}
		for _, msg := range msgs {
			full := fmt.Sprintf("%s/%s: %s (line %d): %s", where, file, what, q.Line, msg)
			q.Problems = append(q.Problems, full)
			c.note(&pkg.Problems, "", "%s", full)
		}
	}
	for _, m := range pkg.Models {
		if len(m.Problems) > 0 {
			continue // its previous version: told once, for the file
		}
		for _, q := range m.Queries {
			check(q, filepath.Base(m.File))
		}
	}
	for _, nb := range pkg.Notebooks {
		for _, q := range nb.Cells {
			check(q, filepath.Base(nb.File))
		}
	}
}

// maxPeek is how many entries of a folder peekFolder reads at most: a folder of
// many data files costs the load no more than this.
const maxPeek = 1000

// peekFolder says whether the folder dir holds a manifest.json, and names the
// model files (.sql) among its first maxPeek entries, at most 3.
func peekFolder(dir string) (manifest bool, models []string) {
	f, err := os.Open(dir)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	ents, _ := f.ReadDir(maxPeek)
	for _, de := range ents {
		switch n := de.Name(); {
		case n == "manifest.json" && !de.IsDir():
			manifest = true
		case strings.HasSuffix(n, ".sql") && !de.IsDir() && !strings.HasPrefix(n, ".") && len(models) < 3:
			models = append(models, n)
		}
	}
	return manifest, models
}

// fileList names model files found by peekFolder for a message.
func fileList(files []string) string {
	if len(files) == 1 {
		return "the model file " + files[0]
	}
	return "model files (" + strings.Join(files, ", ") + ")"
}

// linkedFolder says, for an entry de of the folder dir that is a symbolic link
// to a folder, that it is not followed and where it leads (inside the catalog
// at root, or out of it); "" for anything else. Projects and packages are
// folders of the catalog itself: a link is not followed, inside the catalog or
// out of it, so that nothing outside the catalog is served, no folder is
// served twice under two names, and every change in a package is seen (the
// catalog's watch does not follow links).
func linkedFolder(root, dir string, de fs.DirEntry) string {
	if de.Type()&fs.ModeSymlink == 0 {
		return ""
	}
	path := filepath.Join(dir, de.Name())
	st, err := os.Stat(path)
	if err != nil || !st.IsDir() {
		return ""
	}
	where := "out of the catalog"
	target, err := filepath.EvalSymlinks(path)
	realRoot, rerr := filepath.EvalSymlinks(root)
	if err == nil && rerr == nil {
		switch rel, err := filepath.Rel(realRoot, target); {
		case err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)):
		case rel == ".":
			where = "to the catalog folder itself"
		default:
			where = "to " + filepath.ToSlash(rel) + ", inside the catalog"
		}
	}
	return fmt.Sprintf("a symbolic link to a folder (%s), which the catalog does not follow: projects and packages must be folders of the catalog itself; move or copy the folder here instead of linking it", where)
}

// index builds the entry tree and the path map.
func (c *Catalog) index() {
	c.byPath = map[string]*Entry{}
	add := func(parent *Entry, e *Entry) *Entry {
		if parent != nil {
			e.Parent = parent.Path
			e.Path = parent.Path + "/" + e.Name
			parent.Children = append(parent.Children, e)
		} else {
			e.Path = e.Name
		}
		c.byPath[e.Path] = e
		c.entries = append(c.entries, e)
		return e
	}
	c.roots = nil
	for _, p := range c.Projects {
		pe := add(nil, &Entry{Kind: KindProject, Name: p.Name, Description: p.Description, Project: p})
		c.roots = append(c.roots, pe)
		for _, pkg := range p.Packages {
			ke := add(pe, &Entry{Kind: KindPackage, Name: pkg.Name, Description: pkg.Description, Project: p, Package: pkg})
			for _, m := range pkg.Models {
				me := add(ke, &Entry{Kind: KindModel, Name: m.Name, Description: m.Description, Project: p, Package: pkg, Model: m})
				for _, s := range m.Sources {
					add(me, &Entry{Kind: KindSource, Name: s.Name, Description: s.Description, Project: p, Package: pkg, Model: m, Source: s})
				}
				for _, q := range m.Queries {
					add(me, &Entry{Kind: KindQuery, Name: q.Name, Description: q.Description, Project: p, Package: pkg, Model: m, Query: q})
				}
			}
			for _, nb := range pkg.Notebooks {
				desc := nb.Description
				if nb.Title != "" && desc == "" {
					desc = nb.Title
				}
				ne := add(ke, &Entry{Kind: KindNotebook, Name: nb.Name, Description: desc, Project: p, Package: pkg, Notebook: nb, Model: nil})
				for _, q := range nb.Cells {
					add(ne, &Entry{Kind: KindQuery, Name: q.Name, Description: q.Description, Project: p, Package: pkg, Model: q.Model, Query: q, Notebook: nb})
				}
			}
		}
	}
	for _, e := range c.entries {
		slices.SortFunc(e.Children, func(a, b *Entry) int { return CompareNames(a.Name, b.Name) })
	}
	slices.SortFunc(c.roots, func(a, b *Entry) int { return CompareNames(a.Name, b.Name) })
	slices.SortFunc(c.entries, func(a, b *Entry) int { return ComparePaths(a.Path, b.Path) })
}

// jsonError is a manifest's JSON problem said in the catalog author's terms; it
// wraps encoding/json's error.
type jsonError struct {
	msg string
	err error
}

func (e *jsonError) Error() string { return e.msg }
func (e *jsonError) Unwrap() error { return e.err }

// jsonProblem says what is wrong with a manifest's JSON in the catalog author's
// terms (the field, the type it takes, where), not Go's ("cannot unmarshal
// number into Go struct field projectManifest.description of type string"). v
// is what it decodes into (a pointer to a struct).
func jsonProblem(err error, data string, v any) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	msg := ""
	switch {
	case errors.As(err, &te) && te.Field != "":
		want := "a string (text in double quotes)"
		if te.Type.Kind() != reflect.String {
			want = "a JSON " + te.Type.Kind().String()
		}
		msg = fmt.Sprintf("field %q must be %s, not a JSON %s", te.Field, want, te.Value)
	case errors.As(err, &te):
		msg = fmt.Sprintf("the file must hold one JSON object ({\"description\": \"…\", …}), not a JSON %s", te.Value)
	case errors.As(err, &se):
		line, col := 1, 1
		for _, r := range data[:min(max(int(se.Offset)-1, 0), len(data))] {
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		msg = fmt.Sprintf("not valid JSON at line %d, column %d: %s", line, col, strings.TrimPrefix(se.Error(), "json: "))
	case errors.Is(err, io.EOF):
		msg = "the file is empty: it must hold one JSON object, such as {\"description\": \"…\"}"
	case errors.Is(err, io.ErrUnexpectedEOF):
		msg = "the JSON ends before its object closes"
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		var fields []string
		t := reflect.TypeOf(v).Elem()
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			fields = append(fields, name)
		}
		msg = fmt.Sprintf("unknown field %s (the fields it takes: %s)", strings.TrimPrefix(err.Error(), "json: unknown field "), strings.Join(fields, ", "))
	default:
		return err
	}
	return &jsonError{msg: msg, err: err}
}
