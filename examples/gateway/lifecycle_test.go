package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
)

// alive reports whether a process with this pid exists and is not a zombie.
func alive(pid int) bool {
	state, _, ok := procStat(strconv.Itoa(pid))
	if !ok {
		return syscall.Kill(pid, 0) == nil
	}
	return state != "Z"
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func callPID(t *testing.T, cs *mcp.ClientSession) int {
	t.Helper()
	text, isErr := callText(t, cs, "pid", nil)
	pid, err := strconv.Atoi(text)
	if isErr || err != nil {
		t.Fatalf("pid = %q, %v", text, isErr)
	}
	return pid
}

// TestCrashedChildIsRestarted: the shared upstream session's child is supervised
// (a client's own child is replaced on its next request instead, see
// TestCrashedClientChildIsReplaced).
func TestCrashedChildIsRestarted(t *testing.T) {
	tg := startGateway(t, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}, "sessions": "shared"}}}}`)
	cs := tg.connect(t, "/mcp/up", nil)
	first := callPID(t, cs)
	if text, isErr := callText(t, cs, "crash", nil); !isErr {
		t.Errorf("crash = %q, want an error result", text)
	}
	waitFor(t, "the old child to be gone", func() bool { return !alive(first) })
	waitFor(t, "a restart", func() bool {
		h := tg.g.health().Servers["up"]
		return h.Healthy && h.Parts[0].Restarts == 1 && h.Parts[0].PID != first
	})
	if second := callPID(t, cs); second == first {
		t.Errorf("same pid %d after a crash", second)
	}
	body := record(tg.g, "/mcp/meta/up")
	for _, want := range []string{"crashing on purpose", "exited", "restarts 1"} {
		if !strings.Contains(body, want) {
			t.Errorf("meta page lacks %q", want)
		}
	}
}

func TestDeadUpstreamIsReported(t *testing.T) {
	tg := startGateway(t, `{"servers": {"gone": {"mcp": {"command": ["sh", "-c", "echo no such server >&2; exit 1"]}}}}`)
	waitFor(t, "the failure to show", func() bool { return !tg.g.health().Servers["gone"].Healthy })
	status, _, body := tg.get(t, "/healthz", "")
	if status != 503 || !strings.Contains(body, `"healthy": false`) {
		t.Errorf("healthz = %d %s", status, body)
	}
	if body := record(tg.g, "/mcp"); !strings.Contains(body, `pill bad`) {
		t.Error("index does not show the server as down")
	}
	waitFor(t, "stderr on the meta page", func() bool { return strings.Contains(record(tg.g, "/mcp/meta/gone"), "no such server") })
	cs := tg.connect(t, "/mcp/gone", nil)
	if _, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "x", Arguments: json.RawMessage(`{}`)}); err == nil {
		t.Error("a call to a dead server's unknown tool succeeded")
	}
}

func TestPerClientUpstreamSessions(t *testing.T) {
	tg := startGateway(t, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}}}}`)
	a := tg.connect(t, "/mcp/up", nil)
	b := tg.connect(t, "/mcp/up", nil)
	pa, pb := callPID(t, a), callPID(t, b)
	if pa == pb {
		t.Fatalf("two clients share upstream process %d", pa)
	}
	if again := callPID(t, a); again != pa {
		t.Errorf("client a moved from %d to %d", pa, again)
	}
	// Ending a client's session ends its upstream child, and only that one.
	a.Close()
	waitFor(t, "client a's child to exit", func() bool { return !alive(pa) })
	if !alive(pb) {
		t.Error("client b's child died with a's session")
	}
	if got := callPID(t, b); got != pb {
		t.Errorf("client b moved to %d", got)
	}
}

