// Package streamable implements the MCP Streamable HTTP transport (revisions
// 2025-03-26 to 2025-11-25, and the stateless 2026-07-28 wire on the same endpoint):
// an http.Handler for servers and a jsonrpc.Transport for clients.
//
// # Server
//
// NewHandler returns an http.Handler for one MCP endpoint; the caller owns the
// http.Server. It calls a ConnectFunc for every logical connection (a session opened
// by an initialize POST, or a single POST served without one) with a
// *ServerTransport, which the MCP layer serves until Read returns io.EOF:
//
//	h := streamable.NewHandler(func(ctx context.Context, t jsonrpc.Transport) error {
//		_, err := server.Connect(ctx, t) // any code that serves t
//		return err
//	}, &streamable.HandlerOptions{})
//	http.Handle("/mcp", h)
//	srv := &http.Server{Addr: "127.0.0.1:8080"}
//	go srv.ListenAndServe()
//	...
//	h.Shutdown(ctx) // then srv.Shutdown(ctx)
//
// What the handler does on its own:
//   - POST: Accept must list application/json and text/event-stream (406), the body
//     must be JSON (415) of at most MaxBodyBytes (413) and decode (400 with the
//     JSON-RPC error). Notifications and responses get 202. A request gets its
//     response as one application/json body when that response is the first message
//     written for it, and an SSE stream otherwise: a notification or
//     server-to-client request written with the request's handler context (progress,
//     logs, sampling, elicitation), or CloseSSEStream, switches the reply to SSE
//     before it is sent. JSONResponse always answers with JSON (related messages then
//     go to the GET stream), AlwaysSSE always with SSE. Batches are accepted when the
//     revision allows them.
//   - Sessions: Mcp-Session-Id (128 random bits) on the initialize response; 400
//     without it, 404 once it is gone; DELETE ends it; idle sessions expire, and
//     those that never complete initialization expire sooner; the number of
//     sessions is capped (a full table first ends the oldest idle session that never
//     completed initialization, then answers 503), and so is each client address's
//     share (1000 by default: the address's own oldest such session first, then
//     429).
//   - A notifications/cancelled for a request whose POST is still open ends that
//     POST (the cancelled request gets no response): 202 when nothing was sent yet,
//     otherwise its SSE stream closes.
//   - In Stateless mode a client that goes away before its answer (its POST closed)
//     cancels the call, on every revision: nothing can resume a stateless POST. In a
//     session, an initialize-era client's disconnect is not a cancellation (it may
//     resume the stream); it cancels with notifications/cancelled.
//   - GET opens the session's stream for messages related to no request (one at a
//     time: 409); Last-Event-ID resumes any stream of the session from an
//     EventStore. SSE streams of 2025-11-25 clients (by the revision the session
//     negotiated, or a newer MCP-Protocol-Version) start with a priming event and a
//     retry field; CloseSSEStream ends a request's stream early so the client polls.
//     The events of a request's stream are dropped from the store (when it
//     implements EventStreamDeleter) once the response reached the client.
//   - A POST carrying one call runs it on the POST's own goroutine, as a plain
//     net/http handler would, when nothing the client sent earlier is still waiting
//     to be read (see jsonrpc.Direct); notifications and responses reach the
//     connection the same way. Otherwise, and with DisableDirectCalls, messages are
//     queued for the connection's reader. The call of a reply CloseSSEStream may end
//     (a resumable stream of a 2025-11-25 or later client) runs on a goroutine of
//     its own, so that the response can end while the call goes on.
//   - MCP-Protocol-Version is checked (absent means 2025-03-26).
//   - Origin is checked on every request and Host on loopback listeners (403), the
//     DNS-rebinding defence.
//   - 2026-07-28 requests (by header or _meta) are served statelessly whatever the
//     mode, after the Mcp-Method / Mcp-Name / version header checks (400, -32020);
//     their error responses map to HTTP status (-32601 → 404, -32602/-32020/-32021/
//     -32022 → 400); a client that disconnects cancels its request.
//
// # Limits, and the http.Server around the handler
//
// What one client can make the handler hold is bounded: a POST body
// (MaxBodyBytes; each read within BodyReadTimeout and the whole within BodyTimeout;
// its buffer grows with the bytes received, and the buffers of bodies still arriving
// are capped per client address (an IPv6 address counts as its /64),
// MaxBodyBytesInFlightPerClient, and in all,
// MaxBodyBytesInFlight), a batch (Limits.MaxBatch, 1000 messages), a write to the
// client (WriteTimeout: a response that cannot take its events in time is let go,
// its events kept for Last-Event-ID), the sessions
// (MaxSessions; MaxSessionsPerClient per client address; SessionInitTimeout for sessions
// that never complete initialization, SessionIdleTimeout for the rest). There is no
// queue in front of a stream: a writer waits for the stream's previous write, so at
// most WriteTimeout. The MCP layer keeps its own bounded queue per session for
// notifications that belong to no request (mcp.ServerOptions.MaxQueuedNotifications).
//
// The http.Server is the caller's. In production set:
//   - ReadHeaderTimeout (e.g. 10 s): a client that never finishes its headers
//     otherwise holds a connection forever.
//   - IdleTimeout (e.g. 2 min): bounds idle keep-alive connections.
//   - MaxHeaderBytes if the default 1 MiB is more than the deployment needs.
//   - Not ReadTimeout or WriteTimeout: they apply to the whole exchange and would
//     cut the long-lived SSE responses (GET streams, subscriptions). The handler
//     bounds each body read, each whole body and each write itself.
//
// Behind a reverse proxy every client has the proxy's address: turn
// MaxSessionsPerClient and MaxBodyBytesInFlightPerClient off (-1) and limit per
// client in the proxy, and let the proxy pass SSE responses unbuffered (the handler
// sends X-Accel-Buffering: no).
//
//	srv := &http.Server{Addr: ":8080", Handler: mux,
//		ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
//
// # Client
//
// NewClient returns a *ClientTransport that POSTs every message, reads JSON or SSE
// replies, resumes broken streams with GET and Last-Event-ID, keeps the session id
// and protocol version, opens the GET stream after notifications/initialized (whose
// Write waits, briefly, until the server answered it), starts a new session
// transparently after a 404, and DELETEs the session on Close. A request's Write
// returns once its response reached Read, on whichever stream it came (a POST's own
// stream is read to its end, for at most 100 ms more, so its connection is reused).
// NewAutoClient also falls back to the 2024-11-05 HTTP+SSE transport (package
// transport/sse) when the server is a legacy one.
//
//	t, _ := streamable.NewClient("http://127.0.0.1:8080/mcp", nil)
//	conn := jsonrpc.NewConn(t, nil)
//	defer conn.Close()
package streamable
