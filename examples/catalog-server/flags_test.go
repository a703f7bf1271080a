package main

import (
	"context"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestBadFlagValues: a flag value the server cannot run with is refused at start
// (exit status 2, the flag named), before anything is served; values used to be
// replaced silently (a negative -row-limit by 1000) or to leave every model
// unopened (a -memory-limit DuckDB cannot read).
func TestBadFlagValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-row-limit", "-5"}, "-row-limit -5: must be at least 1"},
		{[]string{"-row-limit", "0"}, "-row-limit 0: must be at least 1"},
		{[]string{"-max-row-limit", "0"}, "-max-row-limit 0: must be at least 1"},
		{[]string{"-max-row-limit", "5"}, "-row-limit 1000 is above -max-row-limit 5"},
		{[]string{"-byte-budget", "-1"}, "-byte-budget -1: must be at least 1"},
		{[]string{"-threads", "0"}, "-threads 0: must be at least 1"},
		{[]string{"-isolate", "-max-query-processes", "0"}, "-max-query-processes 0: must be at least 1"},
		{[]string{"-max-queries-per-client", "-1"}, "-max-queries-per-client -1: must not be negative (0 turns the share off)"},
		{[]string{"-timeout", "0s"}, "-timeout 0s: must be positive"},
		{[]string{"-dsn-env", "A*B"}, `-dsn-env "A*B": want an environment variable's name, or the beginning of names followed by * (see -h)`},
		{[]string{"-timeout", "-1s"}, "-timeout -1s: must be positive"},
		{[]string{"-poll", "0s"}, "-poll 0s: must be at least 10ms"},
		{[]string{"-stop-wait", "-1s"}, "-stop-wait -1s: must not be negative"},
		{[]string{"-start-wait", "-1s"}, "-start-wait -1s: must not be negative"},
		{[]string{"-memory-limit", "abc"}, `-memory-limit "abc": not a size DuckDB reads: give a number and a unit, such as 512MB, 1.5GB or 2GiB`},
		{[]string{"-catalog", "/etc/passwd"}, "-catalog /etc/passwd: not a directory"},
		{[]string{"-catalog", "/no/such/folder"}, "-catalog /no/such/folder: not a readable directory"},
		{[]string{"-http", "nonsense"}, `-http "nonsense": want HOST:PORT, such as 127.0.0.1:8080`},
		{[]string{"-http", "127.0.0.1:99999"}, `-http "127.0.0.1:99999": want HOST:PORT`},
		{[]string{"-memory-limit", "1KB"}, `-memory-limit "1KB": DuckDB cannot run with it: Out of Memory Error`},
		{[]string{"-temp-limit", "abc"}, `-temp-limit "abc": not a size DuckDB reads: give a number and a unit, such as 512MB`},
		{[]string{"-temp-limit", "-5MB"}, `-temp-limit "-5MB": must not be negative`},
	} {
		var stdout, stderr strings.Builder
		// Bounded: a server that accepted the value serves until ctx ends.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		code := run(ctx, append([]string{"-http", "127.0.0.1:0", "-catalog", t.TempDir()}, tc.args...), strings.NewReader(""), &stdout, &stderr)
		cancel()
		// One line naming the flag, not the whole usage text.
		if code != 2 || !strings.Contains(stderr.String(), tc.want) || stdout.Len() > 0 || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout.String(), stderr.String(), tc.want)
		}
	}
}

// TestMemoryLimitCheckRefusesAlways: a memory limit DuckDB cannot run with is
// refused every time, not only when the check's query happens to need memory
// (its first query, a count over a range, ran under 1KB about once in 150 tries
// with a few at once). Bounded: 600 checks, a few ms each.
func TestMemoryLimitCheckRefusesAlways(t *testing.T) {
	var wg sync.WaitGroup
	var accepted atomic.Int32
	for range 4 {
		wg.Go(func() {
			for range 150 {
				if checkDuckConfig(engine.DuckConfig{Threads: 2, MemoryLimit: "1KB"}) == nil {
					accepted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if n := accepted.Load(); n > 0 {
		t.Errorf("-memory-limit 1KB accepted in %d of 600 checks", n)
	}
	if err := checkDuckConfig(engine.DuckConfig{Threads: 2, MemoryLimit: "512MB"}); err != nil {
		t.Errorf("the default limit refused: %v", err)
	}
}

// TestStartSaysWhereQueriesRun: the server's log says, at start, whether DuckDB
// queries run in query processes (the default) or in its own process.
func TestStartSaysWhereQueriesRun(t *testing.T) {
	t.Setenv("GLIBC_TUNABLES", "") // restored when the test ends
	empty := ""
	// With -isolate=false and without GLIBC_TUNABLES the log says how to give
	// the server's own process the query processes' allocator settings: it
	// allocates as its environment said when it started (Linux's C library).
	hint := "GLIBC_TUNABLES=" + engine.WorkerMalloc(3)
	for _, tc := range []struct {
		args     []string
		tunables *string // GLIBC_TUNABLES; nil: unset
		want     string
		hint     bool
	}{
		{nil, nil, "DuckDB queries run in query processes", false},
		{[]string{"-isolate=false", "-threads", "3"}, nil, "DuckDB queries run in this process (-isolate=false)", runtime.GOOS == "linux"},
		{[]string{"-isolate=false", "-threads", "3"}, &empty, "DuckDB queries run in this process (-isolate=false)", false},
	} {
		os.Unsetenv("GLIBC_TUNABLES")
		if tc.tunables != nil {
			os.Setenv("GLIBC_TUNABLES", *tc.tunables)
		}
		var stdout, stderr syncBuffer
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, append(tc.args, "-http", "127.0.0.1:0", "-catalog", t.TempDir()), strings.NewReader(""), &stdout, &stderr)
		}()
		for ctx.Err() == nil && !strings.Contains(stdout.String(), "MCP endpoint") {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr.String())
		}
		if !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: the log does not say %q: %q", tc.args, tc.want, stderr.String())
		}
		if got := strings.Contains(stderr.String(), hint); got != tc.hint {
			t.Errorf("%v (GLIBC_TUNABLES %v): the log says %q: %v, want %v: %q", tc.args, tc.tunables, hint, got, tc.hint, stderr.String())
		}
	}
}
