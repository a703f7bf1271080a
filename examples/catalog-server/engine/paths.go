package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// fileFunctions are the DuckDB table functions whose first argument is a file path
// or a list of them.
var fileFunctions = map[string]bool{
	"read_csv": true, "read_csv_auto": true, "read_parquet": true, "parquet_scan": true,
	"read_json": true, "read_json_auto": true, "read_ndjson": true, "read_ndjson_auto": true,
	"read_json_objects": true, "read_text": true, "read_blob": true, "sniff_csv": true,
}

// rewritePaths makes the file paths of a source's SELECT absolute, relative to the
// package folder, using DuckDB's own parser: the statement goes through
// json_serialize_sql, the file references in its syntax tree (FROM 'file.csv' and
// read_…('file') calls) are rewritten, and json_deserialize_sql turns it back into
// SQL. A path that leaves the package folder is an error; so is anything but one
// SELECT statement.
func rewritePaths(ctx context.Context, conn *sql.Conn, sqlText, pkgDir string) (string, error) {
	var raw string
	if err := conn.QueryRowContext(ctx, "SELECT json_serialize_sql($1::VARCHAR)::VARCHAR", sqlText).Scan(&raw); err != nil {
		return "", duckErr(err)
	}
	// Numbers stay as written: query_location is an unsigned 64-bit integer that
	// a float64 would round, and json_deserialize_sql then refuses the tree.
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var tree map[string]any
	if err := dec.Decode(&tree); err != nil {
		return "", err
	}
	if tree["error"] == true {
		return "", fmt.Errorf("a source must be one SELECT statement: %v", tree["error_message"])
	}
	if st, _ := tree["statements"].([]any); len(st) != 1 {
		return "", fmt.Errorf("a source must be exactly one SELECT statement, not %d", len(st))
	}
	var walkErr error
	fix := func(p string) string {
		abs, err := inside(pkgDir, p)
		if err != nil && walkErr == nil {
			walkErr = err
		}
		return abs
	}
	var walk func(v any)
	walk = func(v any) {
		switch n := v.(type) {
		case map[string]any:
			if n["type"] == "BASE_TABLE" {
				name, _ := n["table_name"].(string)
				if n["schema_name"] == "" && n["catalog_name"] == "" && looksLikeFile(name) {
					n["table_name"] = fix(name)
				}
			}
			if n["class"] == "FUNCTION" {
				if fn, _ := n["function_name"].(string); fileFunctions[strings.ToLower(fn)] {
					if ch, _ := n["children"].([]any); len(ch) > 0 {
						fixConstant(ch[0], fix)
					}
				}
			}
			for _, c := range n {
				walk(c)
			}
		case []any:
			for _, c := range n {
				walk(c)
			}
		}
	}
	walk(tree)
	if walkErr != nil {
		return "", walkErr
	}
	b, err := json.Marshal(tree)
	if err != nil {
		return "", err
	}
	var out string
	if err := conn.QueryRowContext(ctx, "SELECT json_deserialize_sql($1::JSON)", string(b)).Scan(&out); err != nil {
		return "", duckErr(err)
	}
	return out, nil
}

// fixConstant rewrites a VARCHAR constant, or a list of them, in place.
func fixConstant(v any, fix func(string) string) {
	n, ok := v.(map[string]any)
	if !ok || n["class"] != "CONSTANT" {
		if ok && n["class"] == "FUNCTION" && n["function_name"] == "list_value" {
			for _, c := range n["children"].([]any) {
				fixConstant(c, fix)
			}
		}
		return
	}
	val, _ := n["value"].(map[string]any)
	if s, ok := val["value"].(string); ok {
		val["value"] = fix(s)
	}
}

func looksLikeFile(name string) bool {
	return strings.ContainsAny(name, "/\\") || strings.Contains(filepath.Ext(name), ".")
}

// inside resolves p against dir (the package folder, symbolic links resolved) and
// checks that the result stays in dir, first as written and then with every
// symbolic link on the way resolved: a link inside the package that points out of
// it is refused. For a glob pattern the folder before the first wildcard is
// resolved here; the files it matches are checked by DuckDB's own file-access
// check, which also resolves links (the views are built under the same limits as
// queries run).
func inside(dir, p string) (string, error) {
	if strings.Contains(p, "://") {
		return "", fmt.Errorf("%q: a source reads files of its package folder only, not URLs", p)
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(dir, p)
	}
	abs = filepath.Clean(abs)
	if !within(dir, abs) {
		return "", fmt.Errorf("%q is outside the package folder", p)
	}
	fixed := abs
	if i := strings.IndexAny(abs, "*?["); i >= 0 {
		fixed = filepath.Dir(abs[:i+1])
	}
	real, err := resolve(fixed)
	if err != nil {
		return "", fmt.Errorf("%q: %w", p, err)
	}
	if !within(dir, real) {
		return "", fmt.Errorf("%q goes through a symbolic link to %q, outside the package folder", p, real)
	}
	return abs, nil
}

// within reports whether the clean absolute path p is dir or below it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// resolve returns p with every symbolic link resolved. A part of p that does not
// exist (yet) is kept as written after its longest existing parent is resolved.
func resolve(p string) (string, error) {
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if target, lerr := os.Readlink(p); lerr == nil {
			return "", fmt.Errorf("%s is a symbolic link to %q, which does not exist", p, target)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
