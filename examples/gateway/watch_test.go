package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestWatchReloadsOnChangeAndSIGHUP: a changed file is picked up by itself; SIGHUP
// reloads even when the file looks unchanged (same size and modification time).
func TestWatchReloadsOnChangeAndSIGHUP(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "gateway.json")
	write := func(name string, mtime time.Time) {
		if err := os.WriteFile(path, []byte(`{"servers": {"`+name+`": {"command": {"argv": ["date"]}}}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now().Add(-time.Hour)
	write("aaaa", t0)
	loaded := stamp(path)
	cfg, err := LoadConfigFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGateway(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); watchConfig(ctx, g, path, loaded, io.Discard) }()
	defer func() { cancel(); <-done }()
	has := func(name string) func() bool {
		return func() bool { _, ok := g.health().Servers[name]; return ok }
	}
	write("bbbb", t0.Add(time.Minute))
	waitFor(t, "the changed file to be loaded", has("bbbb"))
	// Same size, same time: only the signal can make it load.
	write("cccc", t0.Add(time.Minute))
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "SIGHUP to reload", has("cccc"))
}
