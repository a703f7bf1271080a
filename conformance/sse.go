package conformance

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
)

// SSEEvent is one dispatched Server-Sent Event.
type SSEEvent struct {
	ID    string `json:"id,omitempty"`
	HasID bool   `json:"-"`
	Event string `json:"event,omitempty"`
	Data  string `json:"data"`
	Retry string `json:"retry,omitempty"`
}

// SSEStream is an event stream being read. Events are appended as they are
// dispatched; Done is closed when the stream ends.
type SSEStream struct {
	mu     sync.Mutex
	events []SSEEvent
	// trailing is set when the stream ended with an event that was never
	// terminated by a blank line (a framing error: such an event is lost).
	trailing bool
	err      error
	done     chan struct{}
	changed  chan struct{}
}

func newSSEStream() *SSEStream {
	return &SSEStream{done: make(chan struct{}), changed: make(chan struct{})}
}

// Done is closed when the stream has ended.
func (s *SSEStream) Done() <-chan struct{} { return s.done }

// Events returns the events dispatched so far.
func (s *SSEStream) Events() []SSEEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SSEEvent(nil), s.events...)
}

// Trailing reports whether the stream ended inside an unterminated event.
func (s *SSEStream) Trailing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.trailing
}

// Err returns the read error that ended the stream, if any.
func (s *SSEStream) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *SSEStream) add(ev SSEEvent) {
	s.mu.Lock()
	s.events = append(s.events, ev)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// next returns the event at index i, waiting for it; ok is false when the
// stream ended first or stop was closed.
func (s *SSEStream) next(i int, stop <-chan struct{}) (SSEEvent, bool) {
	for {
		s.mu.Lock()
		if i < len(s.events) {
			ev := s.events[i]
			s.mu.Unlock()
			return ev, true
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-s.done:
			s.mu.Lock()
			ok := i < len(s.events)
			var ev SSEEvent
			if ok {
				ev = s.events[i]
			}
			s.mu.Unlock()
			return ev, ok
		case <-stop:
			return SSEEvent{}, false
		}
	}
}

// readSSE parses r as an event stream (WHATWG rules: lines end in CRLF, LF
// or CR; "field: value"; a leading space after the colon is dropped;
// comment lines start with a colon; a blank line dispatches the event).
// Each dispatched event goes to onEvent as well as into s. It returns when
// r ends and then closes s.done.
func readSSE(r io.Reader, s *SSEStream, onEvent func(SSEEvent)) {
	defer close(s.done)
	br := bufio.NewReaderSize(r, 64<<10)
	var (
		ev      SSEEvent
		data    []string
		pending bool
	)
	for {
		line, err := readSSELine(br)
		if err != nil {
			s.mu.Lock()
			if pending {
				s.trailing = true
			}
			if !errors.Is(err, io.EOF) {
				s.err = err
			}
			s.mu.Unlock()
			return
		}
		if line == "" {
			if pending {
				ev.Data = strings.Join(data, "\n")
				s.add(ev)
				if onEvent != nil {
					onEvent(ev)
				}
			}
			ev, data, pending = SSEEvent{}, nil, false
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		pending = true
		switch name {
		case "data":
			data = append(data, value)
		case "event":
			ev.Event = value
		case "id":
			ev.ID, ev.HasID = value, true
		case "retry":
			ev.Retry = value
		}
	}
}

// readSSELine reads one line ending in LF, CRLF or CR, bounded by maxLine.
func readSSELine(br *bufio.Reader) (string, error) {
	var buf bytes.Buffer
	for {
		b, err := br.ReadByte()
		if err != nil {
			if buf.Len() > 0 && errors.Is(err, io.EOF) {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		switch b {
		case '\n':
			return buf.String(), nil
		case '\r':
			if nb, err := br.Peek(1); err == nil && nb[0] == '\n' {
				_, _ = br.ReadByte()
			}
			return buf.String(), nil
		}
		if buf.Len() < maxLine {
			buf.WriteByte(b)
		}
	}
}
