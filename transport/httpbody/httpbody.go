// Package httpbody reads the body of a POST for the HTTP transports
// (transport/streamable, transport/sse) and for auth.RequireBearer: within a size
// limit, each read within a deadline and the whole body within another, with the
// bytes held by bodies still arriving capped in all and per client (an address;
// for IPv6 its /64: clientaddr.Key), and with the same answers on failure. It is
// not internal/ so that auth/ can import it, and under transport/ because it
// imports the standard library only, as the transports do; programs need not
// use it.
package httpbody

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/wiremcp/wiremcp/transport/clientaddr"
)

// initialCap is the most a body's buffer holds before its bytes arrive: a larger
// body's buffer grows (doubling) as they do, so a declared Content-Length costs
// nothing until it is sent. A body of up to this size known in advance is read into
// one buffer of its exact size, without a copy.
const initialCap = 64 << 10

// unknownCap is the first buffer of a body of unknown length (chunked).
const unknownCap = 512

// retryAfter is the Retry-After (seconds) of a 503 or 429 for a full budget.
const retryAfter = "1"

// The transports' defaults for Options.ReadTimeout, Timeout, InFlight and
// PerClient (auth.RequireBearer's too).
const (
	DefaultReadTimeout = 10 * time.Second
	DefaultTimeout     = 30 * time.Second
	DefaultInFlight    = 64 << 20
	DefaultPerClient   = 16 << 20
)

// Options configures a Reader. Zero or negative durations and caps mean none; a
// positive cap is raised so that one body of Max bytes fits.
type Options struct {
	Max         int64         // the largest body (positive); a larger one gets 413
	ReadTimeout time.Duration // each read of the body
	Timeout     time.Duration // the whole body, from Read's start
	InFlight    int64         // buffer bytes of all bodies being read
	PerClient   int64         // buffer bytes of the bodies being read from one client (clientaddr.Key)
}

