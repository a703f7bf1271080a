package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// swapCatalog writes packages p/x (who = alpha, query who_alpha) and p/y (gamma,
// who_gamma), alike in every name, size and modification time.
func swapCatalog(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for pkg, who := range map[string]string{"x": "alpha", "y": "gamma"} {
		writeFiles(t, dir, map[string]string{
			"p/" + pkg + "/manifest.json": "{}",
			"p/" + pkg + "/data/id.csv":   "who\n" + who + "\n",
			"p/" + pkg + "/m.sql":         "-- Package " + who + ".\n-- @source s\nSELECT * FROM read_csv('data/id.csv');\n\n-- @query who_" + who + "\nSELECT who FROM s;\n",
		})
	}
	setTimes(t, filepath.Join(dir, "p"))
	return dir
}

// setTimes gives every file and folder under (and with) root the same times.
func setTimes(t *testing.T, root string) {
	t.Helper()
	when := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(path, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// swapPackages swaps the folders of p/x and p/y (as a blue/green deployment of
// copies that keep their modification times does), then gives p its times back:
// only the folders' identities tell the change.
func swapPackages(t *testing.T, dir string) {
	t.Helper()
	tmp := filepath.Join(dir, "p", ".swap")
	for _, mv := range [][2]string{{"p/x", "p/.swap"}, {"p/y", "p/x"}, {"p/.swap", "p/y"}} {
		from, to := filepath.Join(dir, mv[0]), filepath.Join(dir, mv[1])
		if mv[0] == "p/.swap" {
			from = tmp
		}
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
	}
	setTimes(t, filepath.Join(dir, "p"))
}

// TestSwappedPackagesReload: two packages alike in names, sizes and modification
// times that swap folders each serve their own data after the next reload (they
// served the other's, their engines reading the folder now at their path), as
// does a package whose model file was replaced by another alike; the same times
// set again move the files' change time (Linux): the package may load again,
// and serves the same.
func TestSwappedPackagesReload(t *testing.T) {
	dir := swapCatalog(t)
	svc := newTestService(t, dir, Config{})
	ctx := context.Background()
	who := func(path string) any {
		t.Helper()
		res, err := svc.Execute(ctx, executeIn{Path: path})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return res.Rows[0][0]
	}
	if got := who("p/x/m/who_alpha"); got != "alpha" {
		t.Fatalf("p/x before the swap: %v", got)
	}
	swapPackages(t, dir)
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got := who("p/x/m/who_gamma"); got != "gamma" {
		t.Errorf("p/x after the swap: %v, want gamma", got)
	}
	if got := who("p/y/m/who_alpha"); got != "alpha" {
		t.Errorf("p/y after the swap: %v, want alpha", got)
	}
	if svc.snap().cat.Lookup("p/x/m/who_alpha") != nil {
		t.Error("p/x still lists who_alpha after the swap")
	}

	// A model file renamed over another of the same size and times.
	writeFiles(t, dir, map[string]string{"p/x/new.sql": "-- Package delta.\n-- @source s\nSELECT * FROM read_csv('data/id.csv');\n\n-- @query who_delta\nSELECT who FROM s;\n"})
	if err := os.Rename(filepath.Join(dir, "p/x/new.sql"), filepath.Join(dir, "p/x/m.sql")); err != nil {
		t.Fatal(err)
	}
	setTimes(t, filepath.Join(dir, "p"))
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got := who("p/x/m/who_delta"); got != "gamma" {
		t.Errorf("p/x after its model file was replaced: %v, want gamma", got)
	}

	// The same times set again: a change of the change time (a reload that
	// loads nothing new, never a change missed); p/x serves the same.
	setTimes(t, filepath.Join(dir, "p"))
	if err := svc.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if got := who("p/x/m/who_delta"); got != "gamma" {
		t.Errorf("p/x after its times were set again: %v, want gamma", got)
	}
}

// TestWatchSeesSwappedPackages: the watch sees the swap too (the project
// folder's times given back), and each package answers its own data.
func TestWatchSeesSwappedPackages(t *testing.T) {
	dir := swapCatalog(t)
	svc := newTestService(t, dir, Config{})
	watch(t, svc)
	ctx := context.Background()
	// The watch is polling once it has seen a new project.json (written again
	// until it is seen: its first fingerprint may come after a write); then, some
	// polls later, its last fingerprint is of the times set back.
	for i := 0; svc.snap().cat.Lookup("p").Description != fmt.Sprint("d", i); i++ {
		if i == 100 {
			t.Fatal("the watch did not see a new project.json")
		}
		writeFiles(t, dir, map[string]string{"p/project.json": fmt.Sprintf(`{"description": "d%d"}`, i+1)})
		setTimes(t, filepath.Join(dir, "p"))
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	swapPackages(t, dir)
	// A poll may come between the moves: wait for both packages.
	for path, want := range map[string]string{"p/x/m/who_gamma": "gamma", "p/y/m/who_alpha": "alpha"} {
		deadline := time.Now().Add(20 * time.Second)
		for {
			res, err := svc.Execute(ctx, executeIn{Path: path})
			if err == nil && res.Rows[0][0] == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s after the swap: %v %v", path, res, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
