package engine

import (
	"context"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestWorkerEnviron: a query process's environment gets WorkerMalloc (one heap
// a thread) as GLIBC_TUNABLES unless the server's environment has the variable, whose
// value (empty: the C library's defaults) then stays, and GOMAXPROCS=1 whatever
// the server's is; nothing else of the server's environment passes but what
// DuckDB and Go read.
func TestWorkerEnviron(t *testing.T) {
	const malloc2 = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864:glibc.malloc.arena_max=2"
	const procs = "GOMAXPROCS=1"
	for _, c := range []struct {
		env     []string
		threads int
		want    []string
	}{
		{[]string{"TZ=UTC", "PGPASSWORD=hunter2"}, 0, []string{"TZ=UTC", "GLIBC_TUNABLES=" + malloc2, procs}},
		{[]string{"TZ=UTC"}, 2, []string{"TZ=UTC", "GLIBC_TUNABLES=" + malloc2, procs}},
		{nil, 8, []string{"GLIBC_TUNABLES=" + strings.Replace(malloc2, "arena_max=2", "arena_max=8", 1), procs}},
		{[]string{"GLIBC_TUNABLES=glibc.malloc.arena_max=4", "HOME=/h"}, 2, []string{"GLIBC_TUNABLES=glibc.malloc.arena_max=4", "HOME=/h", procs}},
		{[]string{"GLIBC_TUNABLES="}, 2, []string{"GLIBC_TUNABLES=", procs}},
		{[]string{"GOMAXPROCS=8", "GOGC=200", "GLIBC_TUNABLES="}, 2, []string{"GOGC=200", "GLIBC_TUNABLES=", procs}},
	} {
		if got := workerEnviron(c.env, c.threads); !slices.Equal(got, c.want) {
			t.Errorf("workerEnviron(%q, %d) = %q, want %q", c.env, c.threads, got, c.want)
		}
	}
}

// quantileSQL computes a 90th percentile of a million values in 100 groups: its
// states (vectors that grow value by value) come from the C library's heap.
const quantileSQL = "SELECT k, quantile_cont(v, 0.9) AS p90 FROM (SELECT range % 100 AS k, (range * 7919) % 1000 AS v FROM range(1000000)) GROUP BY k"

// TestDuckProcWorkerMalloc: with WorkerMalloc (the default) a query process
// keeps the memory a quantile's states took for the next query, which takes
// far fewer pages from the system than the same query in a process with the C
// library's defaults (GLIBC_TUNABLES set empty in the server's environment).
// The count of page faults, not time: the same every run.
//
// The faults are those of one process, over its queries: the idle size bound
// (duckIdleMaxRSS) is raised here, so that a process grown past it with the C
// library's defaults on another machine (more heaps) is not ended between
// them, which is TestDuckProcBigIdleEnds's subject, not this test's; and the
// process is checked to be the same after them.
func TestDuckProcWorkerMalloc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("GLIBC_TUNABLES is the GNU C library's, and the page faults are read from Linux's /proc")
	}
	defer duckIdleMaxRSS.Store(duckIdleMaxRSS.Load())
	duckIdleMaxRSS.Store(1 << 30)
	faults := func(tunables *string) int {
		t.Setenv("GLIBC_TUNABLES", "")
		if tunables == nil {
			os.Unsetenv("GLIBC_TUNABLES") // restored by Setenv at the end
		} else {
			os.Setenv("GLIBC_TUNABLES", *tunables)
		}
		p := openTestProc(t, nil)
		defer p.Close()
		run := func() {
			if res, err := p.Query(context.Background(), quantileSQL, nil, testLimits); err != nil || len(res.Rows) != 100 {
				t.Fatalf("query: %v", err)
			}
		}
		// The process starts, and the query's memory is taken from the
		// system; the C library's heaps are per thread, and a query's part of
		// the work may run on another thread the next time: the fewest faults
		// of three queries after two.
		run()
		run()
		pids := p.pids()
		if len(pids) != 1 {
			t.Fatalf("workers: %v", pids)
		}
		least := -1
		for range 3 {
			before := minorFaults(t, pids[0])
			run()
			if n := minorFaults(t, pids[0]) - before; least < 0 || n < least {
				least = n
			}
		}
		if after := p.pids(); !slices.Equal(after, pids) {
			t.Fatalf("the queries ran in processes %v, then %v: the faults counted are not one process's", pids, after)
		}
		return least
	}
	empty := ""
	tuned, plain := faults(nil), faults(&empty)
	t.Logf("minor page faults of a quantile query (the fewest of three): %d with WorkerMalloc, %d with glibc's defaults", tuned, plain)
	if plain < 1000 {
		t.Fatalf("with glibc's defaults the query took only %d pages: this test would show nothing", plain)
	}
	if tuned*2 > plain {
		t.Errorf("with WorkerMalloc the query took %d pages from the system, with glibc's defaults %d: the memory was not kept", tuned, plain)
	}
}

// minorFaults reads the minor page faults of process pid (procStat).
func minorFaults(t *testing.T, pid int) int {
	f, ok := procStat(pid)
	if !ok || len(f) < 8 {
		t.Fatalf("process %d: no minor faults in %q", pid, f)
	}
	n, err := strconv.Atoi(f[7])
	if err != nil {
		t.Fatal(err)
	}
	return n
}
