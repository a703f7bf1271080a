package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

var (
	buildOnce sync.Once
	binDir    string // created by TestMain, removed after the tests
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "reports-server-test-")
	if err != nil {
		panic(err)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildServer compiles this program once per test run and returns the binary's path.
func buildServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the server binary; skipped with -short")
	}
	buildOnce.Do(func() {
		binPath = filepath.Join(binDir, "reports-server")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// serverProc is a running server binary.
type serverProc struct {
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:port
	exited chan struct{}
}

// startServer runs bin with args plus -http 127.0.0.1:0 and waits for it to print its
// MCP endpoint. The process is killed when the test ends.
func startServer(t *testing.T, bin string, args ...string) *serverProc {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-http", "127.0.0.1:0"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderrWriter{b: &stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serverProc{cmd: cmd, exited: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		defer close(p.exited)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "MCP endpoint: "); ok {
				found <- strings.TrimSuffix(u, "/mcp")
			}
		}
		cmd.Wait()
	}()
	t.Cleanup(func() { p.kill() })
	select {
	case p.base = <-found:
	case <-p.exited:
		t.Fatalf("server exited early: %s", stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("server did not print its endpoint within 30s")
	}
	return p
}

// stderrWriter lets the test read the server's log safely.
type stderrWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *stderrWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// kill sends SIGKILL and waits for the process to go.
func (p *serverProc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}

func setStatusHTTP(client *http.Client, base, id string, s reports.LifecycleStatus) error {
	res, err := client.Post(base+"/api/reports/"+id+"/status", "application/json", strings.NewReader(`{"lifecycleStatus":"`+string(s)+`"}`))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var out reports.UpdateStatusOutput
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return err
	}
	if res.StatusCode != 200 || !out.Success {
		return fmt.Errorf("status %d: %s", res.StatusCode, out.Message)
	}
	return nil
}

func listHTTP(t *testing.T, base string) map[string]reports.LifecycleStatus {
	t.Helper()
	res, err := http.Get(base + "/api/reports")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out reports.ListOutput
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	m := map[string]reports.LifecycleStatus{}
	for _, s := range out.Reports {
		m[s.ID] = s.LifecycleStatus
	}
	return m
}

// TestCrashSafety makes lifecycle updates from several clients, kills the server with
// SIGKILL while they are in flight, restarts it on the same state and checks that every
// acknowledged update is there: for each report, the status is its last acknowledged
// one, or the one whose request was in flight when the server died.
func TestCrashSafety(t *testing.T) {
	bin := buildServer(t)
	dir, data := t.TempDir(), t.TempDir()
	const workers = 6
	for i := range workers {
		writeReport(t, dir, testReport(fmt.Sprintf("r%d", i), "R", "ci", reports.StatusFailing, testTime))
	}
	p := startServer(t, bin, "-dir", dir, "-data", data)

	type record struct {
		acked    reports.LifecycleStatus // last acknowledged
		inFlight reports.LifecycleStatus // the request that failed, if any
	}
	records := make([]record, workers)
	var acks atomic.Int64
	killAt := int64(150 + time.Now().UnixNano()%100) // vary the moment of the kill
	killed := make(chan struct{})
	reached := make(chan struct{})
	var wg sync.WaitGroup
	cycle := []reports.LifecycleStatus{reports.LifecycleRead, reports.LifecycleDismissed, reports.LifecycleUnread}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{}}
			records[w].acked = reports.LifecycleUnread
			for i := range 5000 {
				s := cycle[(i+w)%len(cycle)]
				if err := setStatusHTTP(client, p.base, fmt.Sprintf("r%d", w), s); err != nil {
					records[w].inFlight = s
					select {
					case <-killed:
					default:
						t.Errorf("worker %d: update failed before the kill: %v", w, err)
					}
					return
				}
				records[w].acked = s
				if acks.Add(1) == killAt {
					close(reached)
				}
			}
		}()
	}
	// Kill once enough updates were acknowledged, while workers are still sending.
	workersDone := make(chan struct{})
	go func() { wg.Wait(); close(workersDone) }()
	select {
	case <-reached:
		close(killed)
		p.kill()
		<-workersDone
	case <-workersDone:
		t.Fatal("the workers stopped before the kill")
	}
	if t.Failed() {
		return
	}
	if n := acks.Load(); n < killAt {
		t.Fatalf("only %d updates were acknowledged before the kill", n)
	}

	entries, _ := os.ReadDir(data)
	p2 := startServer(t, bin, "-dir", dir, "-data", data)
	got := listHTTP(t, p2.base)
	for w, rec := range records {
		id := fmt.Sprintf("r%d", w)
		if got[id] != rec.acked && (rec.inFlight == "" || got[id] != rec.inFlight) {
			t.Errorf("%s is %s after the restart; last acknowledged %s, in flight %q", id, got[id], rec.acked, rec.inFlight)
		}
	}
	t.Logf("%d updates acknowledged before SIGKILL; data dir held %d entries", acks.Load(), len(entries))
	if after, _ := os.ReadDir(data); len(after) != 2 || !strings.HasPrefix(after[0].Name(), "history-") || !strings.HasPrefix(after[1].Name(), "state-") {
		t.Errorf("after the restart the data dir holds %v, want only the history and state files", after)
	}
	// The restarted server accepts updates again.
	if err := setStatusHTTP(http.DefaultClient, p2.base, "r0", reports.LifecycleDismissed); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(p2.base + "/api/reports/r0")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `"lifecycleStatus":"dismissed"`) {
		t.Errorf("r0 after update: %s", body)
	}
}
