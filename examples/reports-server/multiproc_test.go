package main

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// TestTwoProcessesShareState runs two server processes on the same reports and data
// directories, as an HTTP inbox and a client-launched instance would, and has each
// update its own half of the reports concurrently. Every acknowledged update must be
// in the state file afterwards (nothing one process wrote is overwritten by the
// other's stale view), and each process comes to show the other's changes.
func TestTwoProcessesShareState(t *testing.T) {
	bin := buildServer(t)
	dir, data := t.TempDir(), t.TempDir()
	const perProc, rounds = 12, 6
	for i := range 2 * perProc {
		writeReport(t, dir, testReport(fmt.Sprintf("r%02d", i), "R", "ci", reports.StatusFailing, testTime))
	}
	procs := []*serverProc{
		startServer(t, bin, "-dir", dir, "-data", data, "-poll", "50ms"),
		startServer(t, bin, "-dir", dir, "-data", data, "-poll", "50ms"),
	}
	cycle := []reports.LifecycleStatus{reports.LifecycleRead, reports.LifecycleDismissed, reports.LifecycleUnread}
	// final is the status each report ends with: the last of its rounds.
	final := func(i int) reports.LifecycleStatus { return cycle[(rounds-1+i)%len(cycle)] }
	var wg sync.WaitGroup
	errs := make(chan error, 2*perProc)
	for p, proc := range procs {
		for k := range perProc {
			i := p*perProc + k
			wg.Add(1)
			go func() {
				defer wg.Done()
				client := &http.Client{Timeout: 20 * time.Second}
				for r := range rounds {
					if err := setStatusHTTP(client, proc.base, fmt.Sprintf("r%02d", i), cycle[(r+i)%len(cycle)]); err != nil {
						errs <- fmt.Errorf("process %d, r%02d round %d: %w", p, i, r, err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	// A third process reads the state file as it is on disk.
	got := listHTTP(t, startServer(t, bin, "-dir", dir, "-data", data).base)
	lost := 0
	for i := range 2 * perProc {
		id := fmt.Sprintf("r%02d", i)
		if got[id] != final(i) {
			lost++
			t.Errorf("%s is %s on disk, want %s (its last acknowledged update)", id, got[id], final(i))
		}
	}
	t.Logf("%d acknowledged updates from two processes, %d lost", 2*perProc*rounds, lost)
	// Each running process picks up the other's updates at its poll interval.
	for p, proc := range procs {
		deadline := time.Now().Add(10 * time.Second)
		for {
			view := listHTTP(t, proc.base)
			missing := 0
			for i := range 2 * perProc {
				if view[fmt.Sprintf("r%02d", i)] != final(i) {
					missing++
				}
			}
			if missing == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("process %d still shows %d stale statuses after 10s", p, missing)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
