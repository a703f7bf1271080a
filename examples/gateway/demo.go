package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/stdio"
)

// demoConfig is the configuration served without -config. It needs nothing but the
// gateway binary itself (which doubles as a stdio MCP server) and a POSIX shell.
func demoConfig() (*Config, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	kb, err := demoRESTServer()
	if err != nil {
		return nil, err
	}
	cfg := map[string]any{
		"title": "wiremcp gateway (demo)",
		"all":   true,
		"servers": map[string]any{
			"kb": kb,
			"echo": map[string]any{
				"description": "A stdio MCP server run as a supervised child process: echo and add.",
				"mcp":         map[string]any{"command": []string{self, "demo-upstream"}},
			},
			"date": map[string]any{
				"description": "The date command: the current time in UTC.",
				"command":     map[string]any{"argv": []string{"date", "-u", "+%Y-%m-%dT%H:%M:%SZ"}},
			},
			"shell": map[string]any{
				"description": "Small shell tools with templated arguments, a static resource and a prompt.",
				"tools": map[string]any{
					"greet": map[string]any{
						"description": "Greets someone.",
						"inputSchema": json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"Who to greet."}},"required":["name"]}`),
						"command":     map[string]any{"argv": []string{"sh", "-c", `printf 'Hello, %s!\n' "$1"`, "greet", "{{.name}}"}},
					},
					"count_words": map[string]any{
						"description": "Counts the words of a text (given to wc on stdin as JSON).",
						"inputSchema": json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
						"command":     map[string]any{"argv": []string{"sh", "-c", `tr -d '{}":,' | sed 's/^text//' | wc -w | tr -d ' '`}, "stdin": "json"},
					},
				},
				"resources": map[string]any{
					"about": map[string]any{"uri": "demo://about", "name": "About this gateway", "mimeType": "text/markdown",
						"text": "# wiremcp gateway\n\nOne configuration file, many MCP servers, each at /mcp/{server}.\n"},
				},
				"prompts": map[string]any{
					"summarize": map[string]any{
						"description": "Asks for a summary of a topic.",
						"arguments":   []any{map[string]any{"name": "topic", "required": true}},
						"messages":    []any{map[string]any{"role": "user", "text": "Summarize {{.topic}} in three sentences."}},
					},
				},
			},
		},
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return ParseConfig(data, dir)
}

// demoUpstream serves the demo's stdio MCP server on stdin/stdout.
func demoUpstream() int {
	s := mcp.NewServer(mcp.Implementation{Name: "demo-upstream", Version: "0.1.0"}, nil)
	type echoArgs struct {
		Message string `json:"message" description:"The message to echo back."`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the message back."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return mcp.TextResult(in.Message), nil, nil
		})
	type addArgs struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers."},
		func(ctx context.Context, req *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, any, error) {
			return mcp.TextResult(strings.TrimSpace(fmt.Sprint(in.A + in.B))), nil, nil
		})
	if err := s.Run(context.Background(), stdio.Stdio()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
