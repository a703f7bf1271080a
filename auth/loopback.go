package auth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// AuthorizeFunc shows the user the authorization URL (opens a browser, prints it)
// and returns the redirect URL the authorization server sent the user back to,
// query included. It must return when ctx ends.
type AuthorizeFunc func(ctx context.Context, authURL string) (*url.URL, error)

// Loopback receives the authorization redirect on a loopback address, for
// command-line tools (RFC 8252 section 7.3). It serves until Close.
type Loopback struct {
	ln   net.Listener
	srv  *http.Server
	path string
	got  chan *url.URL

	mu      sync.Mutex
	waiting bool   // an Authorizer waits for a redirect
	state   string // the state parameter of its authorization URL
}

// NewLoopback listens on 127.0.0.1 at a free port and serves the redirect at path
// ("" means /callback). Only the redirect an Authorizer waits for is taken: one
// whose state parameter is that of the authorization URL. Any other request to
// path (another page of the browser, a stale or forged redirect) gets 400 and
// leaves the wait as it was.
func NewLoopback(path string) (*Loopback, error) {
	if path == "" {
		path = "/callback"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("auth: loopback: %w", err)
	}
	l := &Loopback{ln: ln, path: path, got: make(chan *url.URL, 1)}
	mux := http.NewServeMux()
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		u := *r.URL
		u.Scheme, u.Host = "http", r.Host
		l.mu.Lock()
		awaited := l.waiting && r.URL.Query().Get("state") == l.state
		if awaited {
			l.waiting = false
			l.got <- &u // room: emptied before waiting was set
		}
		l.mu.Unlock()
		if !awaited {
			http.Error(w, "Bad Request: no authorization with this state is awaited", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		msg := "Authorization received. You can close this window."
		if e := r.URL.Query().Get("error"); e != "" {
			msg = "Authorization failed: " + e
		}
		fmt.Fprintf(w, "<!doctype html><title>Authorization</title><p>%s</p>", html.EscapeString(msg))
	})
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second}
	go l.srv.Serve(ln)
	return l, nil
}

// RedirectURI is the URI to register and send as redirect_uri.
func (l *Loopback) RedirectURI() string {
	return "http://" + l.ln.Addr().String() + l.path
}

// Authorizer returns an AuthorizeFunc that calls open with the authorization URL
// (for example to start a browser or print the URL) and waits for the redirect.
func (l *Loopback) Authorizer(open func(authURL string) error) AuthorizeFunc {
	return func(ctx context.Context, authURL string) (*url.URL, error) {
		au, err := url.Parse(authURL)
		if err != nil {
			return nil, fmt.Errorf("auth: authorization URL: %w", err)
		}
		l.mu.Lock()
		// Drop a redirect left from an earlier attempt.
		select {
		case <-l.got:
		default:
		}
		l.waiting, l.state = true, au.Query().Get("state")
		l.mu.Unlock()
		defer func() {
			l.mu.Lock()
			l.waiting = false
			l.mu.Unlock()
		}()
		if err := open(authURL); err != nil {
			return nil, err
		}
		select {
		case u := <-l.got:
			return u, nil
		case <-ctx.Done():
			return nil, errors.Join(errors.New("auth: no authorization redirect arrived"), ctx.Err())
		}
	}
}

// Close stops the listener and closes its connections.
func (l *Loopback) Close() error {
	return l.srv.Close()
}
