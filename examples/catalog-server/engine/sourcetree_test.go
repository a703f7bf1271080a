package engine

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// constantsSQL is a source of n short constants, the shape of the audit's
// model whose syntax tree took 690 MB of the server's memory: 'xx' is 5 bytes
// of SQL and about 160 bytes of json_serialize_sql's tree.
func constantsSQL(n int) string {
	return "SELECT " + strings.Repeat("'xx',", n-1) + "'xx' AS last"
}

// TestLoadProcSourceTreeNotInServer: a source's syntax tree is read and walked
// in the model's load process; the server sends the SQL and reads back the
// view's SQL only. Before, the server read the whole tree (JSON) into maps
// and wrote it out again: about 18 bytes of its memory per byte of the tree,
// 690 MB for a model of 1 MiB.
func TestLoadProcSourceTreeNotInServer(t *testing.T) {
	const n = 20000 // a tree of about 3 MiB, under maxSourceTree
	m := loadModel(t, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/data/t.csv":    "x,y\n1,2\n",
		"p/k/m.sql":         "-- @source s\n" + constantsSQL(n) + "\n-- @source t\nSELECT * FROM 'data/t.csv'\n",
	}, "p/k/m")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d, err := OpenDuck(context.Background(), m, DuckConfig{Loader: testWorker})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	defer d.Close()
	if len(d.Columns()["s"]) != n || d.Broken()["s"] != "" || len(d.Columns()["t"]) != 2 {
		t.Fatalf("source s: %d columns, broken %q; t: %v", len(d.Columns()["s"]), d.Broken()["s"], d.Columns()["t"])
	}
	// The SQL is 100 KB; the view's columns are 20,000 names and types.
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("the server allocated %d MiB loading it", alloc>>20)
	if alloc > 24<<20 {
		t.Errorf("the server allocated %d MiB loading a source of %d bytes", alloc>>20, len(constantsSQL(n)))
	}
}

// TestSourceTreeTooLarge: a source whose syntax tree is larger than
// maxSourceTree is broken, saying so (the tree's size, the limit, what to do),
// in a load process and in this one; the model's other sources load.
func TestSourceTreeTooLarge(t *testing.T) {
	files := func(n int) map[string]string {
		return map[string]string{
			"p/k/manifest.json": `{}`,
			"p/k/data/t.csv":    "x,y\n1,2\n",
			"p/k/m.sql":         "-- @source big\n" + constantsSQL(n) + "\n-- @source t\nSELECT * FROM 'data/t.csv'\n",
		}
	}
	check := func(d *Duck, limit string) {
		t.Helper()
		msg := d.Broken()["big"]
		if !strings.HasPrefix(msg, "the source's SQL is too large to check: its syntax tree is ") || !strings.Contains(msg, "MiB, past "+limit+" (the SQL is ") ||
			!strings.Contains(msg, "Put long lists of values in a file of the package") {
			t.Errorf("big: %q", msg)
		}
		if d.Columns()["big"] != nil || len(d.Columns()["t"]) != 2 {
			t.Errorf("columns: big %v, t %v", d.Columns()["big"], d.Columns()["t"])
		}
	}
	// In a load process: its own maxSourceTree, 8 MiB (60,000 constants:
	// about 9 MiB of tree).
	d, err := OpenDuck(context.Background(), loadModel(t, files(60000), "p/k/m"), DuckConfig{Loader: testWorker})
	if err != nil {
		t.Fatal(err)
	}
	check(d, "8.0 MiB")
	d.Close()

	defer func(n int) { maxSourceTree = n }(maxSourceTree)
	maxSourceTree = 256 << 10
	d, err = OpenDuck(context.Background(), loadModel(t, files(2000), "p/k/m"), DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	check(d, "0.2 MiB")
	if msg := d.Broken()["big"]; !strings.Contains(msg, "(the SQL is 0.1 MiB)") {
		t.Errorf("big: %q", msg)
	}
	d.Close()
}
