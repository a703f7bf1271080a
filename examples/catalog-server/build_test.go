package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

// buildServer builds the server binary once per test binary.
func buildServer(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "catalog-server-bin-*")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "catalog-server")
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

// builtWorker is DuckConfig.Worker for query processes of the built server bin,
// as the server starts them (bin -engine-worker).
func builtWorker(bin string) func() *exec.Cmd {
	return func() *exec.Cmd { return exec.Command(bin, workerFlag) }
}
