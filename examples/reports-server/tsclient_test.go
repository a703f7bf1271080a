//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/wiremcp/wiremcp/internal/nodetest"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/bindings/reports"
	"github.com/wiremcp/wiremcp/internal/leaktest"
)

// The TypeScript tests run the compiled server against the official MCP TypeScript SDK
// client (tsclient/client.mjs, @modelcontextprotocol/sdk pinned in tsclient/package.json)
// over stdio and Streamable HTTP: list, filter, get, update, get again. The script asserts
// each step with node:assert and prints a JSON summary, which the test compares with what
// the sample reports say the answers must be.
//
// Node is WIREMCP_NODE when set, else node on PATH; npm (used for `npm ci` when
// tsclient/node_modules does not hold the pinned SDK) is WIREMCP_NPM, else npm on PATH.
// Without them the test skips, unless CI=true, where it fails.

const tsClientDir = "tsclient"

// tsSummary is the JSON line client.mjs prints when every assertion held.
type tsSummary struct {
	OK                       bool   `json:"ok"`
	Transport                string `json:"transport"`
	Node                     string `json:"node"`
	SDK                      string `json:"sdk"`
	SDKLatestProtocolVersion string `json:"sdkLatestProtocolVersion"`
	ProtocolVersion          string `json:"protocolVersion"`
	Server                   struct{ Name, Version string }
	Tools                    []string `json:"tools"`
	All                      []string `json:"all"`
	Failing                  []string `json:"failing"`
	Category                 struct {
		Name string   `json:"name"`
		IDs  []string `json:"ids"`
	} `json:"category"`
	Get struct {
		ID           string   `json:"id"`
		SectionTypes []string `json:"sectionTypes"`
	} `json:"get"`
	UnknownIsError    bool    `json:"unknownIsError"`
	Dismissed         string  `json:"dismissed"`
	SessionID         *string `json:"sessionId"`         // http only
	SessionTerminated bool    `json:"sessionTerminated"` // http only
	CloseMs           *int    `json:"closeMs"`           // stdio only
	ServerExited      bool    `json:"serverExited"`      // stdio only
}

// tsExpect is what the summary must say, worked out from the embedded samples.
type tsExpect struct {
	all, failing, category []string
	categoryName           string
	getID                  string
	sectionTypes           []string
}

func TestTSClient(t *testing.T) {
	bin := buildServer(t)
	node, sdkVersion := tsClientSetup(t)
	want := tsExpected(t)
	leaktest.Check(t)

	t.Run("stdio", func(t *testing.T) {
		dir, data := copySamples(t), t.TempDir()
		args := []string{"--transport", "stdio", "--server", bin, "--dir", dir, "--data", data}
		sum, stderr, err := runTSClient(t, node, args...)
		if err != nil {
			t.Fatalf("client.mjs over stdio: %v\n%s", err, stderr)
		}
		checkTSSummary(t, sum, "stdio", sdkVersion, want)
		checkTSStderr(t, stderr)
		if !sum.ServerExited {
			t.Errorf("the server process was still running after the SDK closed the stdio transport")
		}
		// The SDK ends stdin, waits 2 s for the process to exit, then sends SIGTERM.
		if sum.CloseMs == nil || *sum.CloseMs >= 2000 {
			t.Errorf("closing took %v ms: the server did not exit when its stdin closed", sum.CloseMs)
		}

		// A second run on the same state starts with the report already dismissed; the
		// script must notice and fail. This shows the dismissal was persisted by the
		// first server process and that the script's assertions bite.
		_, stderr, err = runTSClient(t, node, args...)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("second run on dismissed state: err=%v, want exit status 1\n%s", err, stderr)
		}
		if wantMsg := want.getID + " starts as dismissed"; !strings.Contains(stderr, wantMsg) {
			t.Errorf("second run failed for another reason than %q:\n%s", wantMsg, stderr)
		}
	})

	t.Run("http", func(t *testing.T) {
		dir, data := copySamples(t), t.TempDir()
		p := startServer(t, bin, "-dir", dir, "-data", data)
		sum, stderr, err := runTSClient(t, node, "--transport", "http", "--url", p.base+"/mcp")
		if err != nil {
			t.Fatalf("client.mjs over HTTP: %v\n%s", err, stderr)
		}
		checkTSSummary(t, sum, "http", sdkVersion, want)
		checkTSStderr(t, stderr)
		if sum.SessionID == nil || *sum.SessionID == "" {
			t.Errorf("the SDK client got no Mcp-Session-Id")
		}
		if !sum.SessionTerminated {
			t.Errorf("the SDK client still holds its session after terminateSession (DELETE)")
		}
		// The update made through the SDK is visible to every other client of the server.
		got := listHTTP(t, p.base)
		for _, id := range want.all {
			wantStatus := reports.LifecycleUnread
			if id == want.getID {
				wantStatus = reports.LifecycleDismissed
			}
			if got[id] != wantStatus {
				t.Errorf("inbox API after the SDK run: %s is %q, want %q", id, got[id], wantStatus)
			}
		}
	})
}