func TestReloadKeepsUnchangedServers(t *testing.T) {
	tg := startGateway(t, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}}}}`)
	cs := tg.connect(t, "/mcp/up", nil)
	pid := callPID(t, cs)
	exe, _ := json.Marshal(upstreamCommand(t)[0])
	path := filepath.Join(tg.dir, "gateway.json")
	write := func(cfg string) {
		os.WriteFile(path, []byte(strings.ReplaceAll(cfg, `"$EXE"`, string(exe))), 0o644)
	}
	var log bytes.Buffer

	// Another server added: "up" keeps its child and the client its session.
	write(`{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}},
	  "date": {"command": {"argv": ["date"]}}}}`)
	if !reload(tg.g, path, &log) {
		t.Fatalf("reload refused: %s", log.String())
	}
	if got := callPID(t, cs); got != pid {
		t.Errorf("unchanged server restarted: pid %d -> %d", pid, got)
	}
	if _, _, body := tg.get(t, "/healthz", ""); !strings.Contains(body, `"date"`) {
		t.Error("new server not served")
	}

	// A bad configuration is refused with its errors; the old one keeps serving.
	write(`{"servers": {"up": {"mcp": {"command": "not a list"}}, "x": {}}}`)
	log.Reset()
	if reload(tg.g, path, &log) {
		t.Fatal("bad configuration accepted")
	}
	if !strings.Contains(log.String(), "servers.up.mcp.command: must be an array of strings") || !strings.Contains(log.String(), "keeps serving") {
		t.Errorf("refusal message: %s", log.String())
	}
	if got := callPID(t, cs); got != pid {
		t.Errorf("server changed after a refused reload: %d -> %d", pid, got)
	}

	// A changed definition replaces the server and stops the old child.
	write(`{"servers": {"up": {"description": "changed", "mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}}}}}`)
	if !reload(tg.g, path, &log) {
		t.Fatalf("reload refused: %s", log.String())
	}
	waitFor(t, "the old child to exit", func() bool { return !alive(pid) })
	cs2 := tg.connect(t, "/mcp/up", nil)
	if got := callPID(t, cs2); got == pid {
		t.Error("changed server kept its old child")
	}
	if _, _, body := tg.get(t, "/healthz", ""); strings.Contains(body, `"date"`) {
		t.Error("removed server still served")
	}
}

// shUpstream is a minimal stdio MCP server in POSIX shell: it answers initialize and
// nothing else, and starts a grandchild (which keeps running) so that the test sees
// whether the whole process group is stopped. TOKEN marks every process it starts.
const shUpstream = `sh -c 'while :; do sleep 1; done' "$0" &
while IFS= read -r line; do
  case $line in
  *'"initialize"'*)
    id=$(printf '%s\n' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
    printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"sh","version":"1"}}}\n' "$id";;
  esac
done`

// marked lists the processes whose command line holds token, and the zombies among
// this process's children.
func marked(t *testing.T, token string) (procs []string, zombies int) {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	me := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(cmdline, []byte(token)) {
			procs = append(procs, e.Name()+":"+strings.ReplaceAll(string(cmdline), "\x00", " ")[:20])
		}
		if state, ppid, ok := procStat(e.Name()); ok && state == "Z" && ppid == me {
			zombies++
		}
	}
	return procs, zombies
}

// procStat reads the state and the parent's pid of process pid from /proc/pid/stat
// (the fields after the command name, which may hold spaces and parentheses).
func procStat(pid string) (state, ppid string, ok bool) {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return "", "", false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return "", "", false
	}
	return f[0], f[1], true
}

func TestManyReloadsLeakNoProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts processes through /proc")
	}
	const reloads = 1000
	token := fmt.Sprintf("gwtest-%d-%d", os.Getpid(), time.Now().UnixNano())
	script, _ := json.Marshal(shUpstream)
	dir := t.TempDir()
	cfgFor := func(i int) *Config {
		c, err := ParseConfig([]byte(fmt.Sprintf(`{"servers": {
		  "kept": {"mcp": {"command": ["sh", "-c", %s, %q]}},
		  "changing": {"description": "generation %d", "mcp": {"command": ["sh", "-c", %s, %q]}}}}`,
			script, token, i, script, token)), dir)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	g, err := NewGateway(cfgFor(0), &Options{CloseTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	keptPID := g.health().Servers["kept"].Parts[0].PID
	start := time.Now()
	for i := 1; i <= reloads; i++ {
		if err := g.Apply(cfgFor(i)); err != nil {
			t.Fatalf("reload %d: %v", i, err)
		}
		if h := g.health().Servers["changing"]; !h.Healthy {
			t.Fatalf("reload %d: changing server is %s (%v)", i, h.State, h.Errors)
		}
	}
	elapsed := time.Since(start)
	if got := g.health().Servers["kept"].Parts[0].PID; got != keptPID {
		t.Errorf("unchanged server restarted during reloads: %d -> %d", keptPID, got)
	}
	// Two servers, each a shell and its grandchild: four marked processes.
	var procs []string
	var zombies int
	waitFor(t, "exactly the live servers' processes", func() bool {
		procs, zombies = marked(t, token)
		return len(procs) == 4 && zombies == 0
	})
	g.Close()
	waitFor(t, "no process left after Close", func() bool {
		procs, zombies = marked(t, token)
		return len(procs) == 0 && zombies == 0
	})
	t.Logf("%d reloads in %v (%v each); no process or zombie left", reloads, elapsed.Round(time.Millisecond), (elapsed / reloads).Round(time.Microsecond))
}

// TestOthersCallsSurvive: while one client's call is in flight, another client
// cancelling its own call, and a third closing its session with a call in flight,
// leave the first call alone — with one upstream session shared by every client and
// with one per client.
func TestOthersCallsSurvive(t *testing.T) {
	for _, mode := range []string{"shared", "per-client"} {
		t.Run(mode, func(t *testing.T) {
			tg := startGateway(t, `{"servers": {"up": {"mcp": {"command": ["$EXE"], "env": {"GATEWAY_TEST_UPSTREAM": "1"}, "sessions": "`+mode+`"}}}}`)
			a, b := tg.connect(t, "/mcp/up", nil), tg.connect(t, "/mcp/up", nil)
			c := tg.connect(t, "/mcp/up", nil)
			// a's call outlasts what b and c do (generously, for a loaded machine).
			type result struct {
				text  string
				isErr bool
				err   error
			}
			done := make(chan result, 1)
			go func() {
				res, err := a.CallTool(testCtx(t), &mcp.CallToolParams{Name: "wait", Arguments: json.RawMessage(`{"ms": 1500}`)})
				if err != nil {
					done <- result{err: err}
					return
				}
				done <- result{text: resultText(res), isErr: res.IsError}
			}()
			started := time.Now()
			// b starts a call and cancels it.
			bctx, cancel := context.WithCancel(testCtx(t))
			bdone := make(chan error, 1)
			go func() {
				_, err := b.CallTool(bctx, &mcp.CallToolParams{Name: "block", Arguments: json.RawMessage(`{}`)})
				bdone <- err
			}()
			time.Sleep(100 * time.Millisecond)
			cancel()
			if err := <-bdone; err == nil {
				t.Error("b's cancelled call succeeded")
			}
			// c starts a call and closes its session while it runs.
			cdone := make(chan struct{})
			go func() {
				defer close(cdone)
				_, _ = c.CallTool(testCtx(t), &mcp.CallToolParams{Name: "block", Arguments: json.RawMessage(`{}`)})
			}()
			time.Sleep(100 * time.Millisecond)
			c.Close()
			<-cdone
			if time.Since(started) > 1200*time.Millisecond {
				t.Log("b and c took longer than a's call; the check below proves less on this run")
			}
			r := <-done
			if r.err != nil || r.isErr || r.text != "waited" {
				t.Errorf("a's call = %q (isError %v, err %v), want waited", r.text, r.isErr, r.err)
			}
			// b's session goes on.
			if text, isErr := callText(t, b, "echo", map[string]any{"message": "b again"}); text != "b again" || isErr {
				t.Errorf("b after its cancellation: %q %v", text, isErr)
			}
		})
	}
}
