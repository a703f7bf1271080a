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
	"strings"
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

	byPath  map[string]*Entry
	entries []*Entry          // every object, sorted by path (the search index)
	skipped map[string]string // path of an object whose file was skipped → why
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
}

// Model is one SQL file of a package.
type Model struct {
	Package     *Package
	Name        string
	Description string
	File        string
	Sources     []*Source
	Queries     []*Query
}

// Source is a named relation a model defines: a SELECT over data files or tables.
type Source struct {
	Model       *Model
	Name        string
	Description string
	SQL         string
}

// Query is a named query with typed parameters, in a model or a notebook cell.
type Query struct {
	Model       *Model    // the model it runs against
	Notebook    *Notebook // set for a notebook cell
	Name        string
	Description string
	SQL         string
	Params      []Param
}

// Param is a typed parameter of a named query.
type Param struct {
	Name        string `json:"name"`
	Type        string `json:"type"` // SQL type as written: INTEGER, DOUBLE, VARCHAR, DATE, BOOLEAN, …
	Description string `json:"description,omitempty"`
}

// JSONType is the JSON Schema type a parameter's value must have.
func (p Param) JSONType() string {
	t := strings.ToUpper(p.Type)
	switch {
	case strings.Contains(t, "INT"):
		return "integer"
	case t == "DOUBLE" || t == "FLOAT" || t == "REAL" || strings.HasPrefix(t, "DECIMAL") || strings.HasPrefix(t, "NUMERIC"):
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
}

// Entry is one object of the catalog as both surfaces show it.
type Entry struct {
	Path        string // "project/package/model/source"
	Kind        Kind
	Name        string
	Description string
	Parent      string   // path of the parent ("" for a project)
	Children    []*Entry // sorted by name
	Columns     []string // filled by the server's column index, if any (searchable)

	Project  *Project
	Package  *Package
	Model    *Model
	Source   *Source
	Query    *Query
	Notebook *Notebook
}

// Lookup returns the object at path, or nil.
func (c *Catalog) Lookup(path string) *Entry {
	return c.byPath[strings.Trim(path, "/")]
}

// Entries returns every object, sorted by path. The slice must not be changed.
func (c *Catalog) Entries() []*Entry { return c.entries }

// Roots returns the projects as entries, sorted by name.
func (c *Catalog) Roots() []*Entry {
	out := make([]*Entry, 0, len(c.Projects))
	for _, p := range c.Projects {
		out = append(out, c.byPath[p.Name])
	}
	return out
}

// Model returns the model at project/package/model, or nil.
func (c *Catalog) Model(path string) *Model {
	e := c.Lookup(path)
	if e == nil || e.Kind != KindModel {
		return nil
	}
	return e.Model
}
