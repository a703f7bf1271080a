//go:build linux

package stdio

import (
	"context"
	"errors"
	"os"
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
	deadline := time.Now().Add(5 * time.Second)
	for openFDs(t) > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d file descriptors open, %d before", openFDs(t), before)
		}
		time.Sleep(5 * time.Millisecond) // polling for the readers to leave select
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
