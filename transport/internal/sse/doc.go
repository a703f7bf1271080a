// Package sse writes and reads Server-Sent Events (the text/event-stream format of the
// HTML Living Standard, section 9.2) for the HTTP transports.
//
// The writer side appends events to a byte slice so callers control buffering and
// flushing:
//
//	b = sse.AppendEvent(b[:0], "message", "3-1", 0, payload)
//	w.Write(b)
//
// The reader side parses a stream into events, tracking the last event id and the
// reconnection time exactly as a browser's EventSource does: an event without data is
// not dispatched, but its id still becomes the last event id.
//
//	r := sse.NewReader(resp.Body, 0)
//	for {
//		ev, err := r.Next()
//		...
//	}
package sse
