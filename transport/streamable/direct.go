package streamable

import (
	"github.com/wiremcp/wiremcp/jsonrpc"
)

// Direct calls. A POST carrying one call was always queued for the connection's
// reader, which ran the handler on a goroutine of the jsonrpc.Conn and wrote the
// response to the POST's ResponseWriter while the POST's goroutine waited: two
// goroutine hand-offs per call. When the connection offers a jsonrpc.DirectFunc
// (jsonrpc.Direct), the POST's own goroutine runs the call instead, as a plain
// net/http handler would; a notification or a response is handed to the Conn the
// same way (queued for its notification worker, or given to its Call) without
// waking its reader.
//
// Order. A message passed directly may overtake nothing the client was told had
// arrived: every notification, response or batch the transport accepted earlier (the
// client got its 202) must have been read and queued by the Conn first, as it would
// have been had the new message been queued behind it. ordered counts those messages
// from the moment they are accepted until the reader has passed them on, which is
// when it comes back to Read; calls themselves are not counted, since calls run
// concurrently anyway. (As before, a call may start while an earlier notification's
// handler is still running: the Conn runs notifications on their own worker.)
//
// Ending a stream early. CloseSSEStream ends the HTTP response of a pending SSE
// stream, but net/http ends a response only when ServeHTTP returns, and a POST
// running its own call cannot return before the call does. So the call of a stream
// that CloseSSEStream may end (a resumable stream of a 2025-11-25 or later client,
// which starts with a priming event) runs on a goroutine of its own, started by the
// POST's, which only carries the stream and can end it at any time. It still skips
// the connection's reader. Older revisions have no early end (their clients are
// owed the response on the stream), so their calls run on the POST's goroutine.

// SetDirect implements jsonrpc.Direct. It is called by jsonrpc.NewConn.
func (t *ServerTransport) SetDirect(serve jsonrpc.DirectFunc) {
	if serve != nil && !t.h.opts.DisableDirectCalls {
		t.direct.Store(&serve)
	}
}

// countsForOrder reports whether msg must be read by the connection before a later
// call may run directly: everything but a call.
func countsForOrder(msg jsonrpc.Message) bool {
	r, ok := msg.(*jsonrpc.Request)
	return !ok || r.IsNotification()
}

// passDirect hands a notification or a response to the connection on this
// goroutine (queued for its notification worker, or given to its Call). It
// reports false, having done nothing, when msg has to be queued for the reader.
func (t *ServerTransport) passDirect(msg jsonrpc.Message) bool {
	if _, batch := msg.(jsonrpc.Batch); batch {
		return false
	}
	serve := t.directNow()
	return serve != nil && serve(msg)
}

// directNow returns the connection's DirectFunc when a message may be passed to it
// now (nothing accepted earlier is still waiting for the reader), nil otherwise.
func (t *ServerTransport) directNow() jsonrpc.DirectFunc {
	if t.ordered.Load() != 0 {
		return nil
	}
	if serve := t.direct.Load(); serve != nil {
		return *serve
	}
	return nil
}

// runDirect runs the single call of st on this goroutine through the connection's
// DirectFunc. It reports false, having done nothing, when the call has to be queued
// for the reader instead.
func (t *ServerTransport) runDirect(st *stream) bool {
	if st.batch || len(st.reqs) != 1 {
		return false
	}
	serve := t.directNow()
	if serve == nil {
		return false
	}
	if st.priming {
		// The DirectFunc registers the call with the connection before it runs it, so
		// the connection's Close waits for this goroutine; if the connection no
		// longer takes work the stream ends with the transport.
		go serve(st.reqs[0])
		return true
	}
	return serve(st.reqs[0])
}
