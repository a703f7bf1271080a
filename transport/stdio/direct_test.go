//go:build unix

package stdio

import (
	"context"
	"errors"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/jsonrpc"
)

// Over an os.Pipe the Transport reads on the caller's goroutine; a blocked Read must
// still end when its context does, and when the Transport is closed.
func TestDirectReadCancellation(t *testing.T) {
	for _, sel := range []bool{false, true} {
		if sel && runtime.GOOS != "linux" {
			continue // select(2) reads are linux only
		}
		name := "poller "
		if sel {
			name = "select "
		}
		t.Run(name+"pollable", func(t *testing.T) { withSelect(t, sel); testDirectRead(t, false, sel) })
		// A child's stdin arrives in blocking mode (Fd puts a file there, as os/exec
		// does for the pipes it hands over): the Transport reads a pollable copy, or
		// a duplicate in select mode.
		t.Run(name+"blocking", func(t *testing.T) { withSelect(t, sel); testDirectRead(t, true, sel) })
	}
}

// withSelect sets whether direct reads use select(2) for the test.
func withSelect(t *testing.T, sel bool) {
	old := noSelect
	noSelect = !sel
	t.Cleanup(func() { noSelect = old })
}

func testDirectRead(t *testing.T, blocking, sel bool) {
	leaktest.Check(t)
	r, w, err := os.Pipe()
	if blocking {
		// A pipe in blocking mode wrapped by os.NewFile, as a child's stdin is.
		var p [2]int
		if err = syscall.Pipe(p[:]); err == nil {
			r, w = os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
			if r.SetReadDeadline(time.Time{}) == nil {
				t.Fatal("a blocking pipe is pollable")
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tr := New(r, nil, nil)
	if _, err := w.WriteString(`{"jsonrpc":"2.0","method":"a"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	m, err := tr.Read(context.Background())
	if err != nil || m.(*jsonrpc.Request).Method != "a" {
		t.Fatalf("read %v %v", m, err)
	}
	if sel {
		if tr.sel == nil || tr.direct != nil {
			t.Fatalf("a pipe is not read through select (select %v, direct %v)", tr.sel != nil, tr.direct != nil)
		}
	} else if tr.direct == nil || tr.ownDirect != blocking {
		t.Fatalf("a pipe is read directly (direct %v, own copy %v)", tr.direct != nil, tr.ownDirect)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := tr.Read(ctx)
		errc <- err
	}()
	time.AfterFunc(20*time.Millisecond, cancel)
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel: %v", err)
	}
	// A later Read with a live context still works: the deadline was lifted.
	if _, err := w.WriteString(`{"jsonrpc":"2.0","method":"b"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	m, err = tr.Read(context.Background())
	if err != nil || m.(*jsonrpc.Request).Method != "b" {
		t.Fatalf("read after a cancelled read: %v %v", m, err)
	}
	go func() {
		_, err := tr.Read(context.Background())
		errc <- err
	}()
	time.AfterFunc(20*time.Millisecond, func() { tr.Close() })
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("Read after Close: %v", err)
	}
}

// Backlog tells the Conn whether another line is already buffered.
func TestBacklog(t *testing.T) {
	tr, w := pipeReader(t)
	if _, err := w.WriteString(`{"jsonrpc":"2.0","method":"a"}` + "\n" + `{"jsonrpc":"2.0","method":"b"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	for i, want := range []bool{true, false} {
		if _, err := tr.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := tr.Backlog(); got != want {
			t.Errorf("after read %d: Backlog() = %v, want %v", i+1, got, want)
		}
	}
}

// pipeReader returns a Transport reading an os.Pipe, and the pipe's write end; both
// are closed at the end of the test.
func pipeReader(t *testing.T) (*Transport, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	tr := New(r, nil, nil)
	t.Cleanup(func() {
		tr.Close()
		w.Close()
	})
	return tr, w
}
