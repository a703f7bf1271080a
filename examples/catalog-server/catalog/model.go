// Package catalog reads a catalog directory into an immutable model: projects hold
// packages, packages hold models and notebooks, models hold sources and named queries.
// It knows nothing of MCP or of query engines; the server builds both of its surfaces
// (resources and tools) from one *Catalog.
//
// Layout:
//
//	CATALOG/
//	  PROJECT/
//	    project.json          optional: {"description": "…"}
//	    PACKAGE/
//	      manifest.json       makes the folder a package: {"description": "…", "engine": "duckdb" | "postgres", "dsnEnv": "VAR", "schema": "…"}
//	      data/…              the package's data files (CSV, Parquet, JSON), read in place
//	      MODEL.sql           sources and named queries (see ParseModel)
//	      NOTEBOOK.md         Markdown whose ```sql cells run against a model
//
// A *Catalog is never changed after Load returns; a reload builds a new one.
package catalog

import (
	"math"
	"math/big"
	"regexp"
	"strings"
	"sync"
)

// Kind is the kind of a catalog object.
type Kind string

// Kinds of catalog objects, from the top of the tree down.
const (
	KindProject  Kind = "project"
	KindPackage  Kind = "package"
	KindModel    Kind = "model"
	KindSource   Kind = "source"
	KindQuery    Kind = "query"
	KindNotebook Kind = "notebook"
)

// Engine names accepted in a manifest.
const (
	EngineDuckDB   = "duckdb"
	EnginePostgres = "postgres"
)

// Catalog is a loaded catalog directory.
type Catalog struct {
	Dir      string
	Projects []*Project // sorted by name
	// Diagnostics lists what was skipped while loading, and why (a file that does
	// not parse, a name that is not allowed). The rest of the catalog still loads.
	Diagnostics []string
	// Problems lists what was skipped at the top of the catalog (a folder that is
	// a symbolic link, a name that is not allowed), shown by describe of the
	// catalog itself (an empty path).
	Problems []string

	byPath  map[string]*Entry
	entries []*Entry          // every object, sorted by path (the search index)
	roots   []*Entry          // the projects' entries, sorted by name (CompareNames)
	skipped map[string]string // path of an object whose file was skipped → why
	prev    *Catalog          // while loading: the catalog loaded before (nil after)

	// folded holds the Fold of every entry's name, description and columns, in
	// the order of entries, built at the first search (Entry.Columns are set
	// before the catalog is served).
	foldOnce sync.Once
	folded   []foldedEntry
}

// foldedEntry is the searchable text of one entry, folded.
type foldedEntry struct {
	name, desc string
	cols       []string
	params     []string // a named query's parameter names
	more       string   // its parameters' descriptions; a notebook's prose
}

// Project is a top-level folder.
type Project struct {
	Name        string
	Description string
	Dir         string
	Packages    []*Package
	// Problems lists what was skipped in the project (a package whose manifest
	// does not parse, say), and why.
	Problems []string
}

// Package is a folder with a manifest.
type Package struct {
	Project     *Project
	Name        string
	Description string
	Dir         string
	Engine      string // EngineDuckDB or EnginePostgres
	DSNEnv      string // postgres: the environment variable that holds the connection string
	Schema      string // postgres: the search_path of its queries (empty: the server's default)
	Models      []*Model
	Notebooks   []*Notebook
	// Problems lists the package's files that were skipped (a model that does not
	// parse, say), and why; the rest of the package is served.
	Problems []string
	// OutsideLinks names the symbolic links in a DuckDB package's folder whose
	// target is outside it ("data/shared -> /srv/shared", relative to the
	// package folder), as found when the catalog loaded (OutsideLinks). A glob
	// through such a link lists names outside the package, so ad-hoc SQL on
	// the package's models is refused while there is one.
	OutsideLinks []string
}

