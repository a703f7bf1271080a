package stdio

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/jsonrpc"
)

// Over an os.Pipe the Transport reads on the caller's goroutine; a blocked Read must
// still end when its context does, and when the Transport is closed.
func TestDirectReadCancellation(t *testing.T) {
	leaktest.Check(t)
	r, w, err := os.Pipe()
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
	if tr.direct == nil {
		t.Fatal("a pipe is read directly")
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
