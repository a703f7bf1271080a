package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/wiremcp/wiremcp/transport/httpbody"
)

// ResourceServerOptions configures RequireBearer. Verifier is required; the other
// fields document their zero values. The struct is copied by RequireBearer.
//
// The body caps (MaxBodyBytesInFlight, MaxBodyBytesInFlightPerClient) count the
// bodies read by one handler that RequireBearer returns: build it once and serve
// every request with it. A handler built per request counts only that request's
// body, so nothing would be capped. Tool scopes that differ per request (per
// route, per server) go in the one handler through ToolScopesFor.
type ResourceServerOptions struct {
	// Verifier checks the bearer tokens.
	Verifier Verifier
	// ResourceMetadataURL is the URL of this server's protected resource metadata,
	// named in every challenge (resource_metadata). Empty leaves it out, and clients
	// must find the metadata at the well-known URLs.
	ResourceMetadataURL string
	// Scopes are required of every request, and named in the 401 challenge so that
	// clients ask for them.
	Scopes []string
	// MethodScopes maps a JSON-RPC method ("resources/read") to the scopes a request
	// for it needs on top of Scopes.
	MethodScopes map[string][]string
	// ToolScopes maps a tool name to the scopes a tools/call of it needs on top of
	// Scopes and MethodScopes["tools/call"]. This is how tools declare their scopes:
	// the table sits next to the tool registrations, and package mcp never sees it.
	ToolScopes map[string][]string
	// ToolScopesFor, when set, is used in place of ToolScopes: it returns the tool
	// scopes for this request, such as those of the server its path names, or nil
	// for none. It is called once per POST request (only a POST's body names
	// tools), after the token is verified and before the body is read; it must
	// not read r.Body. A request it returns tools
	// for has its POST body read (and counted) as with ToolScopes. This keeps one
	// handler, and so one set of body caps, for routes whose tools differ.
	ToolScopesFor func(r *http.Request) map[string][]string
	// MaxBodyBytes caps a POST body read to find the method and tool when
	// MethodScopes or ToolScopes is set (or ToolScopesFor returns tools); a
	// larger body gets 413. Zero means 4 MiB.
	//
	// That body is read once the token is verified, as the transports
	// (transport/streamable, transport/sse) read theirs: with the four bounds
	// below, the same defaults and the same answers; its buffer grows with the
	// bytes received, not with the declared length.
	MaxBodyBytes int64
	// BodyReadTimeout bounds each read of that body: a client that stops sending it
	// for this long gets 400 and its connection is dropped. Zero means 10 seconds
	// (the transports' default BodyReadTimeout); negative disables.
	BodyReadTimeout time.Duration
	// BodyTimeout bounds reading that body, all of it: a client (holding a valid
	// token) that sends it slower gets 408 and its connection is dropped, instead
	// of holding a goroutine and up to MaxBodyBytes for as long as it trickles.
	// Zero means 30 seconds (the transports' default BodyTimeout); negative means
	// no bound.
	BodyTimeout time.Duration
	// MaxBodyBytesInFlight caps the memory held by the bodies this handler is still
	// receiving, all clients together. A body's buffer grows with the bytes
	// received (up to 64 KiB is set aside when its headers arrive, then it doubles
	// as it fills), and each growth is counted against the cap until the body has
	// arrived. A POST whose next bytes would pass the cap gets 503 with
	// Retry-After: 1 at once (nothing waits in a queue), and its connection is
	// dropped. Zero means 64 MiB (the transports' default MaxBodyBytesInFlight);
	// negative means no cap; a smaller value than one body of MaxBodyBytes needs is
	// raised to it.
	//
	// These caps are RequireBearer's own, apart from the transport's: a body read
	// here is counted here until it has arrived, then handed to next in memory. The
	// transport behind reads it again against its own caps, but from memory, so at
	// once: it counts there only for that moment, never against one cap twice.
	// Bodies RequireBearer does not read (no MethodScopes or tool scopes, not a
	// POST) are counted by the transport alone.
	MaxBodyBytesInFlight int64
	// MaxBodyBytesInFlightPerClient caps the same for the bodies of one client (the
	// host of http.Request.RemoteAddr, an IPv6 address counting as its /64
	// network, as for the transports), so that one client sending slowly cannot
	// fill MaxBodyBytesInFlight and lock the others out: beyond it a POST gets 429
	// with Retry-After: 1. Zero means 16 MiB (the transports' default). Negative
	// means no per-client cap, the setting behind a reverse proxy, where every
	// client has the proxy's address. A smaller value than one body of
	// MaxBodyBytes needs is raised to it.
	MaxBodyBytesInFlightPerClient int64
	// Logger receives diagnostics (verifier failures other than a bad token). Nil
	// discards.
	Logger *slog.Logger
}

