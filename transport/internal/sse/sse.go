package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
)

// AppendEvent appends one event to dst and returns the extended slice. name and id are
// written only when non-empty; retryMS only when positive. data is split on line breaks
// (LF, CR or CRLF) into several "data:" lines, so any payload round-trips; an empty data
// still produces one "data:" line, which makes the event dispatchable with empty data
// (a "priming" event). name and id must not contain line breaks or NUL; callers pass
// constants or ids they generated.
func AppendEvent(dst []byte, name, id string, retryMS int, data []byte) []byte {
	if name != "" {
		dst = append(dst, "event: "...)
		dst = append(dst, name...)
		dst = append(dst, '\n')
	}
	if id != "" {
		dst = append(dst, "id: "...)
		dst = append(dst, id...)
		dst = append(dst, '\n')
	}
	if retryMS > 0 {
		dst = AppendRetryField(dst, retryMS)
	}
	dst = appendData(dst, data)
	return append(dst, '\n')
}

// AppendRetryField appends a lone "retry:" field line (no terminating blank line).
func AppendRetryField(dst []byte, retryMS int) []byte {
	dst = append(dst, "retry: "...)
	dst = strconv.AppendInt(dst, int64(retryMS), 10)
	return append(dst, '\n')
}

// AppendRetry appends a block that only sets the reconnection time. It is not
// dispatched as an event by readers.
func AppendRetry(dst []byte, retryMS int) []byte {
	dst = AppendRetryField(dst, retryMS)
	return append(dst, '\n')
}

// AppendComment appends a comment line (readers ignore it); used as a keep-alive.
func AppendComment(dst []byte, text string) []byte {
	dst = append(dst, ':')
	if text != "" {
		dst = append(dst, ' ')
		dst = append(dst, text...)
	}
	return append(dst, '\n', '\n')
}

func appendData(dst, data []byte) []byte {
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			dst = append(dst, "data: "...)
			dst = append(dst, data...)
			return append(dst, '\n')
		}
		dst = append(dst, "data: "...)
		dst = append(dst, data[:i]...)
		dst = append(dst, '\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
		if len(data) == 0 {
			// A trailing line break: nothing more to carry.
			return dst
		}
	}
}

// ErrTooLarge is returned by Reader.Next when an event exceeds the reader's size limit.
var ErrTooLarge = errors.New("sse: event too large")

// Event is one dispatched event. Data is only valid until the next call to Next.
type Event struct {
	Name string // "message" when the stream named none
	ID   string // the last event id in effect when the event was dispatched
	Data []byte
}

// Reader parses an event stream. It is not safe for concurrent use.
type Reader struct {
	br      *bufio.Reader
	max     int
	data    []byte
	name    []byte
	hasData bool
	lastID  string
	retry   int
	started bool
	skipLF  bool
	acc     []byte
}

// NewReader returns a Reader over r that rejects events whose data exceeds max bytes
// (max <= 0 means 16 MiB).
func NewReader(r io.Reader, max int) *Reader {
	if max <= 0 {
		max = 16 << 20
	}
	return &Reader{br: bufio.NewReaderSize(r, 4<<10), max: max, retry: -1}
}

// Reset makes r read from src with the state of a new Reader, keeping its buffers
// (so Readers can be pooled).
func (r *Reader) Reset(src io.Reader) {
	r.br.Reset(src)
	if cap(r.data) > 64<<10 || cap(r.acc) > 64<<10 {
		r.data, r.acc = nil, nil // do not keep a huge message's buffers around
	}
	r.data, r.name, r.acc = r.data[:0], r.name[:0], r.acc[:0]
	r.hasData, r.started, r.skipLF = false, false, false
	r.lastID, r.retry = "", -1
}

// SetMax changes the largest event the reader accepts (max <= 0 means 16 MiB).
func (r *Reader) SetMax(max int) {
	if max <= 0 {
		max = 16 << 20
	}
	r.max = max
}

// LastEventID returns the last event id seen, even on events that were not dispatched.
func (r *Reader) LastEventID() string { return r.lastID }

// Retry returns the last reconnection time sent by the server in milliseconds, or -1.
func (r *Reader) Retry() int { return r.retry }

// Next returns the next dispatched event. Events that carry no data line are not
// dispatched (they may still update LastEventID and Retry). At the end of the stream
// it returns io.EOF; an event cut short by the end of the stream is discarded, as the
// standard requires.
func (r *Reader) Next() (Event, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
				return Event{}, io.EOF
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if !r.hasData {
				r.name = r.name[:0]
				continue
			}
			ev := Event{Name: "message", ID: r.lastID}
			if len(r.name) > 0 && string(r.name) != "message" {
				ev.Name = string(r.name)
			}
			d := r.data
			if len(d) > 0 && d[len(d)-1] == '\n' {
				d = d[:len(d)-1]
			}
			ev.Data = d
			r.data = r.data[:0]
			r.name = r.name[:0]
			r.hasData = false
			return ev, nil
		}
		if err := r.field(line); err != nil {
			return Event{}, err
		}
	}
}

func (r *Reader) field(line []byte) error {
	if line[0] == ':' {
		return nil // comment
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) {
	case "data":
		if len(r.data)+len(value)+1 > r.max {
			return ErrTooLarge
		}
		r.data = append(r.data, value...)
		r.data = append(r.data, '\n')
		r.hasData = true
	case "event":
		r.name = append(r.name[:0], value...)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			r.lastID = string(value)
		}
	case "retry":
		if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 && isDigits(value) {
			r.retry = n
		}
	}
	return nil
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// readLine returns one line without its terminator (LF, CRLF or a lone CR). The
// result is valid until the next call.
func (r *Reader) readLine() ([]byte, error) {
	r.acc = r.acc[:0]
	for {
		if _, err := r.br.Peek(1); err != nil {
			if len(r.acc) > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		buf, _ := r.br.Peek(r.br.Buffered())
		if r.skipLF {
			r.skipLF = false
			if buf[0] == '\n' {
				r.br.Discard(1)
				continue
			}
		}
		i := bytes.IndexAny(buf, "\r\n")
		if i < 0 {
			if len(r.acc)+len(buf) > r.max+64 {
				return nil, ErrTooLarge
			}
			r.acc = append(r.acc, buf...)
			r.br.Discard(len(buf))
			continue
		}
		if len(r.acc)+i > r.max+64 {
			// Checked here too, not only while accumulating: a line is refused
			// whether it arrived in one read or in pieces.
			return nil, ErrTooLarge
		}
		line := buf[:i]
		if buf[i] == '\r' {
			if i+1 < len(buf) {
				if buf[i+1] == '\n' {
					i++
				}
			} else {
				r.skipLF = true
			}
		}
		if len(r.acc) > 0 {
			r.acc = append(r.acc, line...)
			line = r.acc
		}
		r.br.Discard(i + 1)
		if !r.started {
			r.started = true
			line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF"))
		}
		return line, nil
	}
}
