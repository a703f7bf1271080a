// Package jsonrpc implements JSON-RPC 2.0 (https://www.jsonrpc.org/specification):
// its messages, a strict decoder and a compact encoder, and a connection type that
// calls the peer and serves its requests over any Transport. It knows nothing of
// MCP; the mcp package builds on it.
//
// # Messages
//
// A Message is a *Request (a call, or a notification when it has no id), a
// *Response, a Batch or an *Invalid (a malformed batch element, or the answer owed
// to a malformed message). An ID keeps the exact token the peer sent, so that 1,
// "1", 1.0 and 9007199254740993 all come back as they were written, and it tells an
// absent id from null. Params, Result and Error.Data stay raw JSON until the layer
// above knows their type.
//
// # Decoding
//
// Decode is a hand-written single-pass scanner over the frame's bytes (no reflection,
// three allocations for a typical request). It is strict where lenient parsers
// disagree with each other: member names are case-sensitive, a duplicate member is
// rejected at any depth, "jsonrpc" must be "2.0", and frames are bounded in size and
// nesting (Limits; 4 MiB and 64 levels by default). Invalid UTF-8 is a parse error.
// Each rejection carries the error JSON-RPC prescribes: -32700 when the frame is not
// JSON, -32600 when it is JSON but not a valid message.
//
// # Connections
//
// NewConn serves a Transport: one reader goroutine reads messages, matches
// responses to pending Calls by id, answers malformed input, and hands requests to
// the Handler — each call on its own goroutine, notifications one at a time in
// arrival order (Async lets a notification handler step aside). Handlers return
// (result, error); a returned error becomes the error response (see AsError) and a
// panic becomes -32603 for that request only. Close stops reading, waits for running
// handlers, then closes the transport. A transport that receives messages on
// goroutines of its own (Streamable HTTP) may pass them to the Conn directly instead
// (Direct): a call then runs on the goroutine that received it.
//
// A minimal server and client over the in-process transport:
//
//	a, b := memory.NewPair()
//	server := jsonrpc.NewConn(a, &jsonrpc.ConnOptions{
//		Handler: jsonrpc.HandlerFunc(func(ctx context.Context, req *jsonrpc.Request) (any, error) {
//			return "pong", nil
//		}),
//	})
//	client := jsonrpc.NewConn(b, nil)
//	var reply string
//	err := client.Call(ctx, "ping", nil, &reply)
//
// # Deviations
//
// SPEC NOTE: JSON-RPC 2.0 answers every invalid request; a malformed message that is
// recognisably a notification (a string "method" and no "id" member) gets no answer
// here, because MCP forbids answering notifications, malformed or not. An invalid
// request whose "id" could be read is answered with that id rather than null.
package jsonrpc
