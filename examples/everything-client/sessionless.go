package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// The flows of the client scenarios scored by 2026-07-28 (official-suite.md §5.5),
// apart from the OAuth ones. The suite runs them with
// MCP_CONFORMANCE_PROTOCOL_VERSION=2026-07-28, so connect speaks the stateless wire:
// server/discover instead of initialize, _meta and the Mcp-* headers on every request,
// input_required results answered through the handlers of ClientOptions.

// conformanceContext is the scenario data the suite passes in MCP_CONFORMANCE_CONTEXT
// (JSON; empty when the scenario has none).
var conformanceContext string

// requestMetadata connects (retrying with a version the server names when it refuses
// the first request with -32022) and lists the tools, or pings when the server
// declares none: requests that carry the revision, capabilities and client info in
// _meta and the version header.
func requestMetadata(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, &mcp.ClientOptions{ElicitationHandler: acceptForm, SamplingHandler: sampleReply, Roots: demoRoots})
	if err != nil {
		return err
	}
	defer cs.Close()
	if cs.ServerCapabilities().Tools == nil {
		// Nothing to list: one more request of the session (server/discover under
		// 2026-07-28) shows its metadata again.
		return cs.Ping(ctx)
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "tools/list: %d tools\n", len(res.Tools))
	return nil
}

// clientRequestState drives the multi round-trip requests of SEP-2322: a retry that
// echoes requestState, an unrelated call made while a round is open (it must carry
// neither inputResponses nor requestState), a round without requestState, and a
// result without resultType (complete; no retry).
func clientRequestState(ctx context.Context, url string) error {
	var once sync.Once
	var unrelatedErr error
	handler := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		once.Do(func() {
			res, err := req.Session.CallTool(ctx, &mcp.CallToolParams{Name: "test_mrtr_unrelated", Arguments: json.RawMessage(`{}`)})
			if err == nil {
				fmt.Fprintln(os.Stderr, "test_mrtr_unrelated (between rounds):", text(res))
			}
			unrelatedErr = err
		})
		return acceptForm(ctx, req)
	}
	cs, err := connect(ctx, url, &mcp.ClientOptions{ElicitationHandler: handler})
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return err
	}
	for _, name := range []string{"test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_no_result_type"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{}`)})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		fmt.Fprintf(os.Stderr, "%s: %s\n", name, text(res))
	}
	if unrelatedErr != nil {
		return fmt.Errorf("test_mrtr_unrelated: %w", unrelatedErr)
	}
	return nil
}

// standardHeaders makes one request of every method that carries Mcp-Method (and,
// for tools/call, resources/read and prompts/get, Mcp-Name): it lists tools, resources
// and prompts and uses each one listed.
func standardHeaders(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	for t, err := range cs.Tools(ctx) {
		if err != nil {
			return err
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: t.Name, Arguments: json.RawMessage(`{}`)}); err != nil {
			return fmt.Errorf("tools/call %s: %w", t.Name, err)
		}
	}
	for r, err := range cs.Resources(ctx) {
		if err != nil {
			return err
		}
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.URI}); err != nil {
			return fmt.Errorf("resources/read %s: %w", r.URI, err)
		}
	}
	for p, err := range cs.Prompts(ctx) {
		if err != nil {
			return err
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name}); err != nil {
			return fmt.Errorf("prompts/get %s: %w", p.Name, err)
		}
	}
	return nil
}

// customHeaders lists the tools (their x-mcp-header annotations say which arguments
// travel as Mcp-Param-* headers) and makes the calls MCP_CONFORMANCE_CONTEXT lists,
// with exactly the arguments given there.
func customHeaders(ctx context.Context, url string) error {
	var sc struct {
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
	}
	if err := json.Unmarshal([]byte(conformanceContext), &sc); err != nil {
		return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
	}
	if len(sc.ToolCalls) == 0 {
		return errors.New("MCP_CONFORMANCE_CONTEXT lists no toolCalls")
	}
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return err
	}
	for _, c := range sc.ToolCalls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Name, Arguments: c.Arguments})
		if err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
		fmt.Fprintf(os.Stderr, "%s: %s\n", c.Name, text(res))
	}
	return nil
}

// invalidToolHeaders calls every tool the server lists that the client accepts: a
// 2026-07-28 client drops tools whose x-mcp-header annotations are invalid, so only
// the valid ones are called. Arguments are placeholders for the required ones.
func invalidToolHeaders(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	for t, err := range cs.Tools(ctx) {
		if err != nil {
			return err
		}
		args, err := placeholderArgs(t.InputSchema)
		if err != nil {
			return fmt.Errorf("tool %s: %w", t.Name, err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: t.Name, Arguments: args})
		if err != nil {
			return fmt.Errorf("tools/call %s: %w", t.Name, err)
		}
		fmt.Fprintf(os.Stderr, "%s: %s\n", t.Name, text(res))
	}
	return nil
}

// schemaRefNoDeref lists the tools; a schema's $ref to a URL must never be fetched.
func schemaRefNoDeref(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	for t, err := range cs.Tools(ctx) {
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "tool %s: inputSchema %s\n", t.Name, t.InputSchema)
	}
	return nil
}

// supportedVersionRetry returns the revision to retry with when err is the server's
// refusal of the requested one (-32022): the first revision in data.supported that
// this library speaks, or "" when there is none or err is something else.
func supportedVersionRetry(err error) string {
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeUnsupportedProtocolVersion {
		return ""
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	if json.Unmarshal(je.Data, &data) != nil {
		return ""
	}
	ours := mcp.SupportedRevisions()
	for _, v := range data.Supported {
		if slices.Contains(ours, v) {
			return v
		}
	}
	return ""
}

// demoRoots are the roots the client offers when a flow declares roots.
var demoRoots = []*mcp.Root{{URI: "file:///workspace/demo", Name: "demo workspace"}}

// acceptForm accepts a form elicitation, filling each field with its default or, when
// it has none, a placeholder of its type (a stand-in for the user's answer).
func acceptForm(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	var schema struct {
		Properties map[string]struct {
			Type    string          `json:"type"`
			Default json.RawMessage `json:"default"`
			Enum    []any           `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(req.Params.RequestedSchema, &schema); err != nil {
		return nil, fmt.Errorf("requestedSchema: %w", err)
	}
	content := map[string]any{}
	for name, p := range schema.Properties {
		if len(p.Default) > 0 {
			var v any
			if err := json.Unmarshal(p.Default, &v); err != nil {
				return nil, fmt.Errorf("default of %q: %w", name, err)
			}
			content[name] = v
			continue
		}
		if len(p.Enum) > 0 {
			content[name] = p.Enum[0]
			continue
		}
		switch p.Type {
		case "boolean":
			content[name] = true
		case "string":
			content[name] = "wiremcp"
		case "integer", "number":
			content[name] = 1
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// sampleReply answers a sampling request with a fixed text (a stand-in for a model).
func sampleReply(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{Role: "assistant", Model: "wiremcp-stand-in",
		Content: []mcp.Content{&mcp.TextContent{Text: "A reply from the stand-in model."}}, StopReason: "endTurn"}, nil
}

// placeholderArgs builds arguments for a tool's required properties: a placeholder
// of each one's type.
func placeholderArgs(schema json.RawMessage) (json.RawMessage, error) {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	args := map[string]any{}
	for _, name := range s.Required {
		switch s.Properties[name].Type {
		case "string":
			args[name] = "us-east1"
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = true
		}
	}
	return json.Marshal(args)
}
