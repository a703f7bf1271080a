// Package nodetest prepares Node.js for tests that drive JavaScript clients and
// servers (the TypeScript SDK, the MCP Inspector, an OAuth provider): it finds the
// node binary and installs the exact packages a folder pins.
//
// Node is WIREMCP_NODE when set, else node on PATH; npm is WIREMCP_NPM, else npm on
// PATH. When either is missing or too old the test is skipped, except with CI=true,
// where it fails: in CI these tests must run.
package nodetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// installMu keeps two tests of one process from running npm ci in the same folder
// at once.
var installMu sync.Mutex

// Setup returns the node binary, at least version minMajor.minMinor, once every
// dependency pinned in dir/package.json is installed in dir/node_modules at its
// pinned version (running `npm ci` in dir otherwise). what names the tests in the
// skip or failure message.
func Setup(t testing.TB, dir string, minMajor, minMinor int, what string) string {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI=true: %s must run)", msg, what)
		}
		t.Skipf("skipping %s: %s; install Node.js %d.%d+ and npm or set WIREMCP_NODE and WIREMCP_NPM", what, msg, minMajor, minMinor)
	}
	node, err := lookTool("WIREMCP_NODE", "node")
	if err != nil {
		unavailable("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		unavailable("%s --version: %v", node, err)
	}
	version := strings.TrimSpace(string(out))
	parts := strings.SplitN(strings.TrimPrefix(version, "v"), ".", 3)
	major, err := strconv.Atoi(parts[0])
	minor := 0
	if len(parts) > 1 {
		minor, _ = strconv.Atoi(parts[1])
	}
	if err != nil || major < minMajor || major == minMajor && minor < minMinor {
		unavailable("%s is Node %s; %d.%d or later is needed", node, version, minMajor, minMinor)
	}

	installMu.Lock()
	defer installMu.Unlock()
	if missing := missingPackages(t, dir); missing != "" {
		npm, err := lookTool("WIREMCP_NPM", "npm")
		if err != nil {
			unavailable("%s/node_modules lacks %s and %v", dir, missing, err)
		}
		ictx, icancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer icancel()
		cmd := exec.CommandContext(ictx, npm, "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		// npm is a Node program: let it run on the chosen node.
		cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+string(os.PathListSeparator)+os.Getenv("PATH"))
		cmd.WaitDelay = 10 * time.Second
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
		t.Logf("npm ci in %s took %v", dir, time.Since(start).Round(time.Millisecond))
	}
	return node
}

// missingPackages names the dependencies of dir/package.json that dir/node_modules
// does not hold at their pinned version ("" when all are there).
func missingPackages(t testing.TB, dir string) string {
	t.Helper()
	var pkg struct{ Dependencies map[string]string }
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	if err != nil {
		t.Fatalf("reading %s/package.json: %v", dir, err)
	}
	var missing []string
	for name, want := range pkg.Dependencies {
		var got struct{ Version string }
		b, _ := os.ReadFile(filepath.Join(dir, "node_modules", name, "package.json"))
		if json.Unmarshal(b, &got) != nil || got.Version != want {
			missing = append(missing, name+" "+want)
		}
	}
	return strings.Join(missing, ", ")
}

// lookTool returns the program named by the environment variable env, else name on PATH.
func lookTool(env, name string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("%s=%s is not an executable: %v", env, p, err)
		}
		return p, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s is not on PATH and %s is unset", name, env)
	}
	return p, nil
}
