package streamable

import (
	"context"
	"errors"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// startGET starts the GET stream reader once per session, if enabled. It returns a
// channel closed once the first GET has been answered (or failed), or nil when no
// reader was started.
func (t *ClientTransport) startGET() <-chan struct{} {
	if t.opts.DisableGETStream {
		return nil
	}
	t.mu.Lock()
	if t.getRunning || t.sessionID == "" || t.closed {
		t.mu.Unlock()
		return nil
	}
	t.getRunning = true
	sid := t.sessionID
	t.wg.Add(1)
	t.mu.Unlock()
	ready := make(chan struct{})
	go t.getLoop(sid, ready)
	return ready
}

// getReadyWait bounds how long Write(notifications/initialized) waits for the server
// to answer the standalone GET.
const getReadyWait = 3 * time.Second

// awaitGET waits until ready is closed, for at most getReadyWait and never past ctx
// or Close. A server that sends its first requests on the GET stream right after
// notifications/initialized finds the stream open. A slow answer is no error: the
// stream keeps opening in the background.
func (t *ClientTransport) awaitGET(ctx context.Context, ready <-chan struct{}) {
	if ready == nil {
		return
	}
	tm := time.NewTimer(getReadyWait)
	defer tm.Stop()
	select {
	case <-ready:
	case <-tm.C:
		t.log.Debug("streamable: the GET stream is slow to open")
	case <-ctx.Done():
	case <-t.done:
	}
}

// getLoop reads the standalone GET stream of session sid, reconnecting with
// Last-Event-ID, until the transport closes, the server refuses the stream (405 or
// another 4xx) or reconnection attempts are exhausted.
func (t *ClientTransport) getLoop(sid string, ready chan struct{}) {
	defer t.wg.Done()
	answered := func() {
		if ready != nil {
			close(ready)
			ready = nil
		}
	}
	defer answered()
	defer func() {
		t.mu.Lock()
		if t.sessionID == sid {
			t.getRunning = false
		}
		t.mu.Unlock()
	}()
	last, retry := "", -1
	for attempt := 0; attempt <= t.opts.MaxReconnects; {
		if t.SessionID() != sid {
			return // a new session has its own stream
		}
		resp, err := t.get(t.ctx, last)
		answered()
		if err != nil {
			var se *StatusError
			if t.isClosed() || (errors.As(err, &se) && se.StatusCode/100 == 4) {
				return
			}
		} else {
			n := 0
			var l string
			l, retry, _ = t.readEvents(resp, func(m jsonrpc.Message) bool {
				n++
				t.deliverUnrelated(m)
				return false
			}, nil, false)
			if l != "" {
				last = l
			}
			if n > 0 {
				attempt = 0
			}
		}
		if t.isClosed() || t.opts.MaxReconnects < 0 {
			return
		}
		if t.wait(t.ctx, retry, attempt) != nil {
			return
		}
		attempt++
	}
}
