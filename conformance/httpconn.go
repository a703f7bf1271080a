package conformance

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"
)

// maxBody bounds a non-streaming HTTP response body the suite reads.
const maxBody = 64 << 20

// HTTPReply is what the server answered to one HTTP request.
type HTTPReply struct {
	Status int
	Header http.Header
	// Body is the response body unless it is an event stream.
	Body []byte
	// Stream is set when the response is text/event-stream; it is read in
	// the background and its messages go to the connection's inbox.
	Stream *SSEStream
}

// MediaType returns the response's media type without parameters.
func (r *HTTPReply) MediaType() string {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt
}

// httpConn is a Streamable HTTP client with full control over requests. It
// owns the goroutines that read event streams; close cancels them and
// waits.
type httpConn struct {
	url     string
	client  *http.Client
	headers http.Header // user headers (authorization)
	in      *inbox
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

func newHTTPConn(url string, headers http.Header) *httpConn {
	ctx, cancel := context.WithCancel(context.Background())
	return &httpConn{
		url:     url,
		client:  &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}, CheckRedirect: noRedirect},
		headers: headers,
		in:      newInbox(),
		ctx:     ctx,
		cancel:  cancel,
	}
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func (c *httpConn) box() *inbox { return c.in }

// send POSTs body with the default MCP headers plus hdr (hdr wins; a header
// set to an empty slice in hdr is removed).
func (c *httpConn) send(ctx context.Context, body []byte, hdr http.Header) (*HTTPReply, error) {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	return c.do(ctx, http.MethodPost, c.url, body, mergeHeaders(h, hdr), "POST")
}

// mergeHeaders applies over on top of base.
func mergeHeaders(base, over http.Header) http.Header {
	for k, v := range over {
		if len(v) == 0 {
			base.Del(k)
			continue
		}
		base[http.CanonicalHeaderKey(k)] = v
	}
	return base
}

// do performs one HTTP request. JSON bodies are parsed into the inbox; an
// event stream is read in the background (its messages go to the inbox) and
// lives until it ends or the connection closes. ctx bounds only the wait for
// the response headers and a non-streaming body.
func (c *httpConn) do(ctx context.Context, method, url string, body []byte, hdr http.Header, source string) (*HTTPReply, error) {
	return c.doOn(c.ctx, ctx, method, url, body, hdr, source)
}

// postAbortable POSTs body like send and also returns a function that
// aborts the exchange: the connection is dropped as a client that goes
// away would, ending the reply's stream (if any). send is safe to call
// concurrently with postAbortable and with itself on an httpConn.
func (c *httpConn) postAbortable(ctx context.Context, body []byte, hdr http.Header) (*HTTPReply, context.CancelFunc, error) {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	life, abort := context.WithCancel(c.ctx)
	r, err := c.doOn(life, ctx, http.MethodPost, c.url, body, mergeHeaders(h, hdr), "POST")
	if err != nil {
		abort()
		return nil, nil, err
	}
	return r, abort, nil
}

// doOn is do with the request living on life (the connection's context or
// one derived from it).
func (c *httpConn) doOn(life, ctx context.Context, method, url string, body []byte, hdr http.Header, source string) (*HTTPReply, error) {
	// The request lives on life so that a stream may outlive ctx; ctx is
	// honoured through the timer below.
	req, err := http.NewRequestWithContext(life, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range c.headers {
		req.Header[k] = append([]string(nil), v...)
	}
	for k, v := range hdr {
		if http.CanonicalHeaderKey(k) == "Host" {
			req.Host = v[0]
			continue
		}
		req.Header[http.CanonicalHeaderKey(k)] = v
	}
	if body == nil {
		req.Body = nil
	}
	type res struct {
		r   *http.Response
		err error
	}
	ch := make(chan res, 1)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		r, err := c.client.Do(req)
		ch <- res{r, err}
	}()
	var resp *http.Response
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		resp = r.r
	case <-ctx.Done():
		// The goroutine's response is discarded when it arrives.
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			if r := <-ch; r.r != nil {
				r.r.Body.Close()
			}
		}()
		return nil, ctx.Err()
	}
	reply := &HTTPReply{Status: resp.StatusCode, Header: resp.Header}
	if reply.MediaType() == "text/event-stream" {
		reply.Stream = newSSEStream()
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			defer resp.Body.Close()
			readSSE(resp.Body, reply.Stream, func(ev SSEEvent) {
				if ev.Data != "" && (ev.Event == "" || ev.Event == "message") {
					c.in.push(parseMsg([]byte(ev.Data), source+"-sse"))
				}
			})
		}()
		return reply, nil
	}
	defer resp.Body.Close()
	done := make(chan struct{})
	var readErr error
	go func() {
		reply.Body, readErr = io.ReadAll(io.LimitReader(resp.Body, maxBody))
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		resp.Body.Close()
		<-done
		return nil, ctx.Err()
	}
	if readErr != nil {
		return reply, readErr
	}
	if reply.MediaType() == "application/json" && len(bytes.TrimSpace(reply.Body)) > 0 {
		c.in.push(parseMsg(reply.Body, source))
	}
	return reply, nil
}

// close cancels every open request and waits for the stream readers.
func (c *httpConn) close() error {
	c.cancel()
	c.wg.Wait()
	c.client.CloseIdleConnections()
	return nil
}

// waitStream waits until s ends or d passes; it reports whether it ended.
func waitStream(s *SSEStream, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.Done():
		return true
	case <-t.C:
		return false
	}
}