// checkTSSummary compares what the SDK client saw with the expectations.
func checkTSSummary(t *testing.T, sum tsSummary, transport, sdkVersion string, want tsExpect) {
	t.Helper()
	t.Logf("node %s, SDK %s, protocol %s, server %s %s", sum.Node, sum.SDK, sum.ProtocolVersion, sum.Server.Name, sum.Server.Version)
	if !sum.OK || sum.Transport != transport {
		t.Errorf("summary ok=%v transport=%q, want ok over %s", sum.OK, sum.Transport, transport)
	}
	if sum.SDK != sdkVersion {
		t.Errorf("the script ran SDK %s, package.json pins %s", sum.SDK, sdkVersion)
	}
	// The server supports every revision the SDK knows, so it must agree to the newest.
	if sum.ProtocolVersion == "" || sum.ProtocolVersion != sum.SDKLatestProtocolVersion {
		t.Errorf("negotiated protocol %q, want the SDK's latest %q", sum.ProtocolVersion, sum.SDKLatestProtocolVersion)
	}
	if sum.Server.Name != "wiremcp-reports" || sum.Server.Version != version {
		t.Errorf("serverInfo %s %s, want wiremcp-reports %s", sum.Server.Name, sum.Server.Version, version)
	}
	checks := []struct {
		name      string
		want, got any
	}{
		{"tools", []string{reports.ToolList, reports.ToolGet, reports.ToolUpdateStatus}, sum.Tools},
		{"REPORTS_LIST {} order", want.all, sum.All},
		{"REPORTS_LIST {status: failing}", want.failing, sum.Failing},
		{"category filter name", want.categoryName, sum.Category.Name},
		{"REPORTS_LIST {category}", want.category, sum.Category.IDs},
		{"REPORTS_GET id", want.getID, sum.Get.ID},
		{"REPORTS_GET section types", want.sectionTypes, sum.Get.SectionTypes},
		{"unknown id is isError", true, sum.UnknownIsError},
		{"dismissed id", want.getID, sum.Dismissed},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("%s over %s (-want +got):\n%s", c.name, transport, diff)
		}
	}
}

// checkTSStderr fails the test if a successful run logged a transport error (client.mjs)
// or a warning or error (the stdio server, whose log the script passes through).
func checkTSStderr(t *testing.T, stderr string) {
	t.Helper()
	for _, bad := range []string{"transport error", "level=WARN", "level=ERROR"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("a successful run logged %q:\n%s", bad, stderr)
		}
	}
}

