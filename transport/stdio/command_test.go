package stdio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/stdio"
)

const helperEnv = "WIREMCP_STDIO_TEST_HELPER"

// TestMain lets the test binary act as the child process of the Command tests.
func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

// helper is the child: an echo server over stdio, with a shutdown behaviour chosen
// by mode.
func helper(mode string) int {
	fmt.Fprintln(os.Stderr, "helper starting")
	fmt.Fprint(os.Stderr, "a second line\nand an unterminated one")
	switch mode {
	case "exit": // say something, then exit on its own
		fmt.Println(`{"jsonrpc":"2.0","method":"bye"}`)
		return 0
	case "fail":
		return 3
	case "ignore-stdin", "ignore-term":
		// Keep running after stdin closes; exit on SIGTERM unless ignoring it.
		term := make(chan os.Signal, 1)
		if mode == "ignore-term" {
			signal.Ignore(syscall.SIGTERM)
			signal.Notify(term, syscall.SIGINT) // never sent: keeps the process waiting
		} else {
			signal.Notify(term, syscall.SIGTERM)
		}
		fmt.Println(`{"jsonrpc":"2.0","method":"ready"}`) // handlers installed
		io.Copy(io.Discard, os.Stdin)
		<-term
		return 0
	}
	conn := jsonrpc.NewConn(stdio.Stdio(), &jsonrpc.ConnOptions{Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
		return req.Params, nil
	})})
	<-conn.Done()
	return 0
}

func helperCmd(t *testing.T, mode string) *exec.Cmd {
	t.Helper()
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skipf("child-process signal tests need a Unix system (GOOS=%s)", runtime.GOOS)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	return cmd
}

// syncBuffer is a bytes.Buffer safe for the concurrent use of exec's copier and the
// test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestCommandEcho(t *testing.T) {
	checkLeaks(t)
	var stderr syncBuffer
	cmd := helperCmd(t, "echo")
	tr, err := stdio.Command(cmd, &stdio.CommandOptions{Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc.NewConn(tr, nil)
	var got json.RawMessage
	if err := conn.Call(context.Background(), "echo", []string{"hi"}, &got); err != nil {
		t.Fatal(err)
	}
	if string(got) != `["hi"]` {
		t.Errorf("echo = %s", got)
	}
	if err := conn.Close(); err != nil {
		t.Errorf("Close: %v (the child should exit cleanly when its stdin closes)", err)
	}
	if !cmd.ProcessState.Exited() || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("child state %v, want a clean exit", cmd.ProcessState)
	}
	if want := "helper starting\na second line\nand an unterminated one"; stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
}

// logLines is a slog.Handler that records the "line" attribute of each record.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) Enabled(context.Context, slog.Level) bool { return true }
func (l *logLines) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "line" {
			l.mu.Lock()
			l.lines = append(l.lines, a.Value.String())
			l.mu.Unlock()
		}
		return true
	})
	return nil
}
func (l *logLines) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logLines) WithGroup(string) slog.Handler      { return l }

func TestCommandStderrToLogger(t *testing.T) {
	checkLeaks(t)
	logs := &logLines{}
	tr, err := stdio.Command(helperCmd(t, "exit"), &stdio.CommandOptions{Options: stdio.Options{Logger: slog.New(logs)}})
	if err != nil {
		t.Fatal(err)
	}
	// The child exits by itself: its last line is still read, then io.EOF.
	got, err := readAll(t, tr)
	if err != io.EOF {
		t.Errorf("Read after the child exited: %v, want io.EOF", err)
	}
	if len(got) != 1 || got[0] != `{"jsonrpc":"2.0","method":"bye"}` {
		t.Errorf("messages %q", got)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	want := []string{"helper starting", "a second line", "and an unterminated one"}
	if strings.Join(logs.lines, "|") != strings.Join(want, "|") {
		t.Errorf("logged stderr lines %q, want %q", logs.lines, want)
	}
}

func TestCommandExitStatus(t *testing.T) {
	checkLeaks(t)
	tr, err := stdio.Command(helperCmd(t, "fail"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Read(context.Background()); err != io.EOF {
		t.Errorf("Read: %v, want io.EOF", err)
	}
	err = tr.Close()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Errorf("Close = %v, want the exit status 3", err)
	}
}

func TestCommandStopEscalates(t *testing.T) {
	for _, tt := range []struct{ mode, signal string }{
		{"ignore-stdin", "SIGTERM"},
		{"ignore-term", "SIGKILL"},
	} {
		t.Run(tt.mode, func(t *testing.T) {
			checkLeaks(t)
			cmd := helperCmd(t, tt.mode)
			tr, err := stdio.Command(cmd, &stdio.CommandOptions{GracePeriod: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			msg, err := tr.Read(context.Background()) // "ready": signal handling is set up
			if r, ok := msg.(*jsonrpc.Request); err != nil || !ok || r.Method != "ready" {
				t.Fatalf("first message %#v, %v", msg, err)
			}
			err = tr.Close()
			if err == nil || !strings.Contains(err.Error(), tt.signal) {
				t.Errorf("Close = %v, want a report of %s", err, tt.signal)
			}
			if cmd.ProcessState == nil {
				t.Fatalf("Close returned before the child was reaped")
			}
			ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			switch {
			case !ok:
				t.Errorf("no wait status")
			case tt.signal == "SIGTERM" && !(ws.Exited() && ws.ExitStatus() == 0):
				t.Errorf("child status %v, want a clean exit on SIGTERM", cmd.ProcessState)
			case tt.signal == "SIGKILL" && !(ws.Signaled() && ws.Signal() == syscall.SIGKILL):
				t.Errorf("child status %v, want killed", cmd.ProcessState)
			}
			if _, err := tr.Read(context.Background()); !errors.Is(err, stdio.ErrClosed) {
				t.Errorf("Read after Close: %v", err)
			}
		})
	}
}

func TestCommandErrors(t *testing.T) {
	cmd := exec.Command("true")
	cmd.Stdin = strings.NewReader("")
	if _, err := stdio.Command(cmd, nil); err == nil {
		t.Errorf("Command with Stdin set succeeded")
	}
	if _, err := stdio.Command(exec.Command("/nonexistent/wiremcp-test-binary"), nil); err == nil {
		t.Errorf("Command of a missing binary succeeded")
	}
}