// Model is one SQL file of a package.
type Model struct {
	Package     *Package
	Name        string
	Description string
	File        string
	Sources     []*Source
	Queries     []*Query
	// Text is the file's text this model was parsed from: a later load that finds
	// the file broken parses it again and keeps serving it (see LoadAfter).
	Text string
	// Problems says what is wrong with the model's file: set when the file no
	// longer parses and this model is its previous version, still served.
	Problems []string
}

// Source is a named relation a model defines: a SELECT over data files or tables.
type Source struct {
	Model       *Model
	Name        string
	Description string
	SQL         string
	// Line and Col are where SQL starts in the model's file (1-based), for
	// messages about a position in it (FilePosition).
	Line, Col int
}

// Query is a named query with typed parameters, in a model or a notebook cell.
type Query struct {
	Model       *Model    // the model it runs against
	Notebook    *Notebook // set for a notebook cell
	Name        string
	Description string
	SQL         string
	Params      []Param
	// Line and Col are where SQL starts in its file (1-based; the model file,
	// or the notebook), for messages about a position in it (FilePosition).
	Line, Col int
	// Problems lists what the catalog found wrong with the query when it loaded
	// (a parameter the SQL uses but does not declare, one declared and never
	// used): the query is still listed, and runs as far as the engine lets it.
	Problems []string
}

// FilePosition returns the line and column (1-based, in characters) in the
// file of the character at pos (1-based, in characters) of sql, which starts
// at line, col of the file; 0, 0 when pos is 0 or line unknown.
func FilePosition(sql string, line, col, pos int) (int, int) {
	if pos <= 0 || line <= 0 {
		return 0, 0
	}
	n := 0
	l, c := line, col
	for _, r := range sql {
		n++
		if n == pos {
			return l, c
		}
		if r == '\n' {
			l, c = l+1, 1
		} else {
			c++
		}
	}
	return l, c // just past the end
}

// Param is a typed parameter of a named query.
type Param struct {
	Name        string `json:"name"`
	Type        string `json:"type"` // SQL type as written: INTEGER, DOUBLE, VARCHAR, DATE, BOOLEAN, …
	Description string `json:"description,omitempty"`
}

// intBounds are the exact ranges of the integer types of DuckDB and PostgreSQL
// (and their aliases), by name.
var intBounds = func() map[string][2]*big.Int {
	i := func(v int64) *big.Int { return big.NewInt(v) }
	u := func(v uint64) *big.Int { return new(big.Int).SetUint64(v) }
	pow2 := func(n uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), n) }
	minus1 := func(v *big.Int) *big.Int { return new(big.Int).Sub(v, big.NewInt(1)) }
	r := func(lo, hi *big.Int) [2]*big.Int { return [2]*big.Int{lo, hi} }
	i8, i16, i32, i64 := r(i(math.MinInt8), i(math.MaxInt8)), r(i(math.MinInt16), i(math.MaxInt16)), r(i(math.MinInt32), i(math.MaxInt32)), r(i(math.MinInt64), i(math.MaxInt64))
	i128 := r(new(big.Int).Neg(pow2(127)), minus1(pow2(127)))
	return map[string][2]*big.Int{
		"TINYINT": i8, "INT1": i8,
		"SMALLINT": i16, "INT2": i16, "SHORT": i16, "SMALLSERIAL": r(i(1), i(math.MaxInt16)), "SERIAL2": r(i(1), i(math.MaxInt16)),
		"INTEGER": i32, "INT": i32, "INT4": i32, "SIGNED": i32, "SERIAL": r(i(1), i(math.MaxInt32)), "SERIAL4": r(i(1), i(math.MaxInt32)),
		"BIGINT": i64, "INT8": i64, "LONG": i64, "BIGSERIAL": r(i(1), i(math.MaxInt64)), "SERIAL8": r(i(1), i(math.MaxInt64)),
		"HUGEINT": i128, "INT128": i128,
		"UTINYINT": r(i(0), u(math.MaxUint8)), "UINT8": r(i(0), u(math.MaxUint8)),
		"USMALLINT": r(i(0), u(math.MaxUint16)), "UINT16": r(i(0), u(math.MaxUint16)),
		"UINTEGER": r(i(0), u(math.MaxUint32)), "UINT32": r(i(0), u(math.MaxUint32)),
		"UBIGINT": r(i(0), u(math.MaxUint64)), "UINT64": r(i(0), u(math.MaxUint64)),
		"UHUGEINT": r(i(0), minus1(pow2(128))), "UINT128": r(i(0), minus1(pow2(128))),
	}
}()

