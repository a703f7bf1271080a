// Package mcp implements the Model Context Protocol: a Server that offers tools,
// resources and prompts, and a Client that uses them, over any jsonrpc.Transport
// (transport/stdio, transport/streamable, transport/sse, transport/memory).
//
// It speaks revisions 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25 through the
// initialize handshake, picking per session what each revision allows (see
// SupportedRevisions); what differs by revision is decided in one table.
//
// # A server in a few lines
//
//	type EchoIn struct {
//		Message string `json:"message" description:"what to echo"`
//	}
//
//	s := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1.0.0"}, nil)
//	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo a message"},
//		func(ctx context.Context, req *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, any, error) {
//			return mcp.TextResult(in.Message), nil, nil
//		})
//	err := s.Run(ctx, stdio.Stdio()) // or streamable.NewHandler for HTTP
//
// Arguments are validated against the tool's input schema before the handler runs; a
// failure is an isError result that names the field, so a model can correct itself.
// A typed tool whose Out type is a struct also gets an output schema, and its results
// carry structuredContent plus the same JSON as text.
//
// # Talking back to the client
//
// Inside a handler, req.Session offers Elicit, CreateMessage (sampling), ListRoots,
// Log and NotifyProgress. Pass them the handler's ctx: on Streamable HTTP the messages
// then travel on the stream of the request being handled. Each one checks the
// capability the client declared and returns an error wrapping
// ErrCapabilityNotSupported instead of sending what the client cannot take.
//
// # A client
//
//	c := mcp.NewClient(mcp.Implementation{Name: "me", Version: "1.0.0"}, nil)
//	cs, err := c.Connect(ctx, transport)
//	for tool, err := range cs.Tools(ctx) { … }
//	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"hi"}`)})
//
// Cancelling the ctx of a call sends notifications/cancelled; WithProgress asks for
// progress notifications about one call.
package mcp