// tsExpected works out the answers from the embedded samples: every report newest first
// (ties by id), the failing ones, the category of the newest failing report, and its
// section types. The script dismisses that report.
func tsExpected(t *testing.T) tsExpect {
	t.Helper()
	loaded, diags := loadSamples()
	if len(diags) > 0 {
		t.Fatalf("sample diagnostics: %v", diags)
	}
	rs := make([]*reports.Report, len(loaded))
	for i, l := range loaded {
		rs[i] = l.Report
	}
	slices.SortFunc(rs, func(a, b *reports.Report) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	var w tsExpect
	for _, r := range rs {
		w.all = append(w.all, r.ID)
		if r.Status == reports.StatusFailing {
			w.failing = append(w.failing, r.ID)
		}
	}
	if len(w.failing) == 0 {
		t.Fatal("the samples have no failing report")
	}
	w.getID = w.failing[0]
	for _, r := range rs {
		if r.ID == w.getID {
			w.categoryName = string(r.Category)
			raw, err := json.Marshal(r.Sections)
			if err != nil {
				t.Fatal(err)
			}
			var secs []struct{ Type string }
			if err := json.Unmarshal(raw, &secs); err != nil {
				t.Fatal(err)
			}
			for _, s := range secs {
				w.sectionTypes = append(w.sectionTypes, s.Type)
			}
		}
	}
	for _, r := range rs {
		if string(r.Category) == w.categoryName {
			w.category = append(w.category, r.ID)
		}
	}
	return w
}

// copySamples writes the embedded samples into a fresh directory for -dir.
func copySamples(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	names, err := fs.Glob(sampleFS, "samples/*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no embedded samples: %v", err)
	}
	for _, n := range names {
		b, err := sampleFS.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, path.Base(n)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// tsClientSetup finds node, installs the pinned SDK into tsclient/node_modules when it is
// not there, and returns the node binary and the pinned SDK version.
func tsClientSetup(t *testing.T) (node, sdkVersion string) {
	t.Helper()
	sdkVersion = pinnedSDKVersion(t)
	return nodetest.Setup(t, tsClientDir, 20, 0, "the TypeScript SDK client test"), sdkVersion
}

// pinnedSDKVersion reads the exact SDK version from tsclient/package.json and checks that
// package-lock.json agrees.
func pinnedSDKVersion(t *testing.T) string {
	t.Helper()
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	for file, v := range map[string]any{"package.json": &pkg, "package-lock.json": &lock} {
		b, err := os.ReadFile(filepath.Join(tsClientDir, file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	v := pkg.Dependencies["@modelcontextprotocol/sdk"]
	if v == "" || strings.ContainsAny(v, "^~<>=*xX |") {
		t.Fatalf("tsclient/package.json must pin @modelcontextprotocol/sdk to an exact version, has %q", v)
	}
	if got := lock.Packages["node_modules/@modelcontextprotocol/sdk"].Version; got != v {
		t.Fatalf("tsclient/package-lock.json has @modelcontextprotocol/sdk %q, package.json pins %q", got, v)
	}
	return v
}

// runTSClient runs client.mjs with args in its own process group (so that a stdio server
// it launched goes with it) and returns the parsed summary, the script's stderr (which
// also carries a stdio server's log), and the run's error. Nothing it starts outlives it.
func runTSClient(t *testing.T, node string, args ...string) (tsSummary, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"client.mjs"}, args...)...)
	cmd.Dir = tsClientDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return tsSummary{}, "", err
	}
	pgid := cmd.Process.Pid
	waited := false
	t.Cleanup(func() {
		if !waited {
			syscall.Kill(-pgid, syscall.SIGKILL)
		}
	})
	err := cmd.Wait()
	waited = true
	t.Logf("client.mjs %s: %v", strings.Join(args[:2], " "), time.Since(start).Round(time.Millisecond))
	// Once the script has exited, nothing of its process group may be left running.
	if kerr := syscall.Kill(-pgid, 0); !errors.Is(kerr, syscall.ESRCH) {
		t.Errorf("processes of client.mjs's group are still running after it exited (kill -0: %v)", kerr)
		syscall.Kill(-pgid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		return tsSummary{}, stderr.String(), fmt.Errorf("client.mjs timed out: %w", ctx.Err())
	}
	if err != nil {
		return tsSummary{}, stderr.String(), err
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var sum tsSummary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil {
		return tsSummary{}, stderr.String(), fmt.Errorf("client.mjs summary %q: %v", stdout.String(), err)
	}
	return sum, stderr.String(), nil
}
