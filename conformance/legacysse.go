package conformance

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// sseConn is a legacy HTTP+SSE (2024-11-05) client: a GET event stream whose
// first event names the POST endpoint; replies arrive as message events.
type sseConn struct {
	h        *httpConn
	endpoint string
	stream   *SSEStream
	first    SSEEvent
}

// dialSSE opens the event stream and waits for the endpoint event.
func dialSSE(ctx context.Context, sseURL string, headers http.Header) (*sseConn, error) {
	h := newHTTPConn(sseURL, headers)
	hdr := http.Header{"Accept": {"text/event-stream"}}
	reply, err := h.do(ctx, http.MethodGet, sseURL, nil, hdr, "SSE")
	if err != nil {
		h.close()
		return nil, err
	}
	if reply.Stream == nil {
		h.close()
		return nil, fmt.Errorf("GET %s: status %d, Content-Type %q, not an event stream", sseURL, reply.Status, reply.Header.Get("Content-Type"))
	}
	ev, ok := reply.Stream.next(0, ctx.Done())
	if !ok {
		h.close()
		return nil, fmt.Errorf("GET %s: no event arrived", sseURL)
	}
	c := &sseConn{h: h, stream: reply.Stream, first: ev}
	if ev.Event != "endpoint" {
		h.close()
		return nil, fmt.Errorf("first event is %q, want \"endpoint\"", ev.Event)
	}
	base, err := url.Parse(sseURL)
	if err != nil {
		h.close()
		return nil, err
	}
	ref, err := url.Parse(ev.Data)
	if err != nil {
		h.close()
		return nil, fmt.Errorf("endpoint event data %q is not a URI reference: %v", ev.Data, err)
	}
	c.endpoint = base.ResolveReference(ref).String()
	return c, nil
}

func (c *sseConn) box() *inbox { return c.h.in }

func (c *sseConn) send(ctx context.Context, body []byte, hdr http.Header) (*HTTPReply, error) {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	return c.h.do(ctx, http.MethodPost, c.endpoint, body, mergeHeaders(h, hdr), "POST")
}

func (c *sseConn) close() error { return c.h.close() }
