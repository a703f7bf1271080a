// Package sse implements the HTTP+SSE transport of MCP revision 2024-11-05
// (deprecated since 2025-03-26, kept for old peers): a server http.Handler and a
// client jsonrpc.Transport.
//
// The client GETs the SSE endpoint; the server's first event, "endpoint", names the
// URI to POST messages to (the same path with a sessionId query parameter by
// default). Every POST is answered 202 and every server message, responses
// included, travels on the event stream as a "message" event.
//
//	h := sse.NewHandler(func(ctx context.Context, t jsonrpc.Transport) error {
//		_, err := server.Connect(ctx, t)
//		return err
//	}, nil)
//	http.Handle("/sse", h) // GET /sse, POST /sse?sessionId=…
//
//	t, err := sse.NewClient(ctx, "http://127.0.0.1:8080/sse", nil)
//	conn := jsonrpc.NewConn(t, nil)
//
// The handler checks Origin and, on loopback listeners, Host (403) and bounds
// bodies (413), like the Streamable HTTP handler. Each write to a stream has
// WriteTimeout, each body read BodyReadTimeout and each whole body BodyTimeout; the
// buffers of bodies still arriving are capped in all (MaxBodyBytesInFlight, 503)
// and per client address (MaxBodyBytesInFlightPerClient, 429; an IPv6 address
// counts as its /64 network), and so are the open streams (MaxSessions, 503;
// MaxSessionsPerClient, 429). The
// http.Server around it needs what package streamable's documentation lists:
// ReadHeaderTimeout and IdleTimeout, and no ReadTimeout or WriteTimeout, which would
// cut the event streams (the handler bounds each read and write itself). Streamable HTTP clients can fall
// back to this transport automatically (streamable.NewAutoClient).
package sse
