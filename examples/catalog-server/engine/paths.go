package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
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
	var tree map[string]any
	if err := json.Unmarshal([]byte(raw), &tree); err != nil {
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

// inside resolves p against dir and checks that the result stays in dir.
func inside(dir, p string) (string, error) {
	if strings.Contains(p, "://") {
		return "", fmt.Errorf("%q: a source reads files of its package folder only, not URLs", p)
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(dir, p)
	}
	abs = filepath.Clean(abs)
	if abs != dir && !strings.HasPrefix(abs, dir+string(filepath.Separator)) {
		return "", fmt.Errorf("%q is outside the package folder", p)
	}
	return abs, nil
}
