package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/sse"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// This file tests the per-client upstream sessions of command upstreams, the
// default: each client session gets a child process of its own, which starts with
// the session's first forwarded request and is stopped with its process group when
// the session ends, however it ends.

// TestDefaultCommandSessionsArePerClient: with no "sessions" in the configuration,
// two clients of a command upstream each get a child of their own, and what one
// client's child sends (a log message outside any request, an elicitation) reaches
// that client only, even while the other has a call in flight. A 2026-07-28 client,
// which has no session, uses the shared one.
func TestDefaultCommandSessionsArePerClient(t *testing.T) {
	tg := startGateway(t, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}}}}`)
	type seen struct {
		mu    sync.Mutex
		logs  []string
		asked int
	}
	var sa, sb seen
	opts := func(s *seen, name string) *mcp.ClientOptions {
		return &mcp.ClientOptions{
			LoggingMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *mcp.LoggingMessageParams) {
				s.mu.Lock()
				s.logs = append(s.logs, fmt.Sprint(p.Data))
				s.mu.Unlock()
			},
			ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				s.mu.Lock()
				s.asked++
				s.mu.Unlock()
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}, nil
			},
		}
	}
	a, b := tg.connect(t, "/mcp/up", opts(&sa, "A")), tg.connect(t, "/mcp/up", opts(&sb, "B"))
	shared := tg.g.health().Servers["up"].Parts[0].PID
	pa, pb := callPID(t, a), callPID(t, b)
	if pa == pb || pa == shared || pb == shared || shared == 0 {
		t.Fatalf("children: a %d, b %d, shared %d; want three different processes", pa, pb, shared)
	}
	if n := tg.g.health().Servers["up"].Parts[0].Sessions; n != 2 {
		t.Errorf("upstreamSessions = %d, want 2", n)
	}

	// A log message a's child sends after its call answered reaches a, not b.
	if text, _ := callText(t, a, "log_later", map[string]any{"message": "for a"}); text != "will log" {
		t.Fatalf("log_later = %q", text)
	}
	waitFor(t, "a's log message", func() bool {
		sa.mu.Lock()
		defer sa.mu.Unlock()
		return slices.Contains(sa.logs, "for a")
	})

	// a's call asks its user after b started a call of its own: the question still
	// goes to a.
	type result struct {
		text string
		err  error
	}
	ares := make(chan result, 1)
	go func() {
		res, err := a.CallTool(testCtx(t), &mcp.CallToolParams{Name: "ask_after", Arguments: json.RawMessage(`{"ms": 400}`)})
		if err != nil {
			ares <- result{err: err}
			return
		}
		ares <- result{text: resultText(res)}
	}()
	time.Sleep(50 * time.Millisecond)
	bres := make(chan result, 1)
	go func() {
		res, err := b.CallTool(testCtx(t), &mcp.CallToolParams{Name: "wait", Arguments: json.RawMessage(`{"ms": 1500}`)})
		if err != nil {
			bres <- result{err: err}
			return
		}
		bres <- result{text: resultText(res)}
	}()
	if r := <-ares; r.err != nil || r.text != "accept A" {
		t.Errorf("a's ask_after = %q, %v; want a's own answer", r.text, r.err)
	}
	if r := <-bres; r.err != nil || r.text != "waited" {
		t.Errorf("b's wait = %q, %v", r.text, r.err)
	}
	time.Sleep(100 * time.Millisecond) // a misrouted log message would have arrived
	sb.mu.Lock()
	if sb.asked != 0 || len(sb.logs) != 0 {
		t.Errorf("b got %d questions and logs %q meant for a", sb.asked, sb.logs)
	}
	sb.mu.Unlock()
	sa.mu.Lock()
	if sa.asked != 1 {
		t.Errorf("a was asked %d times, want 1", sa.asked)
	}
	sa.mu.Unlock()

	// A client without sessions uses the shared upstream session.
	modern := tg.connect(t, "/mcp/up", &mcp.ClientOptions{ProtocolVersion: "2026-07-28"})
	if got := callPID(t, modern); got != shared {
		t.Errorf("2026-07-28 client served by %d, want the shared child %d", got, shared)
	}
}

// TestCrashedClientChildIsReplaced: when a client's own child exits, the client's
// next request starts a new one; other clients keep theirs.
func TestCrashedClientChildIsReplaced(t *testing.T) {
	tg := startGateway(t, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}}}}`)
	a, b := tg.connect(t, "/mcp/up", nil), tg.connect(t, "/mcp/up", nil)
	pa, pb := callPID(t, a), callPID(t, b)
	if text, isErr := callText(t, a, "crash", nil); !isErr {
		t.Errorf("crash = %q, want an error result", text)
	}
	waitFor(t, "a's child to be gone", func() bool { return !alive(pa) })
	waitFor(t, "a new child for a", func() bool {
		text, isErr := callText(t, a, "pid", nil)
		n, _ := strconv.Atoi(text)
		return !isErr && n != 0 && n != pa && n != pb
	})
	if got := callPID(t, b); got != pb || !alive(pb) {
		t.Errorf("b moved from %d to %d when a's child crashed", pb, got)
	}
	if h := tg.g.health().Servers["up"]; !h.Healthy || h.Parts[0].Restarts != 0 {
		t.Errorf("a client's crashed child made the server %s with %d restarts", h.State, h.Parts[0].Restarts)
	}
	waitFor(t, "the crash on the meta page", func() bool {
		return strings.Contains(record(tg.g, "/mcp/meta/up"), "crashing on purpose")
	})
}

