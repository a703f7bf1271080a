package main

import (
	"bufio"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// TestMainServesDemo runs the gateway as its README says (`go run ./examples/gateway`,
// here built first and given -http 127.0.0.1:0): it prints the index URL, the index
// lists the demo's servers (the kb API among them) as ready, a client calls a tool of
// the stdio upstream and of the kb bridge, and SIGTERM ends it with status 0 and its
// child process.
func TestMainServesDemo(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "gateway")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{}) // closed once cmd.Wait returned waitErr
	var waitErr error
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			cmd.Process.Kill()
			<-exited
		}
	})
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		close(lines)
		waitErr = cmd.Wait()
		close(exited)
	}()
	var index string
	urlRE := regexp.MustCompile(`index at (http://127\.0\.0\.1:\d+/mcp)$`)
	deadline := time.After(60 * time.Second)
	for index == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				t.Fatal("the gateway exited without printing the index URL")
			}
			if m := urlRE.FindStringSubmatch(line); m != nil {
				index = m[1]
			}
		case <-deadline:
			t.Fatal("no index URL within 60 s")
		}
	}
	status, _, page := httpGet(t, index, "text/html")
	if status != 200 {
		t.Fatalf("index: %d", status)
	}
	for _, server := range []string{"kb", "echo", "date", "shell"} {
		if !strings.Contains(page, `data-server="`+server+`"`) {
			t.Errorf("the index does not list %s", server)
		}
	}
	base := strings.TrimSuffix(index, "/mcp")
	status, _, body := httpGet(t, base+"/healthz", "application/json")
	var h Health
	if err := json.Unmarshal([]byte(body), &h); err != nil || status != 200 || !h.Healthy || h.Servers["kb"].Tools != 6 {
		t.Fatalf("healthz: %d %s", status, body)
	}
	child := h.Servers["echo"].Parts[0].PID
	if child == 0 || !alive(child) {
		t.Fatalf("echo's child: pid %d", child)
	}
	connectRev := func(path, revision string) *mcp.ClientSession {
		tr, err := streamable.NewClient(base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: revision}).Connect(testCtx(t), tr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	connect := func(path string) *mcp.ClientSession { return connectRev(path, "") }
	if text, isErr := callText(t, connect("/mcp/echo"), "echo", map[string]any{"message": "from main"}); text != "from main" || isErr {
		t.Errorf("echo = %q %v", text, isErr)
	}
	// An initialize-era client session gets a child of its own (per-client, the
	// default) beside the shared one; SIGTERM must end both.
	if text, isErr := callText(t, connectRev("/mcp/echo", mcp.Revision20251125), "echo", map[string]any{"message": "own child"}); text != "own child" || isErr {
		t.Errorf("echo = %q %v", text, isErr)
	}
	var children []int
	if runtime.GOOS == "linux" { // children are found through /proc
		children = demoChildren(t, cmd.Process.Pid)
	}
	if runtime.GOOS == "linux" && len(children) != 2 {
		t.Errorf("echo's children after a client's call: %v, want the shared one and the client's", children)
	}
	res, sc := restCall(t, connect("/mcp/kb"), "list_projects", nil)
	if res.IsError || len(items(t, sc)) != 3 {
		t.Errorf("list_projects: %s", resultText(res))
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
		if waitErr != nil {
			t.Errorf("exit after SIGTERM: %v", waitErr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still running 20 s after SIGTERM")
	}
	waitFor(t, "echo's child to be gone", func() bool { return !alive(child) })
	for _, pid := range children {
		waitFor(t, "every child to be gone", func() bool { return !alive(pid) })
	}
}

// demoChildren lists the processes whose parent is ppid and whose command line
// holds "demo-upstream" (the demo's stdio upstreams), read from /proc.
func demoChildren(t *testing.T, ppid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, parent, ok := procStat(e.Name())
		if !ok || parent != strconv.Itoa(ppid) || state == "Z" {
			continue
		}
		if cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); strings.Contains(string(cmdline), "demo-upstream") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestMetaPageGoSnippetRuns copies the Go snippet of a server's meta page into a
// program of its own (a module that uses this repository) and runs it against the
// gateway: it must build and list the server's tools, as the page promises.
func TestMetaPageGoSnippetRuns(t *testing.T) {
	tg := startGateway(t, `{"servers": {"date": {"command": {"argv": ["date"]}}}}`)
	_, _, page := tg.get(t, "/mcp/meta/date", "text/html")
	m := regexp.MustCompile(`(?s)<pre>([^<]*streamable\.NewClient[^<]*)</pre>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no Go snippet on the meta page")
	}
	snippet := html.UnescapeString(m[1])
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module snippet\n\ngo 1.25\n\nrequire github.com/wiremcp/wiremcp v0.0.0\n\nreplace github.com/wiremcp/wiremcp => " + repo + "\n",
		"go.sum": string(sum),
		"main.go": `package main

import (
	"context"
	"fmt"
	"log"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

func main() {
	ctx := context.Background()
` + snippet + `
}
`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir = dir
	// Everything comes from this repository and the module cache it already uses.
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the meta page's Go snippet does not run: %v\n%s\n--- the program:\n%s", err, out, files["main.go"])
	}
	if strings.TrimSpace(string(out)) != "date" {
		t.Errorf("the snippet printed %q, want the server's one tool, date", out)
	}
}
