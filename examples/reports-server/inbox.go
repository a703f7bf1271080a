package main

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// ErrNotFound is returned for an id that names no report.
var ErrNotFound = errors.New("no such report")

// entry is one report as currently served.
type entry struct {
	report *reports.Report // never modified after it is stored
	file   string          // "" for built-in samples
	hash   string
}

// Change describes what one Replace or SetStatus changed.
type Change struct {
	Added, Updated, Removed []string // report ids whose content appeared, changed, went
	Lifecycle               []string // report ids whose lifecycle status was set
	Diagnostics             bool     // the list of invalid files changed
}

func (c Change) empty() bool {
	return len(c.Added)+len(c.Updated)+len(c.Removed)+len(c.Lifecycle) == 0 && !c.Diagnostics
}

// Inbox is the set of reports being served together with their lifecycle state. Its
// methods are safe for concurrent use. Listeners run synchronously, in the goroutine
// that made the change, after the Inbox's lock is released.
type Inbox struct {
	state   *StateStore
	history *HistoryStore // nil: no history kept
	histErr func(error)   // told when recording history fails
	now     func() time.Time

	mu        sync.RWMutex
	entries   map[string]entry
	diags     []reports.Diagnostic
	listeners []func(Change)
}

// NewInbox returns an empty inbox whose lifecycle state lives in state.
func NewInbox(state *StateStore) *Inbox {
	return &Inbox{state: state, now: time.Now, entries: map[string]entry{}}
}

// KeepHistory makes the inbox record every new report version in h (see
// HistoryStore); onErr is told when that fails (the report is served regardless).
// Call it before the first Replace.
func (in *Inbox) KeepHistory(h *HistoryStore, onErr func(error)) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.history, in.histErr = h, onErr
}

// Versions returns the recorded versions of the report with the given id, oldest
// first (nil without history).
func (in *Inbox) Versions(id string) []historyPoint {
	in.mu.RLock()
	h := in.history
	in.mu.RUnlock()
	if h == nil {
		return nil
	}
	return h.Versions(id)
}

// OnChange registers f to be called after every change.
func (in *Inbox) OnChange(f func(Change)) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.listeners = append(in.listeners, f)
}

func (in *Inbox) notify(c Change) {
	if c.empty() {
		return
	}
	in.mu.RLock()
	ls := slices.Clone(in.listeners)
	in.mu.RUnlock()
	for _, f := range ls {
		f(c)
	}
}

// Replace makes loaded the served set and diags the current diagnostics, and reports
// what changed.
func (in *Inbox) Replace(loaded []reports.LoadedReport, diags []reports.Diagnostic) Change {
	next := make(map[string]entry, len(loaded))
	for _, l := range loaded {
		next[l.Report.ID] = entry{report: l.Report, file: l.File, hash: reports.ContentHash(l.Report)}
	}
	var c Change
	in.mu.Lock()
	for id, e := range next {
		old, ok := in.entries[id]
		switch {
		case !ok:
			c.Added = append(c.Added, id)
		case old.hash != e.hash:
			c.Updated = append(c.Updated, id)
		}
	}
	for id := range in.entries {
		if _, ok := next[id]; !ok {
			c.Removed = append(c.Removed, id)
		}
	}
	c.Diagnostics = !slices.Equal(in.diags, diags)
	in.entries = next
	in.diags = slices.Clone(diags)
	h, onErr := in.history, in.histErr
	in.mu.Unlock()
	if h != nil && len(c.Added)+len(c.Updated) > 0 {
		var versions []reports.LoadedReport
		var hashes []string
		for _, ids := range [][]string{c.Added, c.Updated} {
			for _, id := range ids {
				versions = append(versions, reports.LoadedReport{Report: next[id].report, File: next[id].file})
				hashes = append(hashes, next[id].hash)
			}
		}
		if err := h.Record(versions, hashes); err != nil && onErr != nil {
			onErr(err)
		}
	}
	sort.Strings(c.Added)
	sort.Strings(c.Updated)
	sort.Strings(c.Removed)
	in.notify(c)
	return c
}

// Diagnostics returns the invalid files skipped by the last Replace.
func (in *Inbox) Diagnostics() []reports.Diagnostic {
	in.mu.RLock()
	defer in.mu.RUnlock()
	return slices.Clone(in.diags)
}

// withLifecycle returns a copy of e's report carrying its lifecycle status.
func (in *Inbox) withLifecycle(e entry) *reports.Report {
	r := e.report.Clone()
	r.LifecycleStatus = in.state.Status(r.ID, e.hash)
	return r
}

// List returns the summaries matching f, in the binding's order.
func (in *Inbox) List(f reports.ListInput) []reports.ReportSummary {
	in.mu.RLock()
	all := make([]reports.ReportSummary, 0, len(in.entries))
	for _, e := range in.entries {
		s := e.report.ReportSummary
		s.Tags = slices.Clone(s.Tags)
		s.LifecycleStatus = in.state.Status(s.ID, e.hash)
		all = append(all, s)
	}
	in.mu.RUnlock()
	return reports.Filter(all, f)
}

// Get returns a copy of the report with the given id, carrying its lifecycle status.
func (in *Inbox) Get(id string) (*reports.Report, error) {
	in.mu.RLock()
	e, ok := in.entries[id]
	in.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	return in.withLifecycle(e), nil
}

// Categories returns the distinct categories of the served reports, sorted.
func (in *Inbox) Categories() []string {
	in.mu.RLock()
	defer in.mu.RUnlock()
	seen := map[string]bool{}
	var out []string
	for _, e := range in.entries {
		if c := e.report.Category; !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// SetStatus sets the lifecycle status of the report with the given id and returns once
// the change is on disk. It applies to the report's current content: if the content
// changes later, the report is unread again.
func (in *Inbox) SetStatus(id string, status reports.LifecycleStatus) error {
	if !status.Valid() {
		return fmt.Errorf("invalid lifecycle status %q: want unread, read or dismissed", status)
	}
	in.mu.RLock()
	e, ok := in.entries[id]
	in.mu.RUnlock()
	if !ok {
		return fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if err := in.state.Set(id, e.hash, status, in.now()); err != nil {
		return err
	}
	in.notify(Change{Lifecycle: []string{id}})
	return nil
}

// RefreshState picks up lifecycle changes other processes sharing the state file
// made, and tells the listeners about those of served reports.
func (in *Inbox) RefreshState() error {
	ids, err := in.state.Refresh()
	if err != nil || len(ids) == 0 {
		return err
	}
	in.mu.RLock()
	var served []string
	for _, id := range ids {
		if _, ok := in.entries[id]; ok {
			served = append(served, id)
		}
	}
	in.mu.RUnlock()
	in.notify(Change{Lifecycle: served})
	return nil
}

// sortDiagnostics orders diagnostics by file, so that equal sets compare equal.
func sortDiagnostics(d []reports.Diagnostic) {
	sort.Slice(d, func(i, j int) bool { return d[i].File < d[j].File })
}
