package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// stateEntry is the lifecycle status a reader gave one version of a report.
type stateEntry struct {
	Status reports.LifecycleStatus `json:"status"`
	// Hash is reports.ContentHash of the report when the status was set. When the
	// report's content changes, the entry no longer applies and the report is unread.
	Hash      string    `json:"hash"`
	UpdatedAt time.Time `json:"updatedAt"`
}

type stateFile struct {
	Version int                   `json:"version"`
	Reports map[string]stateEntry `json:"reports"`
}

// StateStore keeps lifecycle statuses in one JSON file. Every Set writes the whole file
// atomically (temp file, fsync, rename, fsync of the directory) before it returns, so
// an acknowledged change survives a crash. Its methods are safe for concurrent use;
// writes are serialised by one mutex.
type StateStore struct {
	path string

	mu      sync.Mutex
	entries map[string]stateEntry
}

// OpenState loads the state file at path, or starts empty when it does not exist. The
// directory is created. A file that cannot be parsed is an error: the user decides
// whether to delete it.
func OpenState(path string) (*StateStore, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	s := &StateStore{path: path, entries: map[string]stateEntry{}}
	// A crash during a write can leave a temporary file behind; the state file itself
	// is always whole (the rename is atomic), so leftovers are only removed.
	if leftovers, err := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")); err == nil {
		for _, l := range leftovers {
			os.Remove(l)
		}
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	var f stateFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("state: %s is not a valid state file (remove it to start afresh): %w", path, err)
	}
	if f.Version != 1 {
		return nil, fmt.Errorf("state: %s has version %d, want 1", path, f.Version)
	}
	for id, e := range f.Reports {
		if e.Status.Valid() {
			s.entries[id] = e
		}
	}
	return s, nil
}

// Path returns the state file's path.
func (s *StateStore) Path() string { return s.path }

// Status returns the lifecycle status of the report with the given id and content hash:
// the stored status if it was set on this content, otherwise unread.
func (s *StateStore) Status(id, hash string) reports.LifecycleStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[id]
	if !ok || e.Hash != hash {
		return reports.LifecycleUnread
	}
	return e.Status
}

// Set records status for the report's current content and persists the change before
// returning. On error nothing changes, in memory or on disk.
func (s *StateStore) Set(id, hash string, status reports.LifecycleStatus, now time.Time) error {
	if !status.Valid() {
		return fmt.Errorf("state: invalid lifecycle status %q", status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := maps.Clone(s.entries)
	if status == reports.LifecycleUnread {
		delete(next, id) // no entry means unread
	} else {
		next[id] = stateEntry{Status: status, Hash: hash, UpdatedAt: now.UTC()}
	}
	data, err := json.MarshalIndent(stateFile{Version: 1, Reports: next}, "", " ")
	if err != nil {
		return err
	}
	if err := reports.WriteFileAtomic(s.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("state: saving %s: %w", s.path, err)
	}
	s.entries = next
	return nil
}