// TestPerClientSessionCap: beyond maxSessions client sessions with an upstream
// session of their own, a client's request is answered at once with an error that
// says why; a 2026-07-28 client (shared session) is not counted; once a session
// ends, its slot serves another client.
func TestPerClientSessionCap(t *testing.T) {
	tg := startGateway(t, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}, "maxSessions": 2}}}}`)
	a, b, c := tg.connect(t, "/mcp/up", nil), tg.connect(t, "/mcp/up", nil), tg.connect(t, "/mcp/up", nil)
	callPID(t, a)
	callPID(t, b)
	start := time.Now()
	text, isErr := callText(t, c, "echo", map[string]any{"message": "third"})
	if !isErr || !strings.Contains(text, "too many client sessions") || !strings.Contains(text, "maxSessions 2") {
		t.Errorf("third client's call = %q (isError %v), want the cap's error", text, isErr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the refusal took %v", d)
	}
	if _, err := c.ReadResource(testCtx(t), &mcp.ReadResourceParams{URI: "demo://note"}); err == nil || !strings.Contains(err.Error(), "too many client sessions") {
		t.Errorf("third client's read: %v, want the cap's error", err)
	}
	if h := tg.g.health().Servers["up"]; h.Parts[0].Sessions != 2 || !h.Healthy {
		t.Errorf("health at the cap: %+v", h.Parts[0])
	}
	modern := tg.connect(t, "/mcp/up", &mcp.ClientOptions{ProtocolVersion: "2026-07-28"})
	if text, isErr := callText(t, modern, "echo", map[string]any{"message": "modern"}); text != "modern" || isErr {
		t.Errorf("2026-07-28 client at the cap: %q %v", text, isErr)
	}
	a.Close()
	waitFor(t, "a's slot to serve c", func() bool {
		text, isErr := callText(t, c, "echo", map[string]any{"message": "third"})
		return text == "third" && !isErr
	})
	if text, isErr := callText(t, b, "echo", map[string]any{"message": "b"}); text != "b" || isErr {
		t.Errorf("b after a left: %q %v", text, isErr)
	}
}

// shToolUpstream is a minimal stdio MCP server in POSIX shell with one tool, "pid",
// which answers the shell's process id. Like shUpstream it starts a grandchild
// that keeps running, and TOKEN ($0) marks every process it starts.
const shToolUpstream = `sh -c 'while :; do sleep 1; done' "$0" &
while IFS= read -r line; do
  id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case $line in
  *'"initialize"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"1"}}}\n' "$id";;
  *'"tools/list"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"pid","inputSchema":{"type":"object"}}]}}\n' "$id";;
  *'"tools/call"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}\n' "$id" "$$";;
  *'"ping"'*)
    printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id";;
  esac
