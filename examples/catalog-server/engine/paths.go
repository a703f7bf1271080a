package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
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
//
// Then each read_csv call on one file is frozen (see freezeReaders).
//
// The syntax tree is read as a whole (map[string]any: about 18 bytes of Go's
// memory per byte of its JSON), so a tree larger than maxSourceTree is not read:
// the source is broken (TreeTooLargeError). In the server it runs in the
// model's load process (loadConn.viewBody), whose memory is watched.
func rewritePaths(ctx context.Context, conn loadConn, sqlText, pkgDir string) (string, error) {
	raw, err := rowString(ctx, conn, gateQuery, sqlText)
	if err != nil {
		return "", err
	}
	if len(raw) > maxSourceTree {
		return "", &TreeTooLargeError{Bytes: len(raw), Text: len(sqlText)}
	}
	tree, err := decodeTree(raw)
	raw = ""
	if err != nil {
		return "", err
	}
	if tree["error"] == true {
		if tree["error_type"] == "parser" {
			// Where the parser stopped, in the source's own text (none for an
			// error of its transformer, which has no position).
			pos := 0
			if p, err := strconv.Atoi(fmt.Sprint(tree["position"])); err == nil {
				pos = p + 1
			}
			return "", &SQLError{Engine: "duckdb", Message: fmt.Sprintf("Parser Error: %v (a source must be one SELECT statement)", tree["error_message"]), Position: pos}
		}
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
	eachNode(tree, func(n map[string]any) {
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
	})
	if walkErr != nil {
		return "", walkErr
	}
	if err := freezeReaders(ctx, conn, tree); err != nil {
		return "", err
	}
	return treeSQL(ctx, conn, tree)
}

// maxSourceTree is the largest syntax tree of a source (json_serialize_sql's
// answer, in bytes) rewritePaths reads: 8 MiB, the tree of about 400 KiB of
// ordinary SQL (20 bytes of tree per byte) or 250 KiB of nothing but short
// constants ('xx', 'xx', …: 32 bytes of tree per byte). Read, it takes about
// 150 MB of the load process's memory and a few seconds. A variable for the tests.
var maxSourceTree = 8 << 20

// TreeTooLargeError is a source whose syntax tree is larger than
// maxSourceTree: the source is broken, the rest of the model loads.
type TreeTooLargeError struct {
	Bytes int // the tree's size
	Text  int // the source's SQL's size
}

func (e *TreeTooLargeError) Error() string {
	return fmt.Sprintf("the source's SQL is too large to check: its syntax tree is %s, past %s (the SQL is %s). Put long lists of values in a file of the package (CSV, Parquet, JSON) and read it in the source, or split the source, then save the file to load it again",
		mibOf(e.Bytes, true), mibOf(maxSourceTree, false), mibOf(e.Text, true))
}

// mibOf writes n bytes in MiB with one decimal, rounded up or down (a tree
// past the limit never reads as the limit).
func mibOf(n int, up bool) string {
	f := float64(n) / (1 << 20) * 10
	if up {
		f = math.Ceil(f)
	} else {
		f = math.Floor(f)
	}
	return strconv.FormatFloat(f/10, 'f', 1, 64) + " MiB"
}

// parseTree returns DuckDB's syntax tree of sqlText (json_serialize_sql).
func parseTree(ctx context.Context, conn loadConn, sqlText string) (map[string]any, error) {
	raw, err := rowString(ctx, conn, gateQuery, sqlText)
	if err != nil {
		return nil, err
	}
	return decodeTree(raw)
}

// parseTreeOn is parseTree on a connection or a pool of this process.
func parseTreeOn(ctx context.Context, conn queryRower, sqlText string) (map[string]any, error) {
	var raw string
	if err := conn.QueryRowContext(ctx, gateQuery, sqlText).Scan(&raw); err != nil {
		return nil, duckErr(err)
	}
	return decodeTree(raw)
}

// decodeTree reads json_serialize_sql's answer.
func decodeTree(raw string) (map[string]any, error) {
	// Numbers stay as written: query_location is an unsigned 64-bit integer that
	// a float64 would round, and json_deserialize_sql then refuses the tree.
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var tree map[string]any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	return tree, nil
}

// queryRower is a connection or a pool: what parseTreeOn asks.
type queryRower interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// treeSQL turns a syntax tree back into SQL (json_deserialize_sql).
func treeSQL(ctx context.Context, conn loadConn, tree map[string]any) (string, error) {
	b, err := json.Marshal(tree)
	if err != nil {
		return "", err
	}
	return rowString(ctx, conn, "SELECT json_deserialize_sql($1::JSON)", string(b))
}

// csvReaders and jsonReaders are the table functions that detect a file's layout
// and column types by sampling it.
var (
	csvReaders  = map[string]bool{"read_csv": true, "read_csv_auto": true}
	jsonReaders = map[string]bool{"read_json": true, "read_json_auto": true, "read_ndjson": true, "read_ndjson_auto": true}
)

// freezeReaders freezes each call in tree that reads one CSV or JSON file (one path
// without wildcards) and leaves detection on: a CSV call becomes the call DuckDB's
// own sniffer makes of it (sniff_csv's Prompt: the dialect and column types it
// detected spelled out, detection off, the call's other options kept); a JSON call
// gets the columns and types DuckDB detected as its columns option. Detection
// samples the file on every query of the source — more than 100 ms for a few
// thousand CSV rows with a date column, 30 ms for 10,000 JSON lines; frozen, once per
// load of the model (a change to a file reloads the catalog, which detects again).
// A call stays as written when it cannot be frozen or when the frozen call would
// not give exactly the same column names and types. It returns an error only
// when DuckDB's load process failed (LoadError): the source is not loaded.
func freezeReaders(ctx context.Context, conn loadConn, tree map[string]any) error {
	var calls []map[string]any
	eachNode(tree, func(n map[string]any) {
		if fn, _ := n["function_name"].(string); n["class"] == "FUNCTION" && (csvReaders[strings.ToLower(fn)] || jsonReaders[strings.ToLower(fn)]) && freezable(n) {
			calls = append(calls, n)
		}
	})
	for _, call := range calls {
		fn := strings.ToLower(call["function_name"].(string))
		args, _ := call["children"].([]any)
		before, err := describeCall(ctx, conn, fn, args)
		if err != nil {
			if loadStopped(conn, err) {
				return err
			}
			continue
		}
		var frozen []any
		if csvReaders[fn] {
			fn = "read_csv"
			frozen, err = sniffedArgs(ctx, conn, args)
		} else {
			frozen, err = describedArgs(ctx, conn, before, args)
		}
		if err != nil {
			if loadStopped(conn, err) {
				return err
			}
			continue
		}
		after, err := describeCall(ctx, conn, fn, frozen)
		if loadStopped(conn, err) {
			return err
		}
		if err != nil || !slices.Equal(before, after) {
			continue
		}
		call["function_name"] = fn
		call["children"] = frozen
	}
	return nil
}

// describeCall returns the column names and types of SELECT * FROM fn(args), in
// order.
func describeCall(ctx context.Context, conn loadConn, fn string, args []any) ([]Column, error) {
	q, err := callSQL(ctx, conn, "*", fn, args)
	if err != nil {
		return nil, err
	}
	rows, err := conn.rows(ctx, 2, "SELECT column_name, column_type FROM (DESCRIBE "+q+")")
	if err != nil {
		return nil, err
	}
	var cols []Column
	for _, r := range rows {
		cols = append(cols, Column{Name: r[0], Type: r[1]})
	}
	return cols, nil
}

// callSQL returns SELECT sel FROM fn(args) as SQL: the call's arguments are syntax
// trees, put in the place of a probe's.
func callSQL(ctx context.Context, conn loadConn, sel, fn string, args []any) (string, error) {
	raw, err := probeTree(ctx, conn, sel)
	if err != nil {
		return "", err
	}
	probe, err := decodeTree(raw)
	if err != nil {
		return "", err
	}
	call := findCall(probe, "read_csv")
	if call == nil {
		return "", errors.New("no call in the probe")
	}
	call["function_name"], call["children"] = fn, args
	return treeSQL(ctx, conn, probe)
}

// probeTrees are the syntax trees (json_serialize_sql's answers) of callSQL's
// probes, SELECT sel FROM read_csv('x'), by sel. A probe's tree is the same at
// every call, so it is parsed once in a process, the first time its parse
// succeeds, not at each reader call (three a reader frozen); each call decodes
// its own copy, which it changes. Bounded: callSQL's callers pass two select
// lists, "*" and "Prompt".
var probeTrees struct {
	sync.Mutex
	raw map[string]string
}

// probeTree returns the syntax tree of callSQL's probe for sel, as JSON.
func probeTree(ctx context.Context, conn loadConn, sel string) (string, error) {
	probeTrees.Lock()
	raw, ok := probeTrees.raw[sel]
	probeTrees.Unlock()
	if ok {
		return raw, nil
	}
	raw, err := rowString(ctx, conn, gateQuery, "SELECT "+sel+" FROM read_csv('x')")
	if err != nil {
		return "", err
	}
	probeTrees.Lock()
	if probeTrees.raw == nil {
		probeTrees.raw = map[string]string{}
	}
	probeTrees.raw[sel] = raw
	probeTrees.Unlock()
	return raw, nil
}

// describedArgs returns the arguments of a JSON call (args) with the columns DuckDB
// detected for it (cols) added as its columns option.
func describedArgs(ctx context.Context, conn loadConn, cols []Column, args []any) ([]any, error) {
	var spec []string
	for _, c := range cols {
		if c.Name == "" || c.Type == "" {
			return nil, errors.New("DESCRIBE gave no name or type")
		}
		spec = append(spec, quoteLit(c.Name)+": "+quoteLit(c.Type))
	}
	if len(spec) == 0 {
		return nil, errors.New("no columns")
	}
	opt, err := parseTree(ctx, conn, "SELECT * FROM read_json('x', columns = {"+strings.Join(spec, ", ")+"})")
	if err != nil {
		return nil, err
	}
	read := findCall(opt, "read_json")
	if read == nil {
		return nil, errors.New("no call in the columns probe")
	}
	ch, _ := read["children"].([]any)
	if len(ch) != 2 {
		return nil, errors.New("no columns option in the probe")
	}
	return append(append([]any{}, args...), ch[1]), nil
}

// freezable reports whether a call reads one file (a string constant without
// wildcards) and leaves detection on (no auto_detect or columns option).
func freezable(call map[string]any) bool {
	args, _ := call["children"].([]any)
	if len(args) == 0 {
		return false
	}
	path, ok := constantString(args[0])
	if !ok || strings.ContainsAny(path, "*?[{") {
		return false
	}
	for _, a := range args[1:] {
		if name, _ := optionName(a); strings.EqualFold(name, "auto_detect") || strings.EqualFold(name, "columns") {
			return false
		}
	}
	return true
}

// sniffedArgs returns the arguments of the read_csv call sniff_csv proposes for a
// call with args: the call's path, the options the sniffer spelled out (auto_detect = false
// among them), and the call's own options the sniffer did not set.
func sniffedArgs(ctx context.Context, conn loadConn, args []any) ([]any, error) {
	probeSQL, err := callSQL(ctx, conn, "Prompt", "sniff_csv", args)
	if err != nil {
		return nil, err
	}
	prompt, err := rowString(ctx, conn, probeSQL)
	if err != nil {
		return nil, err
	}
	proposed, err := parseTree(ctx, conn, "SELECT * "+strings.TrimSuffix(strings.TrimSpace(prompt), ";"))
	if err != nil {
		return nil, err
	}
	read := findCall(proposed, "read_csv")
	if read == nil {
		return nil, fmt.Errorf("sniff_csv proposed %q", prompt)
	}
	out, _ := read["children"].([]any)
	if len(out) == 0 {
		return nil, fmt.Errorf("sniff_csv proposed %q", prompt)
	}
	out[0] = args[0] // the path exactly as checked
	set := map[string]bool{}
	for _, a := range out[1:] {
		if name, ok := optionName(a); ok {
			set[strings.ToLower(name)] = true
		}
	}
	if !set["auto_detect"] {
		return nil, fmt.Errorf("sniff_csv proposed %q, which leaves detection on", prompt)
	}
	for _, a := range args[1:] {
		name, ok := optionName(a)
		if !ok {
			return nil, errors.New("an argument of the call is not an option")
		}
		if !set[strings.ToLower(name)] {
			out = append(out, a)
		}
	}
	return out, nil
}

// findCall returns a function call named name in tree (the probes built here
// hold one).
func findCall(tree any, name string) map[string]any {
	var found map[string]any
	eachNode(tree, func(n map[string]any) {
		if found == nil && n["class"] == "FUNCTION" && n["function_name"] == name {
			found = n
		}
	})
	return found
}

// eachNode calls fn for every object of a syntax tree, each before the objects in
// it.
func eachNode(v any, fn func(n map[string]any)) {
	switch n := v.(type) {
	case map[string]any:
		fn(n)
		for _, c := range n {
			eachNode(c, fn)
		}
	case []any:
		for _, c := range n {
			eachNode(c, fn)
		}
	}
}

// optionName returns the name of a named argument: name = value, or name :=
// value (which DuckDB's syntax tree writes as the value with the name as its
// alias).
func optionName(v any) (string, bool) {
	n, _ := v.(map[string]any)
	if a, _ := n["alias"].(string); a != "" {
		return a, true
	}
	if n == nil || n["class"] != "COMPARISON" || n["type"] != "COMPARE_EQUAL" {
		return "", false
	}
	left, _ := n["left"].(map[string]any)
	if left == nil || left["class"] != "COLUMN_REF" {
		return "", false
	}
	names, _ := left["column_names"].([]any)
	if len(names) != 1 {
		return "", false
	}
	s, ok := names[0].(string)
	return s, ok
}

// constantString returns the value of a VARCHAR constant.
func constantString(v any) (string, bool) {
	n, _ := v.(map[string]any)
	if n == nil || n["class"] != "CONSTANT" {
		return "", false
	}
	val, _ := n["value"].(map[string]any)
	s, ok := val["value"].(string)
	return s, ok
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
	if !catalog.Within(dir, abs) {
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
	if !catalog.Within(dir, real) {
		return "", fmt.Errorf("%q goes through a symbolic link to %q, outside the package folder", p, real)
	}
	// A named pipe (or device) would hold DuckDB's read, and so the model's
	// loading, until a writer comes: only regular files (and folders) are read.
	files := []string{real}
	if fixed != abs {
		files, _ = filepath.Glob(abs) // the files the pattern matches now ("**" as "*")
	}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
			return "", fmt.Errorf("%q: %s is %s, not a regular file", p, f, catalog.FileKind(st.Mode()))
		}
	}
	return abs, nil
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
