package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestRacyRewriteReloads: a data file written twice within one tick of the
// file system's clock (the same size and modification time), with a poll
// between the two writes, has its second version loaded; once the file stops
// being racy (catalog.RacyWindow) nothing loads again, and the other package,
// racy and untouched all along, never loads again.
func TestRacyRewriteReloads(t *testing.T) {
	dir := t.TempDir()
	for pkg, who := range map[string]string{"x": "alpha", "y": "omega"} {
		writeFiles(t, dir, map[string]string{
			"p/" + pkg + "/manifest.json": "{}",
			"p/" + pkg + "/data/id.csv":   "who\n" + who + "\n",
			"p/" + pkg + "/m.sql":         "-- @source s\nSELECT * FROM read_csv('data/id.csv');\n\n-- @query who\nSELECT who FROM s;\n",
		})
	}
	writeFiles(t, dir, map[string]string{"p/z/manifest.json": "{}"}) // the probe below
	setTimes(t, filepath.Join(dir, "p", "x"))
	// p/y racy from the start; p/x's data written below, with a time racy
	// for RacyWindow and a second (room for the loads below).
	when := time.Now().Add(time.Second)
	stamp := func(path, content string, when time.Time) {
		t.Helper()
		full := filepath.Join(dir, path)
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(full, when, when); err != nil {
			t.Fatal(err)
		}
	}
	stamp("p/y/data/id.csv", "who\nomega\n", when)
	svc := newTestService(t, dir, Config{})
	watch(t, svc)
	// Wait for the watch's first poll: edit p/z until a reload reads it.
	wantZ := func() string {
		svc.mu.Lock()
		defer svc.mu.Unlock()
		return svc.want["p/z"]
	}
	for i, z := 0, wantZ(); wantZ() == z; i++ {
		if i > 4000 {
			t.Fatal("the watch never reread the catalog")
		}
		writeFiles(t, dir, map[string]string{"p/z/probe.txt": fmt.Sprint(i)})
		time.Sleep(5 * time.Millisecond)
	}
	ctx := context.Background()
	engineOf := func(path string) modelEngine {
		sn := svc.snap()
		return sn.engines[sn.cat.Lookup(path).Model]
	}
	who := func(path string) any {
		t.Helper()
		res, err := svc.Execute(ctx, executeIn{Path: path + "/who"})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return res.Rows[0][0]
	}
	y := engineOf("p/y/m")
	old := engineOf("p/x/m")
	waitEngine := func(what string, from modelEngine) modelEngine {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for engineOf("p/x/m") == from {
			if time.Now().After(deadline) {
				t.Fatalf("p/x not loaded again after %s", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
		return engineOf("p/x/m")
	}

	// Dated 4 s ahead, the file stays racy for 6 s: room for its first load
	// on a busy machine before the second write.
	whenY, when := when, time.Now().Add(4*time.Second)
	stamp("p/x/data/id.csv", "who\nbravo\n", when)
	first := waitEngine("its first write", old)
	if got := who("p/x/m"); got != "bravo" {
		t.Fatalf("p/x after its first write: %v", got)
	}
	if time.Now().After(when.Add(catalog.RacyWindow - 200*time.Millisecond)) {
		t.Skip("the first load took too long to rewrite the file while racy")
	}
	stamp("p/x/data/id.csv", "who\ngamma\n", when) // the same size and time
	second := waitEngine("its second write, the same size and time", first)
	if got := who("p/x/m"); got != "gamma" {
		t.Errorf("p/x after its second write: %v, want gamma", got)
	}

	// Past the window: no file is racy, nothing loads again.
	time.Sleep(time.Until(when.Add(catalog.RacyWindow + 100*time.Millisecond)))
	time.Sleep(time.Until(whenY.Add(catalog.RacyWindow + 100*time.Millisecond)))
	time.Sleep(50 * time.Millisecond) // a few polls
	if engineOf("p/x/m") != second {
		t.Error("p/x loaded again once its file stopped being racy")
	}
	if engineOf("p/y/m") != y {
		t.Error("p/y, racy and untouched, loaded again")
	}
}
