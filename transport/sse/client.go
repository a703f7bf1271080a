package sse

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/transport/internal/sse"
)

// ClientOptions configures a ClientTransport. The zero value (or nil) gives the
// defaults documented on each field.
type ClientOptions struct {
	// HTTPClient sends the requests. Nil means http.DefaultClient.
	HTTPClient *http.Client
	// Header is added to every HTTP request (for example Authorization).
	Header http.Header
	// MaxMessageBytes bounds one incoming message. Zero means 16 MiB.
	MaxMessageBytes int
	// Logger receives diagnostics. Nil discards.
	Logger *slog.Logger
}

// ClientTransport is the client side of the 2024-11-05 HTTP+SSE transport. Read,
// Write and Close may be called concurrently (Read from one goroutine at a time). It
// owns one goroutine, the reader of the event stream, which ends with the stream or
// Close.
type ClientTransport struct {
	client   *http.Client
	header   http.Header
	endpoint string
	log      *slog.Logger

	in     chan jsonrpc.Message
	done   chan struct{} // closed when the stream ended
	err    error         // why it ended; set before done is closed
	cancel context.CancelFunc
	once   sync.Once
	wg     sync.WaitGroup
}

// NewClient opens the event stream at url and waits, within ctx, for the endpoint
// event that names where to POST. The endpoint must have the same origin as url.
func NewClient(ctx context.Context, rawURL string, opts *ClientOptions) (*ClientTransport, error) {
	var o ClientOptions
	if opts != nil {
		o = *opts
	}
	base, err := url.Parse(rawURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") {
		return nil, fmt.Errorf("sse: %q is not an http(s) URL", rawURL)
	}
	t := &ClientTransport{client: o.HTTPClient, header: o.Header, log: o.Logger,
		in: make(chan jsonrpc.Message, 64), done: make(chan struct{})}
	if t.client == nil {
		t.client = http.DefaultClient
	}
	if t.log == nil {
		t.log = slog.New(slog.DiscardHandler)
	}
	max := o.MaxMessageBytes
	if max <= 0 {
		max = 16 << 20
	}
	// The stream lives until Close, not until ctx ends: ctx only bounds the connect.
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	t.cancel = cancel
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, rawURL, nil)
	if err != nil {
		cancel()
		return nil, err
	}
	t.addHeaders(req.Header)
	req.Header.Set("Accept", "text/event-stream")
	stop := context.AfterFunc(ctx, cancel)
	resp, err := t.client.Do(req)
	if err != nil {
		cancel()
		return nil, err
	}
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("sse: GET %s: HTTP %d (%s)", rawURL, resp.StatusCode, ct)
	}
	r := sse.NewReader(resp.Body, max)
	ev, err := r.Next()
	if err == nil && ev.Name != "endpoint" {
		err = fmt.Errorf("sse: first event is %q, want endpoint", ev.Name)
	}
	var ep *url.URL
	if err == nil {
		ep, err = base.Parse(strings.TrimSpace(string(ev.Data)))
	}
	if err == nil && (ep.Scheme != base.Scheme || ep.Host != base.Host) {
		err = fmt.Errorf("sse: endpoint %q is not on the origin of %q", ep, rawURL)
	}
	if !stop() || err != nil {
		resp.Body.Close()
		cancel()
		if err == nil {
			err = ctx.Err()
		}
		return nil, err
	}
	t.endpoint = ep.String()
	t.wg.Add(1)
	go t.readLoop(resp.Body, r)
	return t, nil
}

func (t *ClientTransport) addHeaders(h http.Header) {
	for k, v := range t.header {
		h[k] = v
	}
}

// Endpoint returns the URL messages are POSTed to.
func (t *ClientTransport) Endpoint() string { return t.endpoint }

func (t *ClientTransport) readLoop(body io.ReadCloser, r *sse.Reader) {
	defer t.wg.Done()
	defer body.Close()
	var end error
	for {
		ev, err := r.Next()
		if err != nil {
			end = err
			break
		}
		if ev.Name != "message" || len(ev.Data) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(append([]byte(nil), ev.Data...), nil)
		if err != nil {
			t.log.Warn("sse: dropped a malformed event", "err", err)
			continue
		}
		select {
		case t.in <- m:
		case <-t.done:
			return
		}
	}
	t.finish(end)
}

func (t *ClientTransport) finish(err error) {
	t.once.Do(func() {
		if err == nil {
			err = io.EOF
		}
		t.err = err
		close(t.done)
		t.cancel()
	})
}

// Read returns the next message from the stream; io.EOF once it ended cleanly or
// was closed.
func (t *ClientTransport) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-t.in:
		return m, nil
	default:
	}
	select {
	case m := <-t.in:
		return m, nil
	case <-t.done:
		select {
		case m := <-t.in:
			return m, nil
		default:
		}
		if errors.Is(t.err, ErrClosed) {
			return nil, io.EOF
		}
		return nil, t.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write POSTs msg to the endpoint; the reply, if any, arrives on the stream.
func (t *ClientTransport) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-t.done:
		return ErrClosed
	default:
	}
	body, err := jsonrpc.Encode(nil, msg)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.endpoint, bytes.NewReader(body))
	if err != nil {
		return err
	}
	t.addHeaders(req.Header)
	req.Header.Set("Content-Type", "application/json")
	resp, err := t.client.Do(req)
	if err != nil {
		return err
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("sse: POST: HTTP %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return nil
}

// Close ends the stream and makes Read return io.EOF. It is safe to call more than
// once.
func (t *ClientTransport) Close() error {
	t.finish(ErrClosed)
	t.wg.Wait()
	return nil
}
