package engine

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDuckParquetChanged: a model keeps the metadata of the Parquet files its
// queries read (parquet_metadata_cache, set by lockDown), and a file written
// again — in place, or replaced by a rename, with another number of rows — is
// read afresh by the next query, in the server's process and in a query
// process, without a reload. The query process is the same for all its
// queries (what it cached is what is checked): the idle size bound
// (duckIdleMaxRSS) is raised, so that a process ended for its size, which is
// TestDuckProcBigIdleEnds's subject, does not replace it unseen.
func TestDuckParquetChanged(t *testing.T) {
	defer duckIdleMaxRSS.Store(duckIdleMaxRSS.Load())
	duckIdleMaxRSS.Store(1 << 30)
	m := loadModel(t, map[string]string{
		"p/k/manifest.json": `{}`,
		"p/k/m.sql":         "-- @source events\nSELECT * FROM 'data/events.parquet'",
	}, "p/k/m")
	file := filepath.Join(m.Package.Dir, "data", "events.parquet")
	os.MkdirAll(filepath.Dir(file), 0o755)
	gen, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer gen.Close()
	// write makes the file hold rows 0 … n-1 (a, and b = k·a), written next to it
	// and then renamed over it, or copied into it in place.
	write := func(n, k int, inPlace bool) {
		t.Helper()
		tmp := file + ".tmp"
		if _, err := gen.Exec(fmt.Sprintf("COPY (SELECT range AS a, range * %d AS b FROM range(%d)) TO '%s' (FORMAT parquet)", k, n, tmp)); err != nil {
			t.Fatal(err)
		}
		if inPlace {
			b, err := os.ReadFile(tmp)
			if err == nil {
				err = os.WriteFile(file, b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(tmp)
		} else if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
	}
	write(1000, 2, false)
	d, err := OpenDuck(context.Background(), m, DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := openProc(t, m, DuckConfig{})
	for _, e := range []struct {
		name string
		q    interface {
			Query(context.Context, string, map[string]any, Limits) (*Result, error)
		}
	}{{"in process", d}, {"query process", p}} {
		t.Run(e.name, func(t *testing.T) {
			// query returns the one row of sqlText, each value as its JSON
			// without quotes (a query process's values are raw JSON).
			query := func(sqlText string) []string {
				t.Helper()
				res, err := e.q.Query(context.Background(), sqlText, nil, testLimits)
				if err != nil || len(res.Rows) != 1 {
					t.Fatalf("%s: %v %+v", sqlText, err, res)
				}
				var out []string
				for _, v := range res.Rows[0] {
					b, _ := json.Marshal(v)
					out = append(out, strings.Trim(string(b), `"`))
				}
				return out
			}
			if got := query("SELECT current_setting('parquet_metadata_cache') AS on")[0]; got != "true" {
				t.Fatalf("parquet_metadata_cache is %s", got)
			}
			var pids []int // the query process's
			if e.q == p {
				pids = p.pids()
				defer func() {
					if after := p.pids(); len(pids) != 1 || !slices.Equal(after, pids) {
						t.Errorf("the queries ran in processes %v, then %v: not one process's cache", pids, after)
					}
				}()
			}
			write(1000, 2, false)
			// The last two write files of the same size (7 rows, other values)
			// within a millisecond or so.
			for i, c := range []struct {
				n, k    int
				inPlace bool
			}{{1000, 2, false}, {5000, 2, false}, {10, 2, true}, {123456, 2, true}, {7, 2, false}, {7, 3, true}, {7, 5, false}} {
				if i > 0 {
					write(c.n, c.k, c.inPlace)
				}
				row := query("SELECT count(*) AS n, sum(b) AS s FROM events")
				if want := []string{fmt.Sprint(c.n), fmt.Sprint(c.k * c.n * (c.n - 1) / 2)}; !slices.Equal(row, want) {
					t.Errorf("after writing %d rows of b = %d·a (in place: %v): count and sum %v, want %v", c.n, c.k, c.inPlace, row, want)
				}
			}
		})
	}
}
