package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// clientInfo identifies this program to the mock servers.
var clientInfo = mcp.Implementation{Name: "wiremcp-everything-client", Version: "1.0.0"}

// scenarios maps each client scenario of the suite to its flow. The OAuth scenarios
// (auth/...) are added by auth.go.
var scenarios = map[string]func(ctx context.Context, url string) error{
	"initialize":                          initialize,
	"tools_call":                          toolsCall,
	"elicitation-sep1034-client-defaults": elicitationDefaults,
	"elicitation-defaults":                elicitationDefaults,
	"sse-retry":                           sseRetry,
	"json-schema-2020-12-preservation":    jsonSchemaPreservation,
	// 2026-07-28 (modern.go)
	"request-metadata":              requestMetadata,
	"sep-2322-client-request-state": clientRequestState,
	"http-standard-headers":         standardHeaders,
	"http-custom-headers":           customHeaders,
	"http-invalid-tool-headers":     invalidToolHeaders,
	"json-schema-ref-no-deref":      schemaRefNoDeref,
}

// protocolVersion is the revision the suite asks for (MCP_CONFORMANCE_PROTOCOL_VERSION);
// empty lets the client probe.
var protocolVersion string

// connect opens a session with the server at url over Streamable HTTP, speaking the
// revision the suite asked for. When the server refuses that revision with -32022 and
// names one this library speaks, it connects once more with that one.
func connect(ctx context.Context, url string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	o := *opts
	o.ProtocolVersion = protocolVersion
	cs, err := connectOnce(ctx, url, &o)
	if v := supportedVersionRetry(err); v != "" {
		fmt.Fprintf(os.Stderr, "the server refused %q; retrying with %s\n", o.ProtocolVersion, v)
		o.ProtocolVersion = v
		cs, err = connectOnce(ctx, url, &o)
	}
	return cs, err
}

func connectOnce(ctx context.Context, url string, opts *mcp.ClientOptions) (*mcp.ClientSession, error) {
	t, err := streamable.NewClient(url, nil)
	if err != nil {
		return nil, err
	}
	cs, err := mcp.NewClient(clientInfo, opts).Connect(ctx, t)
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("connect: %w", err)
	}
	return cs, nil
}

// initialize performs the handshake, lists the tools if the server offers any, and
// closes the session.
func initialize(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if info := cs.InitializeResult().ServerInfo; info != nil {
		fmt.Fprintf(os.Stderr, "initialized: protocol %s, server %s %s\n", cs.ProtocolVersion(), info.Name, info.Version)
	}
	if cs.ServerCapabilities().Tools == nil {
		return nil
	}
	_, err = cs.ListTools(ctx, nil)
	return err
}

// toolsCall lists the tools and calls add_numbers with two numbers.
func toolsCall(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	tool, err := findTool(ctx, cs, "add_numbers")
	if err != nil {
		return err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: json.RawMessage(`{"a":5,"b":3}`)})
	if err != nil {
		return err
	}
	if res.IsError {
		return fmt.Errorf("add_numbers failed: %s", text(res))
	}
	fmt.Fprintln(os.Stderr, "add_numbers:", text(res))
	return nil
}

// elicitationDefaults declares elicitation, answers the server's form with the
// schema's default values (SEP-1034) and calls the tool that elicits it.
func elicitationDefaults(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, &mcp.ClientOptions{ElicitationHandler: acceptDefaults})
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := findTool(ctx, cs, "test_client_elicitation_defaults"); err != nil {
		return err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_client_elicitation_defaults", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "test_client_elicitation_defaults:", text(res))
	return nil
}

// acceptDefaults accepts a form elicitation, filling every field from its schema's
// default value (a client would show these to the user as pre-filled values).
func acceptDefaults(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	var schema struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(req.Params.RequestedSchema, &schema); err != nil {
		return nil, fmt.Errorf("requestedSchema: %w", err)
	}
	content := map[string]any{}
	for name, p := range schema.Properties {
		if len(p.Default) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(p.Default, &v); err != nil {
			return nil, fmt.Errorf("default of %q: %w", name, err)
		}
		content[name] = v
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// sseRetry calls test_reconnection, whose SSE stream the server closes before the
// result; the transport must resume it (GET with Last-Event-ID after the retry delay).
func sseRetry(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := findTool(ctx, cs, "test_reconnection"); err != nil {
		return err
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_reconnection", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "test_reconnection:", text(res))
	return nil
}

// jsonSchemaPreservation echoes the input schema of json_schema_2020_12_tool back to
// the server exactly as it was listed.
func jsonSchemaPreservation(ctx context.Context, url string) error {
	cs, err := connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	tool, err := findTool(ctx, cs, "json_schema_2020_12_tool")
	if err != nil {
		return err
	}
	args := append(append([]byte(`{"schema":`), tool.InputSchema...), '}')
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "json_schema_echo", Arguments: args})
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "json_schema_echo:", text(res))
	return nil
}

// findTool lists the server's tools and returns the one named name.
func findTool(ctx context.Context, cs *mcp.ClientSession, name string) (*mcp.Tool, error) {
	for t, err := range cs.Tools(ctx) {
		if err != nil {
			return nil, err
		}
		if t.Name == name {
			return t, nil
		}
	}
	return nil, errors.New("the server does not list tool " + name)
}

// text joins the text blocks of a result.
func text(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			if s != "" {
				s += "\n"
			}
			s += t.Text
		}
	}
	return s
}
