package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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

// StateStore keeps lifecycle statuses in one JSON file, which several processes may
// share. Every Set takes the file's lock (see lockFile), re-reads the file, applies its
// one change to what it read and writes the whole file atomically (temp file, fsync,
// rename, fsync of the directory) before it returns: an acknowledged change survives a
// crash, and no process overwrites another's changes with a stale view. Refresh picks
// up changes written by other processes. Its methods are safe for concurrent use;
// writes are serialised by one mutex within the process and by the lock file across
// processes.
type StateStore struct {
	path string

	mu      sync.Mutex
	entries map[string]stateEntry
	sig     os.FileInfo // of the file as last read or written; nil when absent
}

// OpenState loads the state file at path, or starts empty when it does not exist. The
// directory is created. A file that cannot be parsed is an error: the user decides
// whether to delete it.
func OpenState(path string) (*StateStore, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	// A crash during a write can leave a temporary file and the lock behind; the state
	// file itself is always whole (the rename is atomic), so leftovers are only
	// removed — under the lock, which every writer holds while its temporary file
	// exists, so no other process's write in flight is touched.
	if lock, err := lockFile(path); err == nil {
		if leftovers, err := filepath.Glob(filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")); err == nil {
			for _, l := range leftovers {
				os.Remove(l)
			}
		}
		lock.unlock()
	}
	entries, sig, err := readState(path)
	if err != nil {
		return nil, err
	}
	return &StateStore{path: path, entries: entries, sig: sig}, nil
}

// readState reads the state file at path: its entries (empty when the file does not
// exist) and the FileInfo of what was read.
func readState(path string) (map[string]stateEntry, os.FileInfo, error) {
	entries := map[string]stateEntry{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return entries, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("state: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("state: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, fmt.Errorf("state: %w", err)
	}
	var sf stateFile
	if err := json.Unmarshal(data, &sf); err != nil {
		return nil, nil, fmt.Errorf("state: %s is not a valid state file (remove it to start afresh): %w", path, err)
	}
	if sf.Version != 1 {
		return nil, nil, fmt.Errorf("state: %s has version %d, want 1", path, sf.Version)
	}
	for id, e := range sf.Reports {
		if e.Status.Valid() {
			entries[id] = e
		}
	}
	return entries, info, nil
}

// sameFile reports whether a and b describe the same version of a file.
func sameFile(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
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

// Refresh re-reads the state file if another process changed it and returns the ids
// whose entries changed (sorted). A file that cannot be read or parsed leaves the
// current view as it is and returns the error.
func (s *StateStore) Refresh() ([]string, error) {
	info, err := os.Stat(s.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("state: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		info = nil
	}
	if sameFile(info, s.sig) {
		return nil, nil
	}
	entries, sig, err := readState(s.path)
	if err != nil {
		return nil, err
	}
	changed := diffEntries(s.entries, entries)
	s.entries, s.sig = entries, sig
	return changed, nil
}

func diffEntries(a, b map[string]stateEntry) []string {
	var out []string
	for id, e := range a {
		if f, ok := b[id]; !ok || f != e {
			out = append(out, id)
		}
	}
	for id := range b {
		if _, ok := a[id]; !ok {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// Set records status for the report's current content and persists the change before
// returning. On error nothing changes, in memory or on disk. Changes other processes
// made to other reports are kept (and become visible here).
func (s *StateStore) Set(id, hash string, status reports.LifecycleStatus, now time.Time) error {
	if !status.Valid() {
		return fmt.Errorf("state: invalid lifecycle status %q", status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	lock, err := lockFile(s.path)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	defer lock.unlock()
	// Merge: start from the file as it is now, not from this process's view.
	next, _, err := readState(s.path)
	if err != nil {
		return err
	}
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
	s.sig, _ = os.Stat(s.path) // still under the lock: no other write in between
	return nil
}
