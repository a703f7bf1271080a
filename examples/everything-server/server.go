package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// serverInfo identifies the server in the initialize result.
var serverInfo = mcp.Implementation{Name: "wiremcp-everything-server", Title: "wiremcp everything server", Version: "1.0.0"}

// newServer builds the server with every fixture registered. logger may be nil.
//
// The server is dual-era: the same fixtures answer initialize-era sessions and
// 2026-07-28 requests on the same connection or endpoint. The fixtures of the
// 2026-07-28 scenarios (modern.go) are registered after the older ones.
func newServer(logger *slog.Logger) *mcp.Server {
	s := mcp.NewServer(serverInfo, &mcp.ServerOptions{
		Instructions:      "A server exposing every fixture of the MCP conformance suite.",
		Logger:            logger,
		CompletionHandler: complete,
		Tasks:             taskOptions(),
	})
	addTools(s)
	addModernTools(s)
	addTaskTools(s)
	addResources(s)
	addPrompts(s)
	addModernPrompts(s)
	return s
}

func addResources(s *mcp.Server) {
	s.AddResource(&mcp.Resource{
		URI: "test://static-text", Name: "static-text", MIMEType: "text/plain",
		Description: "A static text resource",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: "text/plain", Text: staticText,
		}}}, nil
	})
	s.AddResource(&mcp.Resource{
		URI: "test://static-binary", Name: "static-binary", MIMEType: "image/png",
		Description: "A static binary resource (a 1x1 red PNG)",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: "image/png", Blob: pngBytes,
		}}}, nil
	})
	addWatchedResource(s)
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: "test://template/{id}/data", Name: "template-data", MIMEType: "application/json",
		Description: "Data for any id",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		id := req.Vars["id"]
		body, err := json.Marshal(struct {
			ID           string `json:"id"`
			TemplateTest bool   `json:"templateTest"`
			Data         string `json:"data"`
		}{id, true, "Data for ID: " + id})
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: "application/json", Text: string(body),
		}}}, nil
	})
}

// addWatchedResource registers test://watched-resource; test_trigger_resource_list_change
// calls it again to change the resource list.
func addWatchedResource(s *mcp.Server) {
	s.AddResource(&mcp.Resource{
		URI: "test://watched-resource", Name: "watched-resource", MIMEType: "text/plain",
		Description: "A resource clients may subscribe to",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: "text/plain", Text: watchedText,
		}}}, nil
	})
}

// addSimplePrompt registers test_simple_prompt; test_trigger_prompt_change calls it
// again to change the prompt list.
func addSimplePrompt(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{Name: "test_simple_prompt", Description: "A prompt without arguments"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: simplePromptText}},
			}}, nil
		})
}

func addPrompts(s *mcp.Server) {
	addSimplePrompt(s)
	s.AddPrompt(&mcp.Prompt{
		Name: "test_prompt_with_arguments", Description: "A prompt with two required arguments",
		Arguments: []*mcp.PromptArgument{
			{Name: "arg1", Description: "First argument", Required: true},
			{Name: "arg2", Description: "Second argument", Required: true},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
			Role:    mcp.RoleUser,
			Content: &mcp.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])},
		}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{
		Name: "test_prompt_with_embedded_resource", Description: "A prompt that embeds a resource",
		Arguments: []*mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: mcp.RoleUser, Content: &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: req.Params.Arguments["resourceUri"], MIMEType: "text/plain", Text: promptResourceText,
			}}},
			{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Please process the embedded resource above."}},
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt that includes an image"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: mcp.RoleUser, Content: &mcp.ImageContent{Data: pngBytes, MIMEType: "image/png"}},
				{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: promptImageText}},
			}}, nil
		})
}

// completionCandidates are the values offered for each completable argument, keyed by
// reference ("prompt:<name>" or "resource:<uri template>") and argument name.
var completionCandidates = map[string]map[string][]string{
	"prompt:test_prompt_with_arguments": {
		"arg1": {"test", "testValue1", "testing", "example"},
		"arg2": {"test", "testValue2", "testing", "sample"},
	},
	"resource:test://template/{id}/data": {
		"id": {"1", "2", "3", "123"},
	},
}

// complete answers completion/complete with the candidates that start with what the
// user typed.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	if p.Ref == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "completion/complete: ref is required")
	}
	var key string
	switch p.Ref.Type {
	case "ref/prompt":
		key = "prompt:" + p.Ref.Name
	case "ref/resource":
		key = "resource:" + p.Ref.URI
	default:
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "completion/complete: unknown reference type %q", p.Ref.Type)
	}
	args, ok := completionCandidates[key]
	if !ok {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "completion/complete: nothing to complete for %s", key)
	}
	values := []string{}
	for _, v := range args[p.Argument.Name] {
		if strings.HasPrefix(v, p.Argument.Value) {
			values = append(values, v)
		}
	}
	total := len(values)
	return &mcp.CompleteResult{Completion: mcp.Completion{Values: values, Total: &total}}, nil
}