// TransportDefaults returns o with the transports' defaults in place of zero
// ReadTimeout (DefaultReadTimeout), Timeout (DefaultTimeout), InFlight (DefaultInFlight) and PerClient
// (DefaultPerClient), as both HTTP transports document their options; negative
// values (none) are kept.
func TransportDefaults(o Options) Options {
	if o.ReadTimeout == 0 {
		o.ReadTimeout = DefaultReadTimeout
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.InFlight == 0 {
		o.InFlight = DefaultInFlight
	}
	if o.PerClient == 0 {
		o.PerClient = DefaultPerClient
	}
	return o
}

// A Reader reads the POST bodies of one handler and accounts for the buffer bytes
// of the bodies it is reading. It is safe for concurrent use.
type Reader struct {
	o        Options
	mu       sync.Mutex
	total    int64            // bytes reserved by bodies being read
	byClient map[string]int64 // the same per client (PerClient)
}

// New returns a Reader with o's limits.
func New(o Options) *Reader {
	// A body of unknown length is read up to Max+1 bytes, to tell it is too large.
	if o.InFlight > 0 && o.InFlight <= o.Max {
		o.InFlight = o.Max + 1
	}
	if o.PerClient > 0 && o.PerClient <= o.Max {
		o.PerClient = o.Max + 1
	}
	rd := &Reader{o: o}
	if o.PerClient > 0 {
		rd.byClient = make(map[string]int64)
	}
	return rd
}

// InFlight returns the buffer bytes reserved by the bodies being read now.
func (rd *Reader) InFlight() int64 {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return rd.total
}

// take reserves n bytes for addr: 0 when granted, else the HTTP status to answer
// (503 when all bodies hold InFlight, 429 when addr's hold PerClient).
func (rd *Reader) take(addr string, n int64) int {
	if rd.o.InFlight <= 0 && rd.o.PerClient <= 0 {
		return 0
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	if rd.o.InFlight > 0 && rd.total+n > rd.o.InFlight {
		return http.StatusServiceUnavailable
	}
	if rd.o.PerClient > 0 {
		c := rd.byClient[addr]
		if c+n > rd.o.PerClient {
			return http.StatusTooManyRequests
		}
		rd.byClient[addr] = c + n
	}
	rd.total += n
	return 0
}

// give releases n bytes reserved for addr.
func (rd *Reader) give(addr string, n int64) {
	if n == 0 || (rd.o.InFlight <= 0 && rd.o.PerClient <= 0) {
		return
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	rd.total -= n
	if rd.o.PerClient > 0 {
		if c := rd.byClient[addr] - n; c > 0 {
			rd.byClient[addr] = c
		} else {
			delete(rd.byClient, addr)
		}
	}
}

// Read reads r's body. On failure it returns the HTTP status and the message to
// answer with, and closes the body (the connection is not reused); on success the
// status is 0. The statuses: 413 for a body over Max; 400 for one that cannot be
// read (shorter than its Content-Length, a read waited ReadTimeout, the connection
// failed); 408 for one not received within Timeout; 503 (all bodies being read hold
// InFlight) or 429 (those of the client's address hold PerClient), both with
// Retry-After set on w, when the body's next bytes would pass a cap.
//
// The buffer grows with the bytes received, and its bytes are reserved against
// InFlight and PerClient as it grows; they are released when Read returns: the
// caps count bodies being received, not messages being handled.
func (rd *Reader) Read(w http.ResponseWriter, r *http.Request) ([]byte, int, string) {
	o := &rd.o
	n := r.ContentLength
	if n > o.Max {
		return rd.fail(w, r, http.StatusRequestEntityTooLarge, TooLarge(o.Max))
	}
	if n == 0 {
		return []byte{}, 0, ""
	}
	limit := n // the most the buffer may hold
	c := min(n, initialCap)
	if n < 0 {
		limit, c = o.Max+1, min(o.Max+1, unknownCap)
	}
	var addr string
	if o.PerClient > 0 {
		addr = clientaddr.Key(r.RemoteAddr)
	}
	if s := rd.take(addr, c); s != 0 {
		return rd.full(w, r, s)
	}
	held := c
	defer func() { rd.give(addr, held) }()

	var rc *http.ResponseController
	var end time.Time // the whole body's deadline
	if o.ReadTimeout > 0 || o.Timeout > 0 {
		rc = http.NewResponseController(w)
		if o.Timeout > 0 {
			end = time.Now().Add(o.Timeout)
		}
	}
	buf := make([]byte, 0, c)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) == limit {
				break // a known length read in full, or one byte past Max
			}
			g := min(2*int64(cap(buf)), limit)
			if s := rd.take(addr, g-held); s != 0 {
				return rd.full(w, r, s)
			}
			held = g
			nb := make([]byte, len(buf), g)
			copy(nb, buf)
			buf = nb
		}
		if rc != nil {
			now := time.Now()
			if !end.IsZero() && !now.Before(end) {
				return rd.late(w, r)
			}
			d := end
			if o.ReadTimeout > 0 && (d.IsZero() || now.Add(o.ReadTimeout).Before(d)) {
				d = now.Add(o.ReadTimeout)
			}
			if rc.SetReadDeadline(d) != nil && end.IsZero() {
				// A ResponseWriter without deadlines: read without (with a
				// whole-body deadline, checking it between reads).
				rc = nil
			}
		}
		m, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			break
		}
		if err != nil {
			if !end.IsZero() && !time.Now().Before(end) {
				return rd.late(w, r)
			}
			return rd.fail(w, r, http.StatusBadRequest, "Cannot read the request body")
		}
	}
	if rc != nil {
		_ = rc.SetReadDeadline(time.Time{}) // the body is read: no deadline for what follows
	}
	if n >= 0 && int64(len(buf)) < n {
		return rd.fail(w, r, http.StatusBadRequest, "Cannot read the request body")
	}
	if int64(len(buf)) > o.Max {
		return rd.fail(w, r, http.StatusRequestEntityTooLarge, TooLarge(o.Max))
	}
	return buf, 0, ""
}

// fail closes r's body unread, with a read deadline of now set first: net/http's
// Close otherwise reads up to 256 KiB of what is left of a body before the answer
// can be written, and waits for a client that never sends it (a small unfinished
// body refused with 429 or 503 got no answer at all). The connection is not
// reused.
func (rd *Reader) fail(w http.ResponseWriter, r *http.Request, status int, msg string) ([]byte, int, string) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	r.Body.Close()
	return nil, status, msg
}

func (rd *Reader) late(w http.ResponseWriter, r *http.Request) ([]byte, int, string) {
	return rd.fail(w, r, http.StatusRequestTimeout,
		fmt.Sprintf("Request body not received within %v", rd.o.Timeout))
}

func (rd *Reader) full(w http.ResponseWriter, r *http.Request, status int) ([]byte, int, string) {
	w.Header().Set("Retry-After", retryAfter)
	if status == http.StatusTooManyRequests {
		return rd.fail(w, r, status, "Too Many Requests: this client's request bodies being received hold its limit of "+
			strconv.FormatInt(rd.o.PerClient, 10)+" bytes; retry after "+retryAfter+" s")
	}
	return rd.fail(w, r, status, "Service Unavailable: the request bodies being received hold the limit of "+
		strconv.FormatInt(rd.o.InFlight, 10)+" bytes; retry after "+retryAfter+" s")
}

// TooLarge is the 413 answer's text: the limit the body passed.
func TooLarge(max int64) string {
	return fmt.Sprintf("Request body too large: at most %d bytes", max)
}
