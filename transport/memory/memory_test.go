package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/memory"
)

func TestPair(t *testing.T) {
	a, b := memory.NewPair()
	ctx := context.Background()
	sent := &jsonrpc.Request{ID: jsonrpc.StringID("x"), Method: "m", Params: json.RawMessage(`{"k": [1]}`)}
	if err := a.Write(ctx, sent); err != nil {
		t.Fatal(err)
	}
	msg, err := b.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := msg.(*jsonrpc.Request)
	// The message went through Encode and Decode: params come back compact.
	if got.ID != sent.ID || got.Method != "m" || string(got.Params) != `{"k":[1]}` {
		t.Errorf("read %+v", got)
	}
	if err := a.Write(ctx, &jsonrpc.Request{Method: "m", Params: json.RawMessage(`1`)}); err == nil {
		t.Errorf("Write of an unencodable message succeeded")
	}
}

func TestWriteRawMalformed(t *testing.T) {
	a, b := memory.NewPair()
	ctx := context.Background()
	if err := a.WriteRaw(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"m","params":"x"}`)); err != nil {
		t.Fatal(err)
	}
	msg, err := b.Read(ctx)
	if !errors.Is(err, jsonrpc.ErrInvalidRequest) {
		t.Fatalf("Read error %v, want ErrInvalidRequest", err)
	}
	if inv, ok := msg.(*jsonrpc.Invalid); !ok || inv.ID.Raw() != "7" {
		t.Errorf("Read returned %#v, want *Invalid with id 7", msg)
	}
}

func TestCloseDrains(t *testing.T) {
	a, b := memory.NewPair()
	ctx := context.Background()
	for _, m := range []string{"one", "two"} {
		if err := a.Write(ctx, &jsonrpc.Request{Method: m}); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	for _, want := range []string{"one", "two"} {
		msg, err := b.Read(ctx)
		if err != nil {
			t.Fatalf("Read after the peer closed: %v", err)
		}
		if m := msg.(*jsonrpc.Request).Method; m != want {
			t.Errorf("read %q, want %q", m, want)
		}
	}
	if _, err := b.Read(ctx); err != io.EOF {
		t.Errorf("Read after draining: %v, want io.EOF", err)
	}
	if err := b.Write(ctx, &jsonrpc.Request{Method: "m"}); !errors.Is(err, memory.ErrClosed) {
		t.Errorf("Write to a closed peer: %v, want ErrClosed", err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestReadContext(t *testing.T) {
	_, b := memory.NewPair()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Read with a done context: %v", err)
	}
}
