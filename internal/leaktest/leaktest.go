// Package leaktest checks that a test leaves no goroutine behind.
package leaktest

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var registered sync.Map // testing.TB → struct{}: one check per test

// Check records the goroutines running now and, when t ends, fails it if goroutines
// started since are still running after a grace period of up to five seconds
// (polled, so a clean test costs nothing). Only the first call in a test counts, so
// helpers may call it freely; its check runs after every cleanup registered later.
func Check(t testing.TB) {
	t.Helper()
	if _, dup := registered.LoadOrStore(t, struct{}{}); dup {
		return
	}
	before := stacks()
	t.Cleanup(func() {
		defer registered.Delete(t)
		deadline := time.Now().Add(5 * time.Second)
		var extra []string
		for {
			extra = extra[:0]
			for id, s := range stacks() {
				if _, ok := before[id]; !ok && !ignorable(s) {
					extra = append(extra, s)
				}
			}
			if len(extra) == 0 || time.Now().After(deadline) {
				break
			}
			runtime.Gosched()
			time.Sleep(10 * time.Millisecond) // polling a deadline, not synchronising
		}
		if len(extra) > 0 {
			slices.Sort(extra)
			t.Errorf("%d goroutine(s) leaked:\n\n%s", len(extra), strings.Join(extra, "\n\n"))
		}
	})
}

func ignorable(s string) bool {
	return strings.Contains(s, "testing.(*T).Run") || strings.Contains(s, "testing.tRunner") && strings.Contains(s, "testing.(*T).Parallel") ||
		strings.Contains(s, "runtime.goexit") && strings.Contains(s, "os/signal")
}

// stacks returns the current goroutines keyed by their "goroutine N" header.
func stacks() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		head, _, _ := strings.Cut(g, "\n")
		id, _, _ := strings.Cut(strings.TrimPrefix(head, "goroutine "), " ")
		if strings.Contains(g, "internal/leaktest.stacks") {
			continue
		}
		out[id] = g
	}
	return out
}