// otherInt is the name of an integer type intBounds does not list (INT32,
// UINT16, INT64): not INTERVAL, INT4RANGE, VARINT or a type of another form.
var otherInt = regexp.MustCompile(`^U?INT\d+$`)

// IntBounds returns the exact range of an integer parameter's type; ok is false
// for a parameter whose type is not an integer type. Another integer type's
// name (otherInt) gets BIGINT's range, the rest being left to the engine's
// cast. The bounds must not be changed.
func (p Param) IntBounds() (lo, hi *big.Int, ok bool) {
	t := strings.ToUpper(strings.TrimSpace(p.Type))
	if r, ok := intBounds[t]; ok {
		return r[0], r[1], true
	}
	if !otherInt.MatchString(t) {
		return nil, nil, false
	}
	r := intBounds["BIGINT"]
	return r[0], r[1], true
}

// JSONType is the JSON Schema type a parameter's value must have.
func (p Param) JSONType() string {
	t := strings.ToUpper(strings.Join(strings.Fields(p.Type), " "))
	if _, _, ok := p.IntBounds(); ok {
		return "integer"
	}
	switch {
	case t == "DOUBLE" || t == "DOUBLE PRECISION" || t == "FLOAT" || t == "FLOAT4" || t == "FLOAT8" || t == "REAL" || strings.HasPrefix(t, "DECIMAL") || strings.HasPrefix(t, "NUMERIC"):
		return "number"
	case t == "BOOLEAN" || t == "BOOL":
		return "boolean"
	}
	return "string"
}

// Notebook is a Markdown file of a package; its SQL cells are named queries
// "cell-1", "cell-2", … that run against one model of the package.
type Notebook struct {
	Package     *Package
	Name        string
	Title       string
	Description string
	File        string
	Markdown    string
	ModelName   string // the model its cells run against
	Cells       []*Query
	Problems    []string // what is wrong with its Markdown (a fence not closed, several model lines), each naming its file and line
}

// Entry is one object of the catalog as both surfaces show it.
type Entry struct {
	Path        string // "project/package/model/source"
	Kind        Kind
	Name        string
	Description string
	Parent      string   // path of the parent ("" for a project)
	Children    []*Entry // sorted by name, naturally (CompareNames)
	Columns     []string // filled by the server's column index, if any (searchable; set before the first Search, which folds them once)

	Project  *Project
	Package  *Package
	Model    *Model
	Source   *Source
	Query    *Query
	Notebook *Notebook
}

// Lookup returns the object at path, or nil.
func (c *Catalog) Lookup(path string) *Entry {
	if e := c.byPath[path]; e != nil {
		return e
	}
	return c.byPath[strings.Join(Segments(path), "/")]
}

// Entries returns every object, sorted by path (ComparePaths). The slice must not be changed.
func (c *Catalog) Entries() []*Entry { return c.entries }

// Roots returns the projects as entries, sorted by name (CompareNames). The
// slice must not be changed.
func (c *Catalog) Roots() []*Entry { return c.roots }

// Model returns the model at project/package/model, or nil.
func (c *Catalog) Model(path string) *Model {
	e := c.Lookup(path)
	if e == nil || e.Kind != KindModel {
		return nil
	}
	return e.Model
}
