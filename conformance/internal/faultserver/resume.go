package faultserver

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Resumable event streams of Streamable HTTP sessions (initialize era).
//
// Every SSE stream the server opens in answer to a POST is numbered within
// its session and its events carry ids "<stream>-<seq>", unique across the
// streams of the session. The events are kept in a small log, so that a
// client that lost the connection can come back with GET and Last-Event-ID
// and receive what followed that event on that stream (and nothing of any
// other stream), including a response that was produced while it was away.

// Bounds of the replay log.
const (
	maxLoggedStreams = 32  // per session; the oldest are forgotten first
	maxLoggedEvents  = 256 // per stream; later events are sent but not kept
)

func init() {
	Faults["http/resume"] = "ignores Last-Event-ID (a plain GET stream, nothing replayed)"
	Faults["http/event-id-unique"] = "numbers the events of every stream from 1"
}

// eventLog holds the streams of one session.
type eventLog struct {
	mu      sync.Mutex
	next    int
	streams map[int]*loggedStream
	order   []int
}

// loggedStream is one SSE stream and the events it has sent.
type loggedStream struct {
	log   *eventLog // nil: nothing is kept (no session)
	num   int
	plain bool // ids are the bare sequence number

	mu      sync.Mutex
	events  [][]byte // data of event seq i+1 (empty for a priming event)
	done    bool     // the stream has sent its last event
	changed chan struct{}
}

// eventLogs maps each Streamable HTTP session to its log. Sessions live as
// long as the server, like the session table in http.go.
var eventLogs = struct {
	sync.Mutex
	m map[*session]*eventLog
}{m: map[*session]*eventLog{}}

func logOf(sess *session) *eventLog {
	eventLogs.Lock()
	defer eventLogs.Unlock()
	l := eventLogs.m[sess]
	if l == nil {
		l = &eventLog{streams: map[int]*loggedStream{}}
		eventLogs.m[sess] = l
	}
	return l
}

// openStream starts a new stream of sess. Without a session (2026-07-28,
// which has no resumption) nothing is logged and ids are plain numbers.
func (s *Server) openStream(sess *session) *loggedStream {
	st := &loggedStream{changed: make(chan struct{}), plain: sess == nil || s.has("http/event-id-unique")}
	if sess == nil {
		return st
	}
	l := logOf(sess)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.next++
	st.log, st.num = l, l.next
	l.streams[st.num] = st
	l.order = append(l.order, st.num)
	if len(l.order) > maxLoggedStreams {
		delete(l.streams, l.order[0])
		l.order = l.order[1:]
	}
	return st
}

// add records data as the stream's next event and returns the event id.
func (st *loggedStream) add(data []byte) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	seq := len(st.events) + 1
	if st.log != nil && len(st.events) < maxLoggedEvents {
		st.events = append(st.events, append([]byte(nil), data...))
		close(st.changed)
		st.changed = make(chan struct{})
	}
	if st.plain {
		return strconv.Itoa(seq)
	}
	return fmt.Sprintf("%d-%d", st.num, seq)
}

// finish marks the stream complete: a resumed GET ends after its last
// event.
func (st *loggedStream) finish() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.done {
		st.done = true
		close(st.changed)
	}
}

// resumeStream serves a GET carrying Last-Event-ID: the events of that id's
// stream after it, then whatever the stream still sends, until it ends or
// the client leaves. It reports false (nothing written) when the id names
// no stream of the session, so the caller opens a plain GET stream.
func (s *Server) resumeStream(w http.ResponseWriter, r *http.Request, sess *session, last string) bool {
	numStr, seqStr, ok := strings.Cut(last, "-")
	num, err1 := strconv.Atoi(numStr)
	seq, err2 := strconv.Atoi(seqStr)
	if !ok || err1 != nil || err2 != nil || seq < 0 {
		return false
	}
	l := logOf(sess)
	l.mu.Lock()
	st := l.streams[num]
	l.mu.Unlock()
	if st == nil {
		return false
	}
	st.mu.Lock()
	known := seq <= len(st.events)
	st.mu.Unlock()
	if !known {
		return false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	next := seq // index of the first event to send
	for {
		st.mu.Lock()
		pending := st.events[next:]
		done, changed := st.done, st.changed
		st.mu.Unlock()
		for _, data := range pending {
			next++
			if len(data) == 0 {
				continue // a priming event: it carries nothing to redeliver
			}
			fmt.Fprintf(w, "event: message\nid: %d-%d\ndata: %s\n\n", num, next, data)
		}
		w.(http.Flusher).Flush()
		if done {
			return true
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return true
		}
	}
}
