package streamable

import (
	"context"
	"github.com/wiremcp/wiremcp/transport/revision"
	"log/slog"
	"net/http"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// ConnectFunc is called for every new logical connection: a session (on an initialize
// POST), or a single POST that is served without a session (stateless mode, or a
// 2026-07-28 request). It must start serving t — typically by handing it to an MCP
// server — and return without waiting for the connection to end. The connection ends
// when t.Read returns io.EOF (session deleted, expired, shut down, or the stateless
// POST answered).
//
// ctx carries the values of the HTTP request that opened the connection (for example
// an authenticated principal put there by middleware) and is cancelled when the
// connection ends (session deleted, expired or shut down; stateless POST answered).
// For a 2026-07-28 request, and for every request in Stateless mode, it is also
// cancelled when the client goes away (its POST closed): that is how a 2026-07-28
// client cancels, and nothing could resume a stateless POST. Use it as the parent of the connection's handler
// contexts (jsonrpc.ConnOptions.Context). On such a disconnect the transport also
// delivers a notifications/cancelled naming the request.
//
// t also implements SessionID() string, Stateless() bool and
// CloseSSEStream(ctx) bool (see ServerTransport). A returned error makes the handler
// answer the POST with HTTP 500 and drop the connection.
type ConnectFunc func(ctx context.Context, t jsonrpc.Transport) error

// HandlerOptions configures a Handler. The zero value (or nil) gives the defaults
// documented on each field. The struct is copied by NewHandler.
type HandlerOptions struct {
	// Stateless serves every POST on its own connection: no sessions, no
	// Mcp-Session-Id, no GET stream, no DELETE, no resumability. The connection's
	// Stateless() reports true.
	Stateless bool
	// JSONResponse answers requests of the initialize era with one application/json
	// body, always. Messages related to such a request (progress, logs,
	// server-to-client requests) then travel on the session's GET stream.
	//
	// By default (neither JSONResponse nor AlwaysSSE) a request is answered with
	// application/json when its response is the first message written for it, and
	// on an SSE stream (priming event and event ids included) when a related
	// notification or server-to-client request, or CloseSSEStream, comes first.
	// 2026-07-28 requests are always answered that way, whatever these fields say.
	JSONResponse bool
	// AlwaysSSE answers every request of the initialize era on an SSE stream, even
	// when nothing precedes its response. JSONResponse takes precedence.
	AlwaysSSE bool
	// DisableGET answers GET with 405 (no standalone server-to-client stream).
	DisableGET bool
	// DisableDelete answers DELETE with 405 (clients cannot end their sessions).
	DisableDelete bool

	// ProtocolVersions lists the initialize-era revisions accepted in the
	// MCP-Protocol-Version header; another initialize-era revision gets 400. A header
	// value that is not an initialize-era revision marks a 2026-07-28-style request
	// and is left to the MCP layer to accept or refuse (-32022). Nil means
	// DefaultProtocolVersions.
	ProtocolVersions []string

	// SessionIdleTimeout ends a session after this long without HTTP traffic (an open
	// GET stream counts as traffic). Zero means 30 minutes; negative disables expiry.
	// Sessions are looked at every quarter of it, so one ends between 1 and 1.25
	// times this after its last request. The looking is done by one goroutine per
	// Handler on a ticker, running while sessions exist; Shutdown ends it.
	SessionIdleTimeout time.Duration
	// SessionInitTimeout ends a session whose client has not completed
	// initialization (sent notifications/initialized) this long after its
	// initialize: sessions opened and abandoned, or opened only to fill the table,
	// do not wait for SessionIdleTimeout. Zero means 10 seconds; negative leaves
	// such sessions to SessionIdleTimeout.
	SessionInitTimeout time.Duration
	// MaxSessions caps the live sessions. When the table is full, an initialize
	// first ends the oldest session that has not completed initialization and has
	// no request in progress; when there is none it gets 503. Zero means 10000;
	// negative means no cap.
	MaxSessions int
	// MaxSessionsPerClient caps the live sessions opened from one client: the
	// host of http.Request.RemoteAddr, an IPv4 address as itself and an IPv6
	// address as its /64 network (a host usually holds a whole /64 and can use
	// any of its addresses; an IPv4-mapped address counts as its IPv4 address).
	// When a client has used up its share, its initialize first ends that
	// client's oldest session that has not completed initialization and has no
	// request in progress; when there is none it gets 429. Zero means 1000.
	// Negative means no per-client cap, which is the setting behind a reverse
	// proxy, where every client has the proxy's address (put the limit in the
	// proxy, or in middleware that knows the client).
	MaxSessionsPerClient int
	// MaxBodyBytes caps a POST body; a larger one gets 413. Zero means 4 MiB.
	MaxBodyBytes int64
	// Limits bounds decoding (jsonrpc.Decode). Zero fields mean the decoder's
	// defaults; MaxSize is raised to MaxBodyBytes when smaller.
	Limits jsonrpc.Limits

	// EventStore keeps SSE events so clients can resume streams with Last-Event-ID.
	// Nil means a NewMemoryEventStore(0, 0) private to the handler. When it also
	// implements EventStreamDeleter, the events of a request's stream are dropped
	// as soon as its response reached the client on an open SSE response.
	EventStore EventStore
	// DisableResumability turns off event ids, priming events and resumption.
	DisableResumability bool
	// RetryInterval is the reconnection delay sent in "retry:" fields (priming
	// events, and before the server ends a stream early). Zero means 1 second.
	RetryInterval time.Duration
	// BodyReadTimeout bounds each read of a POST body: a client that stops sending
	// its body for this long gets 400 and its connection is dropped, instead of
	// holding a goroutine and a buffer. It is set per read with
	// http.ResponseController and cleared once the body is read, so it neither
	// limits a slow but steady upload nor outlives the body (http.Server.ReadTimeout
	// would also cut the long-lived SSE responses). Zero means 10 seconds; negative
	// disables.
	BodyReadTimeout time.Duration
	// BodyTimeout bounds the reading of a whole POST body, from the handler's first
	// look at it: a client that keeps sending a byte now and then (each within
	// BodyReadTimeout) gets 408 once it has passed, and its connection is dropped.
	// It is enforced with the same per-read deadline, cleared once the body is read.
	// Zero means 30 seconds (4 MiB then needs about 140 KB/s); negative disables.
	BodyTimeout time.Duration
	// MaxBodyBytesInFlight caps the memory held by POST bodies still arriving, all
	// clients together. A body's buffer grows with the bytes received (up to 64 KiB
	// is set aside when its headers arrive, then it doubles as it fills; a declared
	// Content-Length costs nothing more until it is sent), and each growth is
	// counted against the cap until the body is read (a body being handled is no
	// longer counted). A POST whose next bytes would pass the cap gets 503 with
	// Retry-After: 1 at once (nothing waits in a queue), and its connection is
	// dropped. Zero means 64 MiB; negative means no cap; a smaller value than one
	// body of MaxBodyBytes needs is raised to it.
	MaxBodyBytesInFlight int64
	// MaxBodyBytesInFlightPerClient caps the same for the bodies of one client
	// (as for MaxSessionsPerClient: the host of http.Request.RemoteAddr, an IPv6
	// address counting as its /64 network), so that one client sending slowly
	// cannot fill MaxBodyBytesInFlight and lock the others out: beyond it a POST
	// gets 429 with Retry-After: 1. Zero means 16 MiB. Negative means no
	// per-client cap, the setting behind a reverse proxy, where every client has
	// the proxy's address (as for MaxSessionsPerClient). A smaller value than one
	// body of MaxBodyBytes needs is raised to it.
	MaxBodyBytesInFlightPerClient int64
	// WriteTimeout bounds every write (and flush) to a client's HTTP response: an
	// event, a keep-alive, a JSON body. A response that cannot take a write within
	// it is broken off: the stream lets go of it (a resumable stream keeps its events
	// in the EventStore, so the client resumes with Last-Event-ID; otherwise the
	// stream ends). The deadline is set with http.ResponseController for each write
	// and cleared after it. There is no queue in front of a stream: a writer waits
	// for the stream's previous write, so at most this long. Zero means 10 seconds;
	// negative disables (a client that stops reading then holds its writers until
	// its connection ends).
	WriteTimeout time.Duration
	// KeepAlive is the period of ":" comment lines on long-lived SSE streams (GET
	// streams and 2026-07-28 streams). Zero means 25 seconds; negative disables.
	KeepAlive time.Duration

	// DisableOriginCheck accepts any Origin. By default a present Origin must match
	// the request's Host, be a loopback origin on a loopback listener, or be listed in
	// AllowedOrigins; anything else gets 403.
	DisableOriginCheck bool
	// AllowedOrigins lists extra acceptable Origin values, compared exactly
	// (scheme://host[:port], e.g. "https://app.example.com").
	AllowedOrigins []string
	// DisableHostCheck accepts any Host. By default, when the request arrived on a
	// loopback address, the Host must be localhost, 127.0.0.1 or [::1] (any port) or
	// be listed in AllowedHosts; anything else gets 403 (DNS-rebinding defence).
	DisableHostCheck bool
	// AllowedHosts lists extra acceptable Host values (host or host:port, compared
	// case-insensitively); when non-empty it is also enforced on non-loopback
	// listeners.
	AllowedHosts []string

	// DisableDirectCalls queues every call for the connection's reader goroutine.
	// By default a POST carrying one call runs it on the POST's own goroutine when
	// nothing the client sent earlier is still waiting to be read, which spares two
	// goroutine hand-offs per call (see jsonrpc.Direct). The call of a stream that
	// CloseSSEStream may end (resumable, of a 2025-11-25 or later client) runs on a
	// goroutine of its own instead (still without the reader's hand-off), so that
	// the POST's response can end while it runs.
	// The client sees the same exchange either way.
	DisableDirectCalls bool

	// SessionOwner, when set, names the owner of a request, for example the
	// principal that authorization middleware put in its context (auth.SessionOwner
	// has this shape). A session belongs to the owner of the initialize request that
	// opened it; a POST, GET or DELETE naming the session with another owner gets
	// 404, as if the session did not exist. Nil means sessions have no owner.
	SessionOwner func(*http.Request) string

	// Logger receives diagnostics. Nil discards.
	Logger *slog.Logger
}

// DefaultProtocolVersions are the MCP revisions a Handler accepts by default: every
// revision the module speaks.
var DefaultProtocolVersions = revision.All()

// isLegacyRevision reports whether v is an initialize-era revision (sessions,
// handshake).
func isLegacyRevision(v string) bool { return revision.Handshake(v) }

// revisionOnOrAfter compares dated revisions.
func revisionOnOrAfter(v, ref string) bool { return revision.OnOrAfter(v, ref) }

const (
	defaultIdle        = 30 * time.Minute
	defaultMaxSessions = 10000
	defaultPerClient   = 1000
	defaultInit        = 10 * time.Second
	defaultMaxBody     = 4 << 20
	defaultRetry       = time.Second
	defaultKeepAlive   = 25 * time.Second
	defaultWrite       = 10 * time.Second
)