// RequireBearer returns a handler that lets through to next only requests carrying
// a valid bearer token with the scopes they need, with the verified Principal in
// the request's context (PrincipalFrom).
//
//   - No token, or a token that is not a well-formed bearer credential: 401 with
//     WWW-Authenticate: Bearer resource_metadata="…", scope="…" (RFC 6750, RFC 9728
//     section 5.1).
//   - A token the Verifier refuses: 401 with error="invalid_token".
//   - A token without a needed scope: 403 with error="insufficient_scope" and, in
//     scope, every scope the request needs, so that the client can step up.
//   - A Verifier that cannot check tokens now: 503.
//   - With MethodScopes or tool scopes (ToolScopes, ToolScopesFor), a POST
//     body (read once the token is verified) over MaxBodyBytes: 413; one that
//     stops arriving for BodyReadTimeout: 400; one not in within BodyTimeout:
//     408; one whose next bytes would pass MaxBodyBytesInFlight: 503, or
//     MaxBodyBytesInFlightPerClient: 429, both with Retry-After: 1. These are the
//     transports' answers, with the same texts.
//
// The token is removed from the request handed to next (the Authorization header is
// deleted), so that nothing downstream can pass it through to another service.
//
// Browser clients: a CORS preflight (OPTIONS) never carries a token, and a browser
// lets a page read a 401 or 403 only with CORS headers. Put the CORS handling in
// front of RequireBearer, answering preflights itself and adding its headers to
// every response, with WWW-Authenticate in Access-Control-Expose-Headers.
// It panics when opts.Verifier is nil (a programmer error).
func RequireBearer(next http.Handler, opts *ResourceServerOptions) http.Handler {
	o := *opts
	if o.Verifier == nil {
		panic("auth: ResourceServerOptions.Verifier is nil")
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	// One Reader for the handler: its caps count the bodies of all the requests
	// it serves.
	body := httpbody.New(httpbody.TransportDefaults(httpbody.Options{Max: o.MaxBodyBytes,
		ReadTimeout: o.BodyReadTimeout, Timeout: o.BodyTimeout,
		InFlight: o.MaxBodyBytesInFlight, PerClient: o.MaxBodyBytesInFlightPerClient}))
	return &bearerHandler{next: next, o: o, body: body}
}

type bearerHandler struct {
	next http.Handler
	o    ResourceServerOptions
	body *httpbody.Reader // POST bodies read for MethodScopes and tool scopes
}

func (h *bearerHandler) challenge(w http.ResponseWriter, status int, errCode, desc string, scopes []string) {
	params := [][2]string{
		{"error", errCode},
		{"error_description", desc},
		{"scope", strings.Join(scopes, " ")},
		{"resource_metadata", h.o.ResourceMetadataURL},
	}
	w.Header().Set("WWW-Authenticate", FormatChallenge("Bearer", params...))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if errCode == "" {
		errCode = "unauthorized"
	}
	body, _ := json.Marshal(map[string]string{"error": errCode, "error_description": desc})
	w.Write(body)
}

// bearerToken extracts the token of an Authorization: Bearer header. ok is false
// when there is no Authorization header at all.
func bearerToken(r *http.Request) (token string, present, wellFormed bool) {
	vals := r.Header.Values("Authorization")
	if len(vals) == 0 {
		return "", false, false
	}
	if len(vals) > 1 {
		return "", true, false
	}
	scheme, tok, found := strings.Cut(vals[0], " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", true, false
	}
	tok = strings.Trim(tok, " ")
	if tok == "" || len(tok) > MaxTokenBytes {
		return "", true, false
	}
	// RFC 6750 section 2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
	i := 0
	for i < len(tok) && isToken68Char(tok[i]) {
		i++
	}
	for i < len(tok) && tok[i] == '=' {
		i++
	}
	if i == 0 || i != len(tok) {
		return "", true, false
	}
	return tok, true, true
}

func (h *bearerHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tok, present, ok := bearerToken(r)
	if !present {
		h.challenge(w, http.StatusUnauthorized, "", "", h.o.Scopes)
		return
	}
	if !ok {
		h.challenge(w, http.StatusUnauthorized, "invalid_token", "malformed bearer token", h.o.Scopes)
		return
	}
	p, err := h.o.Verifier.Verify(r.Context(), tok)
	if err != nil {
		if errors.Is(err, ErrInvalidToken) {
			h.challenge(w, http.StatusUnauthorized, "invalid_token", "the access token is not valid", h.o.Scopes)
			return
		}
		h.o.Logger.Warn("auth: cannot verify token", "err", err)
		http.Error(w, "Service Unavailable: cannot verify the access token now", http.StatusServiceUnavailable)
		return
	}
	need := h.o.Scopes
	tools := h.o.ToolScopes
	if h.o.ToolScopesFor != nil && r.Method == http.MethodPost {
		tools = h.o.ToolScopesFor(r) // only a POST's body names tools
	}
	if r.Method == http.MethodPost && (len(h.o.MethodScopes) > 0 || len(tools) > 0) {
		body, status, text := h.body.Read(w, r)
		if status != 0 {
			http.Error(w, text, status)
			return
		}
		ops, err := operations(body)
		if err != nil {
			// Refused here rather than guessed at: what this parser cannot read
			// exactly, no handler will run.
			http.Error(w, "Bad Request: "+err.Error(), http.StatusBadRequest)
			return
		}
		need = slices.Clone(need)
		for _, op := range ops {
			need = appendNew(need, h.o.MethodScopes[op.method]...)
			if op.method == "tools/call" {
				need = appendNew(need, tools[op.name]...)
			}
		}
		// The body goes on in memory; h.body stopped counting it when Read
		// returned. The transport behind counts it again against its own caps (a
		// Reader of its own) while it reads it, which from memory is at once.
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	if !p.HasScopes(need...) {
		h.challenge(w, http.StatusForbidden, "insufficient_scope", "the access token lacks a scope this request needs", need)
		return
	}
	r = r.WithContext(WithPrincipal(r.Context(), p))
	r.Header = r.Header.Clone()
	r.Header.Del("Authorization")
	h.next.ServeHTTP(w, r)
}

// appendNew appends the strings of add that dst does not hold yet.
func appendNew(dst []string, add ...string) []string {
	for _, s := range add {
		if !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
}

// operation is what a JSON-RPC message asks for: its method, and for tools/call the
// tool's name.
type operation struct{ method, name string }

var errBodyShape = errors.New("the body is not a JSON-RPC message this server can authorize")

// operations reads the method (and params.name) of the JSON-RPC message or batch in
// body. Member names are matched exactly, as the JSON-RPC decoder of this module
// does, and a repeated "method", "params" or "name" is refused, so that this reading
// and the one that dispatches the call cannot disagree.
func operations(body []byte) ([]operation, error) {
	if !jsonDepthOK(body, 64) {
		return nil, errBodyShape
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil {
		return nil, errBodyShape
	}
	var ops []operation
	switch tok {
	case json.Delim('['):
		for dec.More() {
			t, err := dec.Token()
			if err != nil || t != json.Delim('{') {
				return nil, errBodyShape
			}
			op, err := readMessage(dec)
			if err != nil {
				return nil, err
			}
			ops = append(ops, op)
		}
		if t, err := dec.Token(); err != nil || t != json.Delim(']') {
			return nil, errBodyShape
		}
	case json.Delim('{'):
		op, err := readMessage(dec)
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	default:
		return nil, errBodyShape
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errBodyShape
	}
	return ops, nil
}

// readMessage reads the members of an object whose '{' was consumed.
func readMessage(dec *json.Decoder) (operation, error) {
	var op operation
	var seenMethod, seenParams bool
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return op, errBodyShape
		}
		switch k {
		case "method":
			if seenMethod {
				return op, errBodyShape
			}
			seenMethod = true
			v, err := dec.Token()
			if err != nil {
				return op, errBodyShape
			}
			if s, ok := v.(string); ok {
				op.method = s
			} else if err := skipRest(dec, v); err != nil {
				return op, err
			}
		case "params":
			if seenParams {
				return op, errBodyShape
			}
			seenParams = true
			v, err := dec.Token()
			if err != nil {
				return op, errBodyShape
			}
			if v != json.Delim('{') {
				if err := skipRest(dec, v); err != nil {
					return op, err
				}
				continue
			}
			seenName := false
			for dec.More() {
				pk, err := dec.Token()
				if err != nil {
					return op, errBodyShape
				}
				pv, err := dec.Token()
				if err != nil {
					return op, errBodyShape
				}
				if pk == "name" {
					if seenName {
						return op, errBodyShape
					}
					seenName = true
					if s, ok := pv.(string); ok {
						op.name = s
					}
				}
				if err := skipRest(dec, pv); err != nil {
					return op, err
				}
			}
			if _, err := dec.Token(); err != nil { // '}'
				return op, errBodyShape
			}
		default:
			v, err := dec.Token()
			if err != nil {
				return op, errBodyShape
			}
			if err := skipRest(dec, v); err != nil {
				return op, err
			}
		}
	}
	if _, err := dec.Token(); err != nil { // '}'
		return op, errBodyShape
	}
	return op, nil
}

// skipRest skips the rest of a value whose first token was v.
func skipRest(dec *json.Decoder, v json.Token) error {
	if v != json.Delim('{') && v != json.Delim('[') {
		return nil
	}
	depth := 1
	for depth > 0 {
		t, err := dec.Token()
		if err != nil {
			return errBodyShape
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}
