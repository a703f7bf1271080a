package main

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// slowOpen opens the models of package b after d (or never, with d < 0),
// ending early, as a load process that is killed, when the load's context
// ends; cancelled counts those so ended.
type slowOpen struct {
	d         atomic.Int64 // a time.Duration
	mu        sync.Mutex
	cancelled int
	entered   chan struct{}
}

func (o *slowOpen) open(ctx context.Context, m *catalog.Model, real func(context.Context, *catalog.Model) (modelEngine, error)) (modelEngine, error) {
	if m.Package.Name == "b" {
		select {
		case o.entered <- struct{}{}:
		default:
		}
		var after <-chan time.Time
		if d := time.Duration(o.d.Load()); d >= 0 {
			after = time.After(d)
		}
		select {
		case <-after:
		case <-ctx.Done():
			o.mu.Lock()
			o.cancelled++
			o.mu.Unlock()
			return nil, ctx.Err()
		}
	}
	return real(ctx, m)
}

// editB writes package b's model with the named query eN, the edit's number,
// and has svc read the catalog as its watch does (without waiting).
func editB(t *testing.T, svc *Service, dir string, n int) {
	t.Helper()
	writeFiles(t, dir, map[string]string{"p/b/m.sql": "-- @source s\nSELECT 1 AS x;\n\n-- @query e" + strconv.Itoa(n) + "\nSELECT x FROM s;\n"})
	if _, err := svc.reread(); err != nil {
		t.Fatal(err)
	}
}

// servedEdit is the number of the edit of package b that cat serves (0: the
// first version, with query one; -1: none).
func servedEdit(cat *catalog.Catalog) int {
	for _, p := range cat.Projects {
		for _, pkg := range p.Packages {
			if p.Name != "p" || pkg.Name != "b" || len(pkg.Models) == 0 || len(pkg.Models[0].Queries) == 0 {
				continue
			}
			if n, err := strconv.Atoi(strings.TrimPrefix(pkg.Models[0].Queries[0].Name, "e")); err == nil {
				return n
			}
			return 0
		}
	}
	return -1
}

// TestSteadyEditsStillSwapIn: a package whose files change more often than
// its load takes has a new version swapped in within loadRestartLimit and one
// load, while the edits go on, and the last version once they stop. Before,
// each change cancelled the load in progress, and the previous version stayed
// served for as long as the edits went on (a data file appended every 2 s to
// a package whose load took 5 s: forever).
func TestSteadyEditsStillSwapIn(t *testing.T) {
	dir := twoPackages(t)
	slow := &slowOpen{entered: make(chan struct{}, 1)}
	const limit, load, every = 400 * time.Millisecond, 300 * time.Millisecond, 100 * time.Millisecond
	svc := newTestService(t, dir, Config{open: slow.open, restartLimit: limit})
	slow.d.Store(int64(load)) // the first load was quick; each of those that follow takes 300 ms
	start := time.Now()
	swapped, n := time.Duration(0), 0
	for time.Since(start) < 4*time.Second {
		n++
		editB(t, svc, dir, n)
		if e := servedEdit(svc.Catalog()); e > 0 && swapped == 0 {
			swapped = time.Since(start)
			t.Logf("edit %d swapped in after %v, at edit %d", e, swapped, n)
			break
		}
		time.Sleep(every)
	}
	if swapped == 0 {
		t.Fatalf("edits every %v to a package whose load takes %v: no new version swapped in within 4 s (restart limit %v)", every, load, limit)
	}
	// The limit, one load, and the load cancelled in between, with room for
	// a slow machine.
	if swapped > limit+2*load+time.Second {
		t.Errorf("a new version was swapped in after %v: want within the restart limit (%v) and a load (%v)", swapped, limit, load)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := svc.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	if e := servedEdit(svc.Catalog()); e != n {
		t.Errorf("once the edits stopped: edit %d served, want the last, %d", e, n)
	}
}

// TestBurstOfEditsLoadsLastState: a burst of edits shorter than
// loadRestartLimit (files being copied in) swaps in only its last state:
// each edit cancels the load in progress, and no version in between is
// ever served.
func TestBurstOfEditsLoadsLastState(t *testing.T) {
	dir := twoPackages(t)
	slow := &slowOpen{entered: make(chan struct{}, 1)}
	svc := newTestService(t, dir, Config{open: slow.open, restartLimit: 20 * time.Second})
	slow.d.Store(int64(150 * time.Millisecond))
	var mu sync.Mutex
	seen := map[int]bool{}
	svc.OnReload(func(_, cat *catalog.Catalog) {
		mu.Lock()
		seen[servedEdit(cat)] = true
		mu.Unlock()
	})
	const last = 12
	for n := 1; n <= last; n++ {
		editB(t, svc, dir, n)
		time.Sleep(50 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := svc.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	if e := servedEdit(svc.Catalog()); e != last {
		t.Errorf("after the burst: edit %d served, want %d", e, last)
	}
	mu.Lock()
	defer mu.Unlock()
	for e := range seen {
		if e != 0 && e != last {
			t.Errorf("edit %d of the burst was swapped in: want only the state before (0) and the last (%d)", e, last)
		}
	}
	slow.mu.Lock()
	defer slow.mu.Unlock()
	if slow.cancelled == 0 {
		t.Errorf("no load was cancelled by the burst")
	}
}

// TestStopCancelsLoadPastRestartLimit: a load that a change left to finish
// (past loadRestartLimit) is still cancelled at once when the server stops.
func TestStopCancelsLoadPastRestartLimit(t *testing.T) {
	dir := twoPackages(t)
	slow := &slowOpen{entered: make(chan struct{}, 1)}
	svc, err := NewService(context.Background(), dir, Config{open: slow.open, restartLimit: 50 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	slow.d.Store(-1) // never ends but by its context
	select {
	case <-slow.entered: // the first load's
	default:
	}
	editB(t, svc, dir, 1)
	select {
	case <-slow.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("package b's load did not start")
	}
	time.Sleep(100 * time.Millisecond)
	editB(t, svc, dir, 2) // past the limit: the load in progress goes on
	time.Sleep(100 * time.Millisecond)
	slow.mu.Lock()
	c := slow.cancelled
	slow.mu.Unlock()
	if c != 0 {
		t.Fatalf("a change past the restart limit cancelled the load in progress")
	}
	start := time.Now()
	svc.Close()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("stopping took %v with a load in progress past the restart limit", took)
	}
	slow.mu.Lock()
	defer slow.mu.Unlock()
	if slow.cancelled != 1 {
		t.Errorf("the load in progress was not cancelled by the stop (%d cancelled)", slow.cancelled)
	}
}
