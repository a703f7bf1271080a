package streamable

import (
	"fmt"
	"testing"
)

func replayAll(t *testing.T, m *MemoryEventStore, sess string, stream, after int64) []string {
	t.Helper()
	var out []string
	err := m.Replay(t.Context(), sess, stream, after, func(seq int64, data []byte) error {
		out = append(out, fmt.Sprintf("%d:%s", seq, data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestMemoryEventStore(t *testing.T) {
	m := NewMemoryEventStore(3, 0)
	ctx := t.Context()
	for i := int64(1); i <= 5; i++ {
		m.Append(ctx, "s", 1, i, []byte(fmt.Sprint("e", i)))
	}
	m.Append(ctx, "s", 2, 1, []byte("other"))
	if got := fmt.Sprint(replayAll(t, m, "s", 1, 0)); got != "[3:e3 4:e4 5:e5]" {
		t.Errorf("per-stream cap: %s", got)
	}
	if got := fmt.Sprint(replayAll(t, m, "s", 1, 4)); got != "[5:e5]" {
		t.Errorf("after 4: %s", got)
	}
	if got := fmt.Sprint(replayAll(t, m, "s", 2, 0)); got != "[1:other]" {
		t.Errorf("stream 2: %s", got)
	}
	m.DeleteSession("s")
	if got := replayAll(t, m, "s", 1, 0); len(got) != 0 {
		t.Errorf("after DeleteSession: %v", got)
	}
	if m.bytes != 0 || m.lru.Len() != 0 {
		t.Errorf("accounting after delete: %d bytes, %d streams", m.bytes, m.lru.Len())
	}
}

func TestMemoryEventStoreBudget(t *testing.T) {
	m := NewMemoryEventStore(0, 1000)
	ctx := t.Context()
	for i := int64(1); i <= 20; i++ {
		m.Append(ctx, "s", i, 1, make([]byte, 100))
	}
	if m.bytes > 1000+100+memOverhead+memStreamOverhead {
		t.Errorf("store holds %d bytes over a 1000 budget", m.bytes)
	}
	if got := replayAll(t, m, "s", 20, 0); len(got) != 1 {
		t.Errorf("newest stream evicted")
	}
	if got := replayAll(t, m, "s", 1, 0); len(got) != 0 {
		t.Errorf("oldest stream kept")
	}
}

func TestMemoryEventStoreDeleteStream(t *testing.T) {
	m := NewMemoryEventStore(0, 0)
	ctx := t.Context()
	m.Append(ctx, "s", 1, 1, []byte("a"))
	m.Append(ctx, "s", 1, 2, []byte("b"))
	m.Append(ctx, "s", 2, 1, []byte("c"))
	m.Append(ctx, "t", 1, 1, []byte("d"))
	m.DeleteStream("s", 1)
	m.DeleteStream("s", 9)    // unknown stream: nothing happens
	m.DeleteStream("nope", 1) // unknown session: nothing happens
	if got := replayAll(t, m, "s", 1, 0); len(got) != 0 {
		t.Errorf("deleted stream replays %v", got)
	}
	if got := fmt.Sprint(replayAll(t, m, "s", 2, 0), replayAll(t, m, "t", 1, 0)); got != "[1:c] [1:d]" {
		t.Errorf("other streams: %s", got)
	}
	m.DeleteStream("s", 2)
	m.DeleteSession("t")
	if m.bytes != 0 || m.lru.Len() != 0 || len(m.sessions) != 0 {
		t.Errorf("accounting after deletes: %d bytes, %d streams, %d sessions", m.bytes, m.lru.Len(), len(m.sessions))
	}
}
