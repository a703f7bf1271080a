package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStdioStopWithUnreadAnswers: a stdio server told to stop while its client
// does not read its stdout (every answer waits to be written) ends within
// -stop-wait, saying why, instead of waiting for the client for ever; it
// removes its models' files as any stop does. Before, a first SIGTERM did not
// end it while the answers waited.
func TestStdioStopWithUnreadAnswers(t *testing.T) {
	dir := sampleDir(t) // made once for the package's tests, in the usual TMPDIR
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the models' folders (catalog-duckdb-*) go here
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe() // never read until the end: every write waits
	defer stdoutR.Close()
	defer stdinW.Close()
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const wait = 300 * time.Millisecond
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"-stdio", "-catalog", dir, "-stop-wait", wait.String()}, stdinR, stdoutW, &stderr)
	}()
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	in.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_catalog","arguments":{}}}`+"\n", i)
	}
	go io.WriteString(stdinW, in.String()) // the server reads while nothing is read of its answers
	time.Sleep(500 * time.Millisecond)     // the calls are read and their answers wait
	start := time.Now()
	cancel()
	select {
	case code := <-done:
		if took := time.Since(start); took > wait+3*time.Second {
			t.Errorf("stopping took %v with -stop-wait %v", took, wait)
		}
		if code != 0 {
			t.Errorf("exit code %d; stderr: %s", code, stderr.String())
		}
	case <-time.After(wait + 10*time.Second):
		stdoutR.Close() // let the server's writes fail, so that it ends
		t.Fatalf("the server did not stop while its answers were unread (-stop-wait %v)", wait)
	}
	if !strings.Contains(stderr.String(), "stopping without the answers the client has not read") {
		t.Errorf("the log does not say why it stopped without its answers: %s", stderr.String())
	}
	if dirs, _ := filepath.Glob(filepath.Join(tmp, "catalog-duckdb-*")); len(dirs) > 0 {
		t.Errorf("left behind: %v", dirs)
	}
	stdoutR.Close() // the writes still waiting fail now
}
