package streamable

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// A call cancelled with notifications/cancelled gets no response, so its POST owes
// nothing more: the POST ends (202 when nothing was sent, the SSE stream closed
// otherwise) and the id is free again. 1,000 calls, 50 at a time, in each mode.
func TestCancelledCallsEndTheirPOST(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   HandlerOptions
		status int
		ctype  string
	}{
		{"adaptive", HandlerOptions{}, 202, ""},
		{"json", HandlerOptions{JSONResponse: true}, 202, ""},
		{"sse", HandlerOptions{AlwaysSSE: true}, 200, "text/event-stream"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const calls, parallel = 1000, 50
			opts := tc.opts
			s := newTestServer(t, &opts)
			sid := s.initSession(t)
			hdr := postHeaders("Mcp-Session-Id", sid, "Mcp-Protocol-Version", "2025-11-25")
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * parallel}}
			defer client.CloseIdleConnections()
			post := func(ctx context.Context, body string) (*http.Response, error) {
				req, _ := http.NewRequestWithContext(ctx, "POST", s.url, strings.NewReader(body))
				for k, v := range hdr {
					req.Header.Set(k, v)
				}
				return client.Do(req)
			}
			var slowest time.Duration
			var mu sync.Mutex
			sem := make(chan struct{}, parallel)
			var wg sync.WaitGroup
			for i := range calls {
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					id := fmt.Sprintf(`"c%d"`, i)
					ended := make(chan error, 1)
					ctx, abandon := context.WithCancel(t.Context())
					defer abandon()
					go func() {
						resp, err := post(ctx, `{"jsonrpc":"2.0","id":`+id+`,"method":"wait"}`)
						if err == nil {
							defer resp.Body.Close()
							_, err = io.ReadAll(resp.Body)
							if err == nil && (resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != tc.ctype) {
								err = fmt.Errorf("status %d %q, want %d %q", resp.StatusCode, resp.Header.Get("Content-Type"), tc.status, tc.ctype)
							}
						}
						ended <- err
					}()
					// Wait until this call runs (the ids arrive in any order; any
					// started one will do, each is cancelled once).
					started := waitFor(t, s.waiting, "a call to start")
					resp, err := post(t.Context(), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+started+`}}`)
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 202 {
						t.Errorf("cancellation: status %d", resp.StatusCode)
					}
					sent := time.Now()
					select {
					case err := <-ended:
						if err != nil {
							t.Errorf("POST %s: %v", id, err)
						}
					case <-time.After(10 * time.Second):
						t.Errorf("a cancelled call's POST had not ended 10 s after the cancellation")
						abandon()
						<-ended
						return
					}
					d := time.Since(sent)
					mu.Lock()
					slowest = max(slowest, d)
					mu.Unlock()
				}()
			}
			wg.Wait()
			t.Logf("%d cancelled POSTs ended, the slowest %v after its cancellation was accepted", calls, slowest)
			if slowest > time.Second {
				t.Errorf("a cancelled POST took %v to end", slowest)
			}
			// The ids are free again: a new call with one of them is served.
			ex := do(t, "POST", s.url, hdr, `{"jsonrpc":"2.0","id":"c0","method":"echo","params":{"x":1}}`)
			if ex.status != 200 || !strings.Contains(strings.Join(messages(t, ex), ""), `"result":{"x":1}`) {
				t.Fatalf("reusing a cancelled id: %d %s", ex.status, ex.body)
			}
		})
	}
}

// A 2026-07-28 client cancels by closing its request's stream: the call's context
// ends, the call returns and its POST's goroutines with it. 1,000 calls, 50 at a time.
func TestModernDisconnectEndsCalls(t *testing.T) {
	s := newTestServer(t, nil)
	slowest := abandonEach(t, s, 1000, 50, func(i int) (string, map[string]string) {
		return modernBody(fmt.Sprint(i), "wait", ""), modernHeaders("wait")
	})
	t.Logf("1000 abandoned 2026-07-28 calls ended, the slowest %v after its client left", slowest)
	if slowest > time.Second {
		t.Errorf("an abandoned call took %v to end", slowest)
	}
}

// abandonEach makes calls "wait" calls to s (the body and headers of call i from
// call), parallel at a time, abandons each once it has started, waits for it to
// end and returns the longest time a call took to end after its client left.
func abandonEach(t *testing.T, s *testServer, calls, parallel int, call func(i int) (string, map[string]string)) time.Duration {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * parallel}}
	defer client.CloseIdleConnections()
	// Signals by call id: a call's own start and end.
	started, finished := make([]chan struct{}, calls), make([]chan struct{}, calls)
	for i := range calls {
		started[i], finished[i] = make(chan struct{}), make(chan struct{})
	}
	route := func(from <-chan string, to []chan struct{}) {
		for range calls {
			var i int
			fmt.Sscan(<-from, &i)
			close(to[i])
		}
	}
	go route(s.waiting, started)
	go route(s.waited, finished)
	var slowest time.Duration
	var mu sync.Mutex
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i := range calls {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ctx, abandon := context.WithCancel(t.Context())
			defer abandon()
			body, hdr := call(i)
			req, _ := http.NewRequestWithContext(ctx, "POST", s.url, strings.NewReader(body))
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			ended := make(chan struct{})
			go func() {
				defer close(ended)
				if resp, err := client.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
			waitFor(t, started[i], "a call to start")
			abandon()
			gone := time.Now()
			waitFor(t, finished[i], "an abandoned call to end")
			d := time.Since(gone)
			<-ended
			mu.Lock()
			slowest = max(slowest, d)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return slowest
}

// A stateless POST is the only way a call's answer can reach its client: nothing
// resumes it (no session, no event store). So a client that goes away ends the
// call on every revision, not only 2026-07-28's: 200 calls per revision, 20 at a
// time, each abandoned once it has started, must each end within a second.
func TestStatelessDisconnectEndsCalls(t *testing.T) {
	for _, rev := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			s := newTestServer(t, &HandlerOptions{Stateless: true})
			slowest := abandonEach(t, s, 200, 20, func(i int) (string, map[string]string) {
				if rev == "2026-07-28" {
					return modernBody(fmt.Sprint(i), "wait", ""), modernHeaders("wait")
				}
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"wait"}`, i), postHeaders("Mcp-Protocol-Version", rev)
			})
			t.Logf("200 abandoned stateless %s calls ended, the slowest %v after its client left", rev, slowest)
			if slowest > time.Second {
				t.Errorf("an abandoned call took %v to end", slowest)
			}
		})
	}
}
