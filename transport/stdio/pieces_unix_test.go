//go:build unix

package stdio_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/stdio"
)

// blockingPipe returns a pipe whose read end is in blocking mode and is not known
// to the runtime's poller, as os.Stdin is for a server a client launched.
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r = os.NewFile(uintptr(fds[0]), "stdin-like")
	w = os.NewFile(uintptr(fds[1]), "writer")
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

func fileFlags(t *testing.T, fd uintptr) int {
	t.Helper()
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	if errno != 0 {
		t.Fatalf("fcntl F_GETFL: %v", errno)
	}
	return int(flags)
}

// TestLongLineInPiecesWithCancelledReads: a 1 MiB message arriving in 4 KiB pieces,
// with pauses between them, while the Reads waiting for it are cancelled and
// resumed, arrives whole; nothing is written into the input, and the flags of the
// descriptor (shared with the parent process for a real stdin) are the same after
// the transport is closed.
func TestLongLineInPiecesWithCancelledReads(t *testing.T) {
	checkLeaks(t)
	r, w := blockingPipe(t)
	flagsBefore := fileFlags(t, r.Fd())

	// A second descriptor for the same open file description, as a parent shell
	// or a sibling process would hold it.
	shared, err := syscall.Dup(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(shared)

	tr := stdio.New(r, w, &stdio.Options{MaxLineBytes: 2 << 20})
	payload := strings.Repeat("x", 1<<20)
	line := []byte(`{"jsonrpc":"2.0","method":"big","params":{"p":"` + payload + `"}}` + "\n")
	second := []byte(`{"jsonrpc":"2.0","method":"after"}` + "\n")

	writeDone := make(chan error, 1)
	go func() {
		for off := 0; off < len(line); off += 4096 {
			end := min(off+4096, len(line))
			if _, err := w.Write(line[off:end]); err != nil {
				writeDone <- err
				return
			}
			if (off/4096)%32 == 0 {
				time.Sleep(2 * time.Millisecond) // let a cancelled Read come and go
			}
		}
		_, err := w.Write(second)
		writeDone <- err
	}()

	var got []jsonrpc.Message
	cancels := 0
	deadline := time.Now().Add(30 * time.Second)
	for len(got) < 2 && time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		msg, err := tr.Read(ctx)
		cancel()
		switch {
		case err == nil:
			got = append(got, msg)
		case errors.Is(err, context.DeadlineExceeded):
			cancels++
		default:
			t.Fatalf("Read after %d message(s), %d cancelled Reads: %v", len(got), cancels, err)
		}
	}
	if err := <-writeDone; err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d messages, want 2", len(got))
	}
	if cancels == 0 {
		t.Fatal("no Read was cancelled while the message arrived; the test proves nothing")
	}
	req, ok := got[0].(*jsonrpc.Request)
	if !ok || req.Method != "big" {
		t.Fatalf("first message = %#v, want the request \"big\"", got[0])
	}
	if !bytes.Contains(req.Params, []byte(payload)) || len(req.Params) != len(payload)+len(`{"p":""}`) {
		t.Fatalf("params are %d bytes, want the whole %d-byte payload", len(req.Params), len(payload)+len(`{"p":""}`))
	}
	if req2, ok := got[1].(*jsonrpc.Request); !ok || req2.Method != "after" {
		t.Fatalf("second message = %#v, want the request \"after\"", got[1])
	}
	t.Logf("%d Reads cancelled while the message arrived", cancels)

	if err := tr.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		t.Logf("close: %v", err)
	}
	if got := fileFlags(t, uintptr(shared)); got != flagsBefore {
		t.Fatalf("open file flags changed: %#x before, %#x after Close", flagsBefore, got)
	}
}
