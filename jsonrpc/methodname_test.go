package jsonrpc

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestMethodName(t *testing.T) {
	names := []string{"tools/call", "notifications/initialized", "ping", "a", "é/ü", strings.Repeat("m", maxCachedMethod), strings.Repeat("n", maxCachedMethod+1)}
	for i := range 200 {
		names = append(names, fmt.Sprintf("method/%d", i)) // more names than slots: collisions
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 50 {
				for i, n := range names {
					b := []byte(n)
					if got := methodName(b); got != n {
						t.Errorf("goroutine %d round %d: methodName(%q) = %q", g, r, n, got)
						return
					}
					b[0] ^= 0xff // the name must not alias the decoder's buffer
					if got := methodName([]byte(names[i])); got != n {
						t.Errorf("after changing the input buffer: methodName(%q) = %q", n, got)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if got := methodName(nil); got != "" {
		t.Errorf("methodName(nil) = %q", got)
	}
}

func TestMethodNameAllocs(t *testing.T) {
	b := []byte("tools/call")
	methodName(b)
	if n := testing.AllocsPerRun(100, func() { methodName(b) }); n != 0 {
		t.Errorf("a cached method name allocates %v times", n)
	}
	long := []byte(strings.Repeat("x", maxCachedMethod+1))
	if n := testing.AllocsPerRun(100, func() { methodName(long) }); n != 1 {
		t.Errorf("a name too long to cache allocates %v times, want 1", n)
	}
}
