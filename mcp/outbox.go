package mcp

import (
	"context"
)

// The outbox. Notifications that belong to no request of a session — list changes,
// resource updates, subscriptions/listen deliveries — are fanned out by one caller
// (a registration, Server.ResourceUpdated) to every session. Writing them on the
// caller's goroutine, one session after another, let one client that stopped reading
// stall the caller and every session after it. Instead each session queues them and
// one goroutine of the session, started when something is queued and none runs and
// ended when the queue is empty (like jsonrpc's notification worker), writes them in
// order. The queue is bounded (ServerOptions.MaxQueuedNotifications): when a slow
// session's queue is full, further notifications for it are dropped, counted and
// logged — that session only; the others, and the caller, never wait for it — and
// the session's standalone stream, where its transport has one, is ended so that
// the client learns it missed some.

// standaloneCloser is implemented by transports that carry notifications related to
// no request on a stream (streamable.ServerTransport: the GET stream;
// sse.ServerTransport: its one stream, whose end ends the connection).
// When a session's queue overflows, that stream is ended, so that the client learns
// it missed notifications (it may open the stream again, and list again what it
// follows).
type standaloneCloser interface{ CloseStandaloneStream() bool }

// defaultMaxQueued is the default of ServerOptions.MaxQueuedNotifications.
const defaultMaxQueued = 1024

// outNote is one queued notification. A listener's goes through listener.send (its
// subscription id and its order with the acknowledgement).
type outNote struct {
	ctx    context.Context
	method string
	params any
	l      *listener
}

// enqueue queues a notification for the session's outbox worker, starting one if
// none runs. It never blocks; it reports false when the queue was full and the
// notification was dropped.
func (ss *ServerSession) enqueue(n outNote) bool {
	ss.outMu.Lock()
	if len(ss.out) >= ss.server.maxQueued {
		ss.dropped++
		dropped := ss.dropped
		tell := !ss.toldDrop
		ss.toldDrop = true
		ss.outMu.Unlock()
		ss.server.log.Warn("mcp: session too slow, notification dropped",
			"session", ss.id, "method", n.method, "dropped", dropped)
		if tell && ss.closer != nil {
			// The client is told by its stream's end (once per overflow). Off the
			// caller's goroutine: the close waits for a write in progress.
			go ss.closer.CloseStandaloneStream()
		}
		return false
	}
	ss.out = append(ss.out, n)
	start := !ss.outWorker
	ss.outWorker = true
	ss.outMu.Unlock()
	if start {
		go ss.drainOutbox()
	}
	return true
}

// drainOutbox is the outbox worker: it writes the queued notifications in order and
// ends when none is left. On an ended session each write fails at once, so it
// never outlives the session by more than one write.
func (ss *ServerSession) drainOutbox() {
	for {
		ss.outMu.Lock()
		if len(ss.out) == 0 {
			ss.outWorker = false
			ss.toldDrop = false   // caught up: a later overflow is told again
			ss.out = ss.out[:0:0] // let a burst's backing array go
			ss.outMu.Unlock()
			return
		}
		n := ss.out[0]
		ss.out[0] = outNote{}
		ss.out = ss.out[1:]
		ss.outMu.Unlock()
		if n.l != nil {
			n.l.deliver(n.method, n.params.(map[string]any))
			continue
		}
		if err := ss.conn.Notify(n.ctx, n.method, n.params); err != nil {
			ss.server.log.Debug("mcp: notification failed", "session", ss.id, "method", n.method, "err", err)
		}
	}
}

// DroppedNotifications returns how many notifications related to no request (list
// changes, resource updates, subscriptions/listen deliveries) were dropped for this
// session because its queue was full: the client was not reading them in time.
func (ss *ServerSession) DroppedNotifications() int64 {
	ss.outMu.Lock()
	defer ss.outMu.Unlock()
	return ss.dropped
}
