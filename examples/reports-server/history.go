package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// History bounds: the versions kept per report, and the reports kept at all (those
// whose newest version is oldest go first).
const (
	maxHistoryVersions = 20
	maxHistoryReports  = 1000
)

// historyMetric is one numeric metric of one report version.
type historyMetric struct {
	Section string  `json:"section,omitempty"`
	Label   string  `json:"label"`
	Value   float64 `json:"value"`
	Unit    string  `json:"unit,omitempty"`
}

// historyPoint is one version of a report: its content hash, its own updatedAt and
// its numeric metrics.
type historyPoint struct {
	Hash      string          `json:"hash"`
	UpdatedAt time.Time       `json:"updatedAt"`
	Metrics   []historyMetric `json:"metrics,omitempty"`
}

type historyFile struct {
	Version int                       `json:"version"`
	Reports map[string][]historyPoint `json:"reports"`
}

// HistoryStore keeps the last maxHistoryVersions versions of each report (its
// numeric metrics only) in one JSON file beside the lifecycle state, so that the inbox
// can chart how a report that comes back over time (a nightly build, a weekly audit)
// moves. A version is recorded when the inbox first serves a content hash. Like
// StateStore, every write takes the file's lock, merges with the file as it is on disk
// and replaces it atomically, so processes sharing the data directory keep each
// other's versions. Methods are safe for concurrent use.
type HistoryStore struct {
	path string

	mu      sync.Mutex
	reports map[string][]historyPoint
}

// OpenHistory loads the history file at path, or starts empty when it does not exist.
// A file that cannot be parsed is an error, as for the state file.
func OpenHistory(path string) (*HistoryStore, error) {
	h, err := readHistory(path)
	if err != nil {
		return nil, err
	}
	return &HistoryStore{path: path, reports: h}, nil
}

func readHistory(path string) (map[string][]historyPoint, error) {
	out := map[string][]historyPoint{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var hf historyFile
	if err := json.Unmarshal(data, &hf); err != nil {
		return nil, fmt.Errorf("history: %s is not a valid history file (remove it to start afresh): %w", path, err)
	}
	if hf.Version != 1 {
		return nil, fmt.Errorf("history: %s has version %d, want 1", path, hf.Version)
	}
	for id, pts := range hf.Reports {
		if reports.ValidID(id) && len(pts) > 0 {
			out[id] = pts
		}
	}
	return out, nil
}

// metricsOf lists the numeric metrics of r.
func metricsOf(r *reports.Report) []historyMetric {
	var out []historyMetric
	for _, s := range r.Sections {
		if s.Type != reports.SectionMetrics {
			continue
		}
		for _, m := range s.Items {
			if v, ok := m.Value.Number(); ok {
				out = append(out, historyMetric{Section: s.Title, Label: m.Label, Value: v, Unit: m.Unit})
			}
		}
	}
	return out
}

// addPoint inserts p into pts (ordered by UpdatedAt, then hash) unless its hash is
// there, and keeps the newest maxHistoryVersions. It reports whether pts changed.
func addPoint(pts []historyPoint, p historyPoint) ([]historyPoint, bool) {
	if slices.ContainsFunc(pts, func(q historyPoint) bool { return q.Hash == p.Hash }) {
		return pts, false
	}
	pts = append(slices.Clone(pts), p)
	sort.SliceStable(pts, func(i, j int) bool {
		if !pts[i].UpdatedAt.Equal(pts[j].UpdatedAt) {
			return pts[i].UpdatedAt.Before(pts[j].UpdatedAt)
		}
		return pts[i].Hash < pts[j].Hash
	})
	if len(pts) > maxHistoryVersions {
		pts = pts[len(pts)-maxHistoryVersions:]
	}
	return pts, true
}

// Record adds the given report versions (report and content hash) that are not in the
// history yet, with one locked write for all of them. Versions already known cost no
// disk access.
func (h *HistoryStore) Record(versions []reports.LoadedReport, hashes []string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var todo []int
	for i, v := range versions {
		if !slices.ContainsFunc(h.reports[v.Report.ID], func(q historyPoint) bool { return q.Hash == hashes[i] }) {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	lock, err := lockFile(h.path)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer lock.unlock()
	next, err := readHistory(h.path)
	if err != nil {
		return err
	}
	for _, i := range todo {
		r := versions[i].Report
		next[r.ID], _ = addPoint(next[r.ID], historyPoint{Hash: hashes[i], UpdatedAt: r.UpdatedAt.UTC(), Metrics: metricsOf(r)})
	}
	if len(next) > maxHistoryReports {
		ids := make([]string, 0, len(next))
		for id := range next {
			ids = append(ids, id)
		}
		newest := func(id string) time.Time { p := next[id]; return p[len(p)-1].UpdatedAt }
		sort.Slice(ids, func(i, j int) bool { return newest(ids[i]).Before(newest(ids[j])) })
		for _, id := range ids[:len(next)-maxHistoryReports] {
			delete(next, id)
		}
	}
	data, err := json.Marshal(historyFile{Version: 1, Reports: next})
	if err != nil {
		return err
	}
	if err := reports.WriteFileAtomic(h.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("history: saving %s: %w", h.path, err)
	}
	h.reports = next
	return nil
}

// Versions returns the recorded versions of the report with the given id, oldest
// first.
func (h *HistoryStore) Versions(id string) []historyPoint {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.reports[id])
}