done`

// procCounter counts the processes a test's shell upstreams started.
type procCounter struct {
	t     *testing.T
	token string
}

func newProcCounter(t *testing.T) *procCounter {
	if runtime.GOOS != "linux" {
		t.Skip("counts processes through /proc")
	}
	return &procCounter{t: t, token: fmt.Sprintf("gwpc-%d-%d", os.Getpid(), time.Now().UnixNano())}
}

// config is a configuration with one server, "pc", running shToolUpstream with the
// default sessions; extra is added to the server's definition.
func (pc *procCounter) config(extra string) string {
	script, _ := json.Marshal(shToolUpstream)
	return fmt.Sprintf(`{"servers": {"pc": {%s"mcp": {"command": ["sh", "-c", %s, %q]}}}}`, extra, script, pc.token)
}

// waitCount waits until exactly want marked processes are alive and no child of
// this process is a zombie.
func (pc *procCounter) waitCount(what string, want int) {
	pc.t.Helper()
	var procs []string
	var zombies int
	deadline := time.Now().Add(20 * time.Second)
	for {
		procs, zombies = marked(pc.t, pc.token)
		if len(procs) == want && zombies == 0 {
			return
		}
		if time.Now().After(deadline) {
			pc.t.Fatalf("%s: %d marked processes (want %d), %d zombies: %v", what, len(procs), want, zombies, procs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// openSessions opens n client sessions at once (Streamable HTTP, or HTTP+SSE when
// overSSE), each calling "pid", and returns them with the pids they were answered.
func openSessions(t *testing.T, tg *testGateway, n int, overSSE bool) ([]*mcp.ClientSession, []int) {
	t.Helper()
	sessions, pids := make([]*mcp.ClientSession, n), make([]int, n)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := testCtx(t)
			client := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: mcp.Revision20251125})
			var cs *mcp.ClientSession
			var err error
			if overSSE {
				tr, terr := sse.NewClient(ctx, tg.srv.URL+"/mcp/pc/sse", nil)
				if terr != nil {
					errs <- terr
					return
				}
				cs, err = client.Connect(ctx, tr)
			} else {
				// No GET stream: an open one counts as traffic, and the idle test's
				// sessions must have none.
				tr, terr := streamable.NewClient(tg.srv.URL+"/mcp/pc", &streamable.ClientOptions{DisableGETStream: true})
				if terr != nil {
					errs <- terr
					return
				}
				cs, err = client.Connect(ctx, tr)
			}
			if err != nil {
				errs <- fmt.Errorf("session %d: connect: %w", i, err)
				return
			}
			sessions[i] = cs
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pid", Arguments: json.RawMessage(`{}`)})
			if err != nil {
				errs <- fmt.Errorf("session %d: %w", i, err)
				return
			}
			pid, err := strconv.Atoi(resultText(res))
			if res.IsError || err != nil {
				errs <- fmt.Errorf("session %d: pid = %q", i, resultText(res))
				return
			}
			pids[i] = pid
		}()
	}
	wg.Wait()
	close(errs)
	for _, cs := range sessions {
		if cs != nil {
			t.Cleanup(func() { cs.Close() })
		}
	}
	for err := range errs {
		t.Fatal(err)
	}
	distinct := slices.Clone(pids)
	slices.Sort(distinct)
	if d := slices.Compact(distinct); len(d) != n {
		t.Fatalf("%d sessions were served by %d processes: %v", n, len(d), pids)
	}
	return sessions, pids
}

// TestPerClientChildrenLeaveNothing opens 50 client sessions of a command upstream
// that starts a grandchild, each with a child of its own, and ends them the ways a
// session ends: 25 with DELETE, 10 by closing their HTTP+SSE stream, 10 by a reload
// that changes the server, 5 by Close (expiry: TestIdleClientSessionStopsItsChild). Each time exactly the live processes remain (the
// shared session's child and grandchild, two per client session while it lives),
// and none and no zombie after Close.
func TestPerClientChildrenLeaveNothing(t *testing.T) {
	pc := newProcCounter(t)
	tg := startGateway(t, pc.config(""))
	pc.waitCount("the shared session's processes", 2)
	sessions := func() int { return tg.g.health().Servers["pc"].Parts[0].Sessions }
	check := func(what string, pids []int) {
		t.Helper()
		pc.waitCount(what, 2)
		for _, pid := range pids {
			if alive(pid) {
				t.Errorf("%s: child %d still alive", what, pid)
			}
		}
		waitFor(t, what+": no upstream session left", func() bool { return sessions() == 0 })
	}

	css, pids := openSessions(t, tg, 25, false)
	pc.waitCount("25 client sessions", 2+2*25)
	if n := sessions(); n != 25 {
		t.Errorf("upstreamSessions = %d, want 25", n)
	}
	for _, cs := range css {
		cs.Close() // DELETE
	}
	check("after DELETE", pids)

	css, pids = openSessions(t, tg, 10, true)
	pc.waitCount("10 client sessions over HTTP+SSE", 2+2*10)
	for _, cs := range css {
		cs.Close() // the stream ends
	}
	check("after the SSE streams ended", pids)

	_, pids = openSessions(t, tg, 10, false)
	pc.waitCount("10 more client sessions", 2+2*10)
	c, err := ParseConfig([]byte(pc.config(`"description": "changed", `)), tg.dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.g.Apply(c); err != nil {
		t.Fatal(err)
	}
	check("after a reload changed the server", pids)

	_, pids = openSessions(t, tg, 5, false)
	pc.waitCount("5 client sessions before Close", 2+2*5)
	tg.g.Close()
	pc.waitCount("after Close", 0)
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("child %d alive after Close", pid)
		}
	}
}

// TestIdleClientSessionStopsItsChild: a client session that expires for want of
// traffic (Options.SessionIdleTimeout) takes its child with it, while a busy
// session keeps its own.
func TestIdleClientSessionStopsItsChild(t *testing.T) {
	pc := newProcCounter(t)
	tg := startGatewayOpts(t, pc.config(""), &Options{CloseTimeout: 2 * time.Second, SessionIdleTimeout: time.Second})
	pc.waitCount("the shared session's processes", 2)
	css, pids := openSessions(t, tg, 11, false)
	busy, busyPID := css[0], pids[0]
	stop := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		// Well within the idle timeout, however loaded the machine.
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				done <- nil
				return
			case <-tick.C:
				res, err := busy.CallTool(context.Background(), &mcp.CallToolParams{Name: "pid", Arguments: json.RawMessage(`{}`)})
				if err != nil || resultText(res) != strconv.Itoa(busyPID) {
					done <- fmt.Errorf("busy session: %v, %v", res, err)
					return
				}
			}
		}
	}()
	pc.waitCount("the busy session's processes once the idle ones expired", 2+2)
	for _, pid := range pids[1:] {
		if alive(pid) {
			t.Errorf("idle session's child %d still alive", pid)
		}
	}
	if !alive(busyPID) {
		t.Error("the busy session's child is gone")
	}
	close(stop)
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// TestRingWritersKeepTheirLines: the children of a server share its stderr ring;
// lines they write in pieces, interleaved, stay whole.
func TestRingWritersKeepTheirLines(t *testing.T) {
	r := newLineRing(10)
	a, b := r.writer(), r.writer()
	a.Write([]byte("from a, "))
	b.Write([]byte("from b, "))
	a.Write([]byte("first\nfrom a, second"))
	b.Write([]byte("first\n"))
	a.Write([]byte("\n"))
	if got, want := r.Lines(), []string{"from a, first", "from b, first", "from a, second"}; !slices.Equal(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
}
