// Package mcp implements the Model Context Protocol: a Server that offers tools,
// resources and prompts, and a Client that uses them, over any jsonrpc.Transport
// (transport/stdio, transport/streamable, transport/sse, transport/memory).
//
// It speaks revisions 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25 through the
// initialize handshake, picking per session what each revision allows, and 2026-07-28,
// where every request carries its revision and the client's capabilities in _meta (see
// SupportedRevisions). A Server answers both eras on one connection or endpoint; what
// differs by revision is decided in one table.
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
//
// A client with default options probes the server with server/discover and speaks
// 2026-07-28 when it can, falling back to initialize; ClientOptions.ProtocolVersion
// pins a revision. Under 2026-07-28 the server's input requests (input_required
// results) are answered by the same ElicitationHandler, SamplingHandler and Roots that
// serve elicitation/create, sampling/createMessage and roots/list in the older era,
// and Listen opens a subscriptions/listen stream for change notifications.
//
// # One handler, both eras
//
// A handler that needs the user's input calls req.Session.Elicit (or CreateMessage,
// ListRoots, or Input for several keyed requests at once). With an initialize-era
// client the request travels to the client at once; under 2026-07-28 the call
// returns an error that the handler passes back unchanged, the client is answered with
// an input_required result, and when it retries with the answers the handler runs
// again and the same call returns them:
//
//	res, err := req.Session.Input(ctx, map[string]mcp.InputRequest{
//		"user_name": mcp.ElicitInput(&mcp.ElicitParams{Message: "Your name?", RequestedSchema: schema}),
//	})
//	if err != nil {
//		return nil, nil, err // input_required (2026-07-28), or a real failure
//	}
//	answer, _ := res.Elicit("user_name")
//
// The answers of earlier rounds travel in the requestState, sealed with an HMAC, so a
// handler may ask in several rounds; it must ask for the same keys in the same order
// each time it runs.
//
// # Tasks
//
// With ServerOptions.Tasks set, a tool whose Tool.Execution.TaskSupport is "optional"
// or "required" may run as a task: the call is answered at once with a task id, the
// handler goes on in the background (at most TaskOptions.MaxConcurrent at a time),
// and the client polls for the outcome, which is kept for the task's TTL.
//
//	s := mcp.NewServer(impl, &mcp.ServerOptions{Tasks: &mcp.TaskOptions{}})
//	mcp.AddTool(s, &mcp.Tool{Name: "render", Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}}, render)
//
// Under 2025-11-25 the client asks for a task (params.task) and uses tasks/get,
// tasks/result, tasks/list and tasks/cancel; tasks belong to the session that made
// them. Under 2026-07-28 (the io.modelcontextprotocol/tasks extension) the server
// decides: a call to such a tool whose request declares the extension becomes a task,
// and tasks/get returns the outcome. The handler is the same code in both eras: inside
// a task, Elicit and Input send the request tied to the task (2025-11-25) or list it
// in the task's inputRequests until tasks/update answers it (2026-07-28). A handler
// that must first gather input through input_required rounds sets TaskOptions.Defer
// and calls req.Session.StartTask when it is ready to go asynchronous. Server.Close
// cancels running tasks.
//
// On the client, CallToolAsTask starts a task (or gets the result, when the server
// answers at once), WaitTask polls until it ends (answering its input requests through
// the client's handlers) and TaskResult returns the tool's result:
//
//	task, res, err := cs.CallToolAsTask(ctx, &mcp.CallToolParams{Name: "render"}, time.Hour)
//	if task != nil {
//		res, err = cs.TaskResult(ctx, task.ID)
//	}
package mcp
