//go:build linux

package stdio

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(ents)
}

// TestSelectReaderReleasesDescriptors: every transport gives its duplicate and its
// wake-up pipe back, whether Close came during a Read or between Reads.
func TestSelectReaderReleasesDescriptors(t *testing.T) {
	before := openFDs(t)
	for i := range 20 {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		tr := New(r, w, nil)
		if _, err := w.WriteString(`{"jsonrpc":"2.0","method":"n"}` + "\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Read(context.Background()); err != nil || tr.sel == nil {
			t.Fatalf("read: %v (select reader: %v)", err, tr.sel != nil)
		}
		done := make(chan error, 1)
		if i%2 == 0 {
			go func() {
				_, err := tr.Read(context.Background())
				done <- err
			}()
			time.Sleep(time.Millisecond) // Close during the Read, or just before: both must work
		}
		tr.Close()
		if i%2 == 0 {
			if err := waitErr(t, done); !errors.Is(err, ErrClosed) {
				t.Fatalf("Read during Close: %v", err)
			}
		}
	}
	waitFDs(t, before)
}

// waitFDs waits (up to 5 s) until no more descriptors are open than before.
func waitFDs(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for openFDs(t) > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d file descriptors open, %d before", openFDs(t), before)
		}
		time.Sleep(5 * time.Millisecond) // polling for readers to let go
	}
}

// TestSelectReaderStaleWake: a wake-up left by the context of an earlier Read does
// not cut a line the next Read is assembling.
func TestSelectReaderStaleWake(t *testing.T) {
	tr, w := pipeReader(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tr.Read(ctx)
		done <- err
	}()
	time.Sleep(time.Millisecond)
	cancel()
	if err := waitErr(t, done); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel: %v", err)
	}
	tr.sel.wake() // as a late hook of that context would
	msgs := make(chan jsonrpc.Message, 1)
	go func() {
		m, err := tr.Read(context.Background())
		msgs <- m
		done <- err
	}()
	w.WriteString(`{"jsonrpc":"2.0",`)
	time.Sleep(5 * time.Millisecond)
	tr.sel.wake()
	time.Sleep(5 * time.Millisecond)
	w.WriteString(`"method":"whole"}` + "\n")
	if err := waitErr(t, done); err != nil {
		t.Fatal(err)
	}
	if m, ok := (<-msgs).(*jsonrpc.Request); !ok || m.Method != "whole" {
		t.Fatalf("got %#v", m)
	}
}

func waitErr(t *testing.T, ch <-chan error) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not return")
		return nil
	}
}

// blockingPipe returns a pipe whose read end is in blocking mode, as a child's stdin
// arrives; both ends are closed at the end of the test.
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	t.Cleanup(func() {
		r.Close()
		w.Close()
	})
	return r, w
}

func readMethod(t *testing.T, tr *Transport, ctx context.Context) (string, error) {
	t.Helper()
	type res struct {
		m   jsonrpc.Message
		err error
	}
	ch := make(chan res, 1)
	go func() {
		m, err := tr.Read(ctx)
		ch <- res{m, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return "", r.err
		}
		req, ok := r.m.(*jsonrpc.Request)
		if !ok {
			t.Fatalf("read %#v", r.m)
		}
		return req.Method, nil
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not return")
		return "", nil
	}
}

// TestBlockingPipeRead: a pipe in blocking mode is waited on by read(2) itself; a
// cancelled context, a stale wake-up and Close still interrupt it (by a newline
// written into the pipe, which no Read returns), a wake-up never cuts a line in
// progress, and the descriptors are given back.
func TestBlockingPipeRead(t *testing.T) {
	before := openFDs(t)
	r, w := blockingPipe(t)
	tr := New(r, nil, nil)
	write := func(s string) {
		t.Helper()
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"jsonrpc":"2.0","method":"a"}` + "\n")
	if m, err := readMethod(t, tr, context.Background()); err != nil || m != "a" {
		t.Fatalf("first read: %q %v", m, err)
	}
	if tr.sel == nil || tr.sel.reopen == "" {
		t.Fatal("a blocking pipe is not read with blocking reads")
	}

	// A cancelled context ends a blocked Read.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := readMethod(t, tr, ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel: %v", err)
	}
	if tr.sel.reopen == "" {
		t.Fatal("the reader stopped using blocking reads")
	}

	// The next message arrives whole, and nothing stands for the interruption.
	write(`{"jsonrpc":"2.0","method":"b"}` + "\n")
	if m, err := readMethod(t, tr, context.Background()); err != nil || m != "b" {
		t.Fatalf("read after a cancelled read: %q %v", m, err)
	}

	// A stale wake-up (an earlier context's late hook) during a blocked Read: the
	// Read goes on waiting and returns the next message.
	time.AfterFunc(20*time.Millisecond, func() {
		tr.sel.wake()
		time.Sleep(20 * time.Millisecond)
		w.WriteString(`{"jsonrpc":"2.0","method":"c"}` + "\n")
	})
	if m, err := readMethod(t, tr, context.Background()); err != nil || m != "c" {
		t.Fatalf("read across a stale wake-up: %q %v", m, err)
	}

	// With the start of a line buffered, the reader waits in select: a wake-up then
	// writes nothing into the pipe, and the line stays whole.
	time.AfterFunc(20*time.Millisecond, func() {
		w.WriteString(`{"jsonrpc":"2.0",`)
		time.Sleep(20 * time.Millisecond)
		tr.sel.wake()
		time.Sleep(20 * time.Millisecond)
		w.WriteString(`"method":"whole"}` + "\n")
	})
	if m, err := readMethod(t, tr, context.Background()); err != nil || m != "whole" {
		t.Fatalf("read across a wake-up inside a line: %q %v", m, err)
	}

	// Close ends a blocked Read, and the descriptors are given back.
	time.AfterFunc(20*time.Millisecond, func() { tr.Close() })
	if _, err := readMethod(t, tr, context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Read after Close: %v", err)
	}
	r.Close()
	w.Close()
	waitFDs(t, before)
}

// TestNonBlockingPipeSelects: a pipe someone put in non-blocking mode (os.Pipe does)
// makes the reader fall back to select(2), and reads and interruptions still work.
func TestNonBlockingPipeSelects(t *testing.T) {
	tr, w := pipeReader(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := readMethod(t, tr, ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel: %v", err)
	}
	if tr.sel == nil || tr.sel.reopen != "" {
		t.Fatal("a non-blocking pipe is still read with blocking reads")
	}
	w.WriteString(`{"jsonrpc":"2.0","method":"a"}` + "\n")
	if m, err := readMethod(t, tr, context.Background()); err != nil || m != "a" {
		t.Fatalf("read: %q %v", m, err)
	}
}

// TestSocketSelects: a socket is never read with blocking reads (it cannot be
// reopened to interrupt one); select(2) serves it.
func TestSocketSelects(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	defer w.Close()
	defer r.Close()
	tr := New(r, nil, nil)
	defer tr.Close()
	w.WriteString(`{"jsonrpc":"2.0","method":"a"}` + "\n")
	if m, err := readMethod(t, tr, context.Background()); err != nil || m != "a" {
		t.Fatalf("read: %q %v", m, err)
	}
	if tr.sel == nil {
		t.Fatal("a socket is not read with select")
	}
	if tr.sel.reopen != "" {
		t.Fatalf("a socket is read with blocking reads (reopen %q)", tr.sel.reopen)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := readMethod(t, tr, ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel: %v", err)
	}
}
