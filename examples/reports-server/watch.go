package main

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// fileSig is what a poll compares to decide whether a file changed. The FileInfo is kept
// for os.SameFile, which notices an atomic replace (a new inode) even when size and
// modification time happen to match.
type fileSig struct {
	size int64
	mod  time.Time
	info os.FileInfo
}

func (a fileSig) same(b fileSig) bool {
	return a.size == b.size && a.mod.Equal(b.mod) && os.SameFile(a.info, b.info)
}

// parsed is the outcome of reading one file, cached until its signature changes.
type parsed struct {
	sig    fileSig
	report *reports.Report
	err    error
}

// Watcher polls a directory and feeds the valid reports in it to an Inbox. It uses no
// operating-system notification API, so it behaves the same everywhere: each poll lists
// the directory, stats every report file and re-reads only files whose signature
// changed. Scan and Run must not be called concurrently.
type Watcher struct {
	dir      string
	inbox    *Inbox
	interval time.Duration
	log      *slog.Logger

	cache   map[string]parsed // by file name
	skipped map[string]string // entries with report names that are not regular files → why
	lastErr string
}

// Minimum and maximum poll intervals accepted by NewWatcher.
const (
	minPoll = 10 * time.Millisecond
	maxPoll = time.Minute
)

// NewWatcher returns a watcher of dir that polls every interval, clamped to
// [minPoll, maxPoll].
func NewWatcher(dir string, inbox *Inbox, interval time.Duration, log *slog.Logger) *Watcher {
	interval = max(minPoll, min(maxPoll, interval))
	return &Watcher{dir: dir, inbox: inbox, interval: interval, log: log, cache: map[string]parsed{}}
}

// Scan polls once and updates the inbox when something changed. It returns the change
// (empty when nothing changed). When the directory cannot be read, the inbox keeps what
// it has and the error is logged once.
func (w *Watcher) Scan() Change {
	entries, err := os.ReadDir(w.dir)
	if err != nil {
		if msg := err.Error(); msg != w.lastErr {
			w.log.Error("cannot read the reports directory; keeping the last reports", "dir", w.dir, "err", err)
			w.lastErr = msg
		}
		return Change{}
	}
	w.lastErr = ""
	changed := false
	seen := map[string]bool{}
	skipped := map[string]string{}
	for _, e := range entries {
		name := e.Name()
		if !reports.IsReportFile(name) || e.IsDir() {
			continue
		}
		if why := reports.SkipReason(e.Type()); why != "" {
			skipped[name] = why
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed between ReadDir and Info; the next poll settles it
		}
		if why := reports.SkipReason(info.Mode()); why != "" {
			skipped[name] = why // replaced by something else since ReadDir
			continue
		}
		seen[name] = true
		sig := fileSig{size: info.Size(), mod: info.ModTime(), info: info}
		if old, ok := w.cache[name]; ok && old.sig.same(sig) {
			continue
		}
		r, err := reports.LoadFile(filepath.Join(w.dir, name))
		if err != nil {
			w.log.Warn("skipping invalid report file", "file", filepath.Join(w.dir, name), "err", err)
		}
		w.cache[name] = parsed{sig: sig, report: r, err: err}
		changed = true
	}
	for name := range w.cache {
		if !seen[name] {
			delete(w.cache, name)
			changed = true
		}
	}
	if !maps.Equal(skipped, w.skipped) {
		for name, why := range skipped {
			if w.skipped[name] != why {
				w.log.Warn("skipping a report directory entry", "file", filepath.Join(w.dir, name), "reason", why)
			}
		}
		w.skipped = skipped
		changed = true
	}
	if !changed {
		return Change{}
	}
	var loaded []reports.LoadedReport
	var diags []reports.Diagnostic
	for name, why := range w.skipped {
		diags = append(diags, reports.Diagnostic{File: filepath.Join(w.dir, name), Message: why})
	}
	for name, p := range w.cache {
		path := filepath.Join(w.dir, name)
		if p.err != nil {
			diags = append(diags, reports.Diagnostic{File: path, Message: p.err.Error()})
			continue
		}
		loaded = append(loaded, reports.LoadedReport{Report: p.report, File: path})
	}
	loaded, dup := reports.Dedupe(loaded)
	diags = append(diags, dup...)
	sortDiagnostics(diags)
	c := w.inbox.Replace(loaded, diags)
	if !c.empty() {
		w.log.Info("reports changed", "added", len(c.Added), "updated", len(c.Updated), "removed", len(c.Removed), "invalid", len(diags))
	}
	return c
}

// Run scans at once and then every interval until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	w.Scan()
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.Scan()
		}
	}
}
