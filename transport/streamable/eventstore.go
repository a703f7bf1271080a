package streamable

import (
	"container/list"
	"context"
	"sync"
)

// EventStore keeps the SSE events a Handler sent so that a client can resume a stream
// after a disconnect (GET with Last-Event-ID). Events are identified by the session,
// the stream number within the session and a sequence number that starts at 1 and
// grows by one per event of the stream.
//
// All methods may be called concurrently. Append for one stream is never called
// concurrently with itself or with Replay of the same stream.
type EventStore interface {
	// Append records data (one JSON-RPC message) as event seq of the stream. It must
	// copy data if it keeps it.
	Append(ctx context.Context, session string, stream, seq int64, data []byte) error
	// Replay calls fn, in order, for every kept event of the stream whose sequence
	// number is greater than after, and stops at the first error fn returns.
	Replay(ctx context.Context, session string, stream, after int64, fn func(seq int64, data []byte) error) error
	// DeleteSession forgets every event of a session. It must not block for long.
	DeleteSession(session string)
}

// EventStreamDeleter is an optional interface of an EventStore: DeleteStream forgets
// every event of one stream of a session. A Handler calls it once a request's stream
// has delivered all its events, its response included, to an attached client, when
// no resumption is needed any more. It may be called concurrently with the other
// methods and must not block for long.
type EventStreamDeleter interface {
	DeleteStream(session string, stream int64)
}

// MemoryEventStore is an EventStore in memory, bounded per stream and in total.
// When a stream holds more than its cap the oldest events of that stream are dropped;
// when the store holds more than its byte budget the streams appended to least
// recently are dropped whole.
type MemoryEventStore struct {
	mu        sync.Mutex
	perStream int
	maxBytes  int
	bytes     int
	sessions  map[string]map[int64]*memStream
	lru       list.List // of *memStream, least recently appended first
}

type streamKey struct {
	session string
	stream  int64
}

type memStream struct {
	key   streamKey
	first int64 // sequence number of events[0]
	data  [][]byte
	bytes int
	elem  *list.Element
}

// NewMemoryEventStore returns a store that keeps at most perStream events per stream
// (0 means 1024) and about maxBytes bytes in total, event data and bookkeeping
// (0 means 16 MiB).
func NewMemoryEventStore(perStream, maxBytes int) *MemoryEventStore {
	if perStream <= 0 {
		perStream = 1024
	}
	if maxBytes <= 0 {
		maxBytes = 16 << 20
	}
	return &MemoryEventStore{perStream: perStream, maxBytes: maxBytes, sessions: make(map[string]map[int64]*memStream)}
}

// Rough bookkeeping costs counted against maxBytes: per event (slice header, slab
// rounding) and per stream (its struct, list element and map entry).
const (
	memOverhead       = 160
	memStreamOverhead = 256
)

// Append implements EventStore.
func (m *MemoryEventStore) Append(_ context.Context, session string, stream, seq int64, data []byte) error {
	cp := make([]byte, len(data))
	copy(cp, data)
	k := streamKey{session, stream}
	m.mu.Lock()
	defer m.mu.Unlock()
	ss := m.sessions[session]
	if ss == nil {
		ss = make(map[int64]*memStream)
		m.sessions[session] = ss
	}
	st := ss[stream]
	if st == nil {
		st = &memStream{key: k, first: seq, bytes: memStreamOverhead}
		st.elem = m.lru.PushBack(st)
		ss[stream] = st
		m.bytes += memStreamOverhead
	} else {
		m.lru.MoveToBack(st.elem)
		if next := st.first + int64(len(st.data)); seq != next {
			// A gap (events dropped by the caller): restart the stream's window.
			m.bytes -= st.bytes - memStreamOverhead
			clear(st.data)
			st.data, st.bytes, st.first = st.data[:0], memStreamOverhead, seq
		}
	}
	st.data = append(st.data, cp)
	n := len(cp) + memOverhead
	st.bytes += n
	m.bytes += n
	for len(st.data) > m.perStream {
		d := len(st.data[0]) + memOverhead
		st.data[0] = nil
		st.data = st.data[1:]
		st.first++
		st.bytes -= d
		m.bytes -= d
	}
	for m.bytes > m.maxBytes && m.lru.Len() > 1 {
		old := m.lru.Front().Value.(*memStream)
		if old == st {
			break
		}
		m.drop(old)
	}
	return nil
}

func (m *MemoryEventStore) drop(st *memStream) {
	m.lru.Remove(st.elem)
	if ss := m.sessions[st.key.session]; ss != nil {
		delete(ss, st.key.stream)
		if len(ss) == 0 {
			delete(m.sessions, st.key.session)
		}
	}
	m.bytes -= st.bytes
}

// Replay implements EventStore.
func (m *MemoryEventStore) Replay(_ context.Context, session string, stream, after int64, fn func(seq int64, data []byte) error) error {
	m.mu.Lock()
	st := m.sessions[session][stream]
	var evs [][]byte
	var first int64
	if st != nil {
		first = st.first
		skip := after + 1 - st.first
		if skip < 0 {
			skip = 0
		}
		if skip < int64(len(st.data)) {
			evs = append(evs, st.data[skip:]...)
			first += skip
		}
	}
	m.mu.Unlock()
	for i, d := range evs {
		if err := fn(first+int64(i), d); err != nil {
			return err
		}
	}
	return nil
}

// DeleteStream implements EventStreamDeleter.
func (m *MemoryEventStore) DeleteStream(session string, stream int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if st := m.sessions[session][stream]; st != nil {
		m.drop(st)
	}
}

// DeleteSession implements EventStore.
func (m *MemoryEventStore) DeleteSession(session string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, st := range m.sessions[session] {
		m.drop(st)
	}
}
