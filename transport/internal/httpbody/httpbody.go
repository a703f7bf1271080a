// Package httpbody reads the body of a POST for the HTTP transports: within a size
// limit, each read within a deadline, and with the same answers on failure.
package httpbody

import (
	"fmt"
	"io"
	"net/http"
	"time"
)

// Read reads r's body: at most max bytes, each read within timeout (0: no deadline).
// On failure it returns the HTTP status (413 for a body over max, 400 for one that
// cannot be read) and the message to answer with; on success the status is 0.
func Read(w http.ResponseWriter, r *http.Request, max int64, timeout time.Duration) ([]byte, int, string) {
	if r.ContentLength > max {
		return nil, http.StatusRequestEntityTooLarge, TooLarge(max)
	}
	var body io.Reader = r.Body
	var rc *http.ResponseController
	if timeout > 0 && r.ContentLength != 0 {
		rc = http.NewResponseController(w)
		body = &deadlineReader{r: r.Body, rc: rc, d: timeout}
	}
	var buf []byte
	var err error
	if r.ContentLength >= 0 {
		buf = make([]byte, r.ContentLength)
		_, err = io.ReadFull(body, buf)
	} else {
		buf, err = io.ReadAll(io.LimitReader(body, max+1))
	}
	if err != nil {
		// Closing the body unread tells net/http not to read the rest before
		// answering (the client may never send it); the connection is not reused.
		r.Body.Close()
		return nil, http.StatusBadRequest, "Cannot read the request body"
	}
	if rc != nil {
		_ = rc.SetReadDeadline(time.Time{}) // the body is read: no deadline for what follows
	}
	if int64(len(buf)) > max {
		return nil, http.StatusRequestEntityTooLarge, TooLarge(max)
	}
	return buf, 0, ""
}

// TooLarge is the 413 answer's text: the limit the body passed.
func TooLarge(max int64) string {
	return fmt.Sprintf("Request body too large: at most %d bytes", max)
}

// deadlineReader reads a request body with a deadline set before each read: the
// client must keep sending, however long the whole body takes.
type deadlineReader struct {
	r  io.Reader
	rc *http.ResponseController
	d  time.Duration
}

func (x *deadlineReader) Read(p []byte) (int, error) {
	// ErrNotSupported (a ResponseWriter without deadlines): read without.
	_ = x.rc.SetReadDeadline(time.Now().Add(x.d))
	return x.r.Read(p)
}
