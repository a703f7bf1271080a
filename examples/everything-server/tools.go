package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// noArgs is the input schema of the tools that take no arguments.
const noArgs = `{"type":"object","properties":{}}`

// jsonSchema202012 is the input schema of json_schema_2020_12_tool, byte for byte what
// the suite's json-schema-2020-12 scenario expects to see listed.
const jsonSchema202012 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`

// Requested schemas of the elicitation tools.
const (
	userInfoSchema = `{"type":"object","properties":{` +
		`"username":{"type":"string","description":"Your username"},` +
		`"email":{"type":"string","description":"Your email address","format":"email"}},` +
		`"required":["username","email"]}`

	// sep1034Schema gives every primitive type a default (SEP-1034).
	sep1034Schema = `{"type":"object","properties":{` +
		`"name":{"type":"string","description":"User name","default":"John Doe"},` +
		`"age":{"type":"integer","description":"User age","default":30},` +
		`"score":{"type":"number","description":"User score","default":95.5},` +
		`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
		`"verified":{"type":"boolean","description":"Verification status","default":true}},` +
		`"required":[]}`

	// sep1330Schema uses each enum form of SEP-1330: untitled and titled single
	// select, the legacy enumNames form, and untitled and titled multi-select.
	sep1330Schema = `{"type":"object","properties":{` +
		`"untitledSingle":{"type":"string","description":"Untitled single-select","enum":["option1","option2","option3"]},` +
		`"titledSingle":{"type":"string","description":"Titled single-select","oneOf":[` +
		`{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
		`"legacyEnum":{"type":"string","description":"Legacy titled enum","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},` +
		`"untitledMulti":{"type":"array","description":"Untitled multi-select","items":{"type":"string","enum":["option1","option2","option3"]}},` +
		`"titledMulti":{"type":"array","description":"Titled multi-select","items":{"anyOf":[` +
		`{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},` +
		`"required":[]}`
)

// stepDelay separates the notifications of the progress and logging tools, so that a
// client sees them arrive one by one while the call runs.
const stepDelay = 50 * time.Millisecond

// addTools registers every fixture tool.
func addTools(s *mcp.Server) {
	tool := func(name, desc, schema string, h mcp.ToolHandler) {
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)}, h)
	}
	tool("test_simple_text", "Returns a simple text response", noArgs,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult(simpleText), nil
		})
	tool("test_image_content", "Returns an image (a 1x1 red PNG)", noArgs,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: pngBytes, MIMEType: "image/png"}}}, nil
		})
	tool("test_audio_content", "Returns audio (a short WAV file)", noArgs,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: wavBytes, MIMEType: "audio/wav"}}}, nil
		})
	tool("test_embedded_resource", "Returns an embedded text resource", noArgs,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: embeddedText,
			}}}}, nil
		})
	tool("test_multiple_content_types", "Returns text, an image and an embedded resource", noArgs,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: mixedIntro},
				&mcp.ImageContent{Data: pngBytes, MIMEType: "image/png"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
					URI: "test://mixed-content-resource", MIMEType: "application/json", Text: mixedResourceJSON,
				}},
			}}, nil
		})
	tool("test_error_handling", "Always fails with a tool error (isError: true)", noArgs,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.ErrorResult("%s", errorText), nil
		})
	tool("test_tool_with_progress", "Reports progress three times (0, 50, 100 of 100) while it runs", noArgs, progressTool)
	tool("test_tool_with_logging", "Sends three info log messages while it runs", noArgs, loggingTool)
	tool("test_sampling", "Asks the client's model to answer a prompt (sampling)",
		`{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the model"}},"required":["prompt"]}`,
		samplingTool)
	tool("test_elicitation", "Asks the user for a username and an email address (elicitation)",
		`{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}`,
		elicitationTool)
	tool("test_elicitation_sep1034_defaults", "Elicits a form whose fields all have default values (SEP-1034)", noArgs,
		elicitWith("Please review and update the form fields with defaults", sep1034Schema))
	tool("test_elicitation_sep1330_enums", "Elicits a form with every enum form (SEP-1330)", noArgs,
		elicitWith("Please select options from the enum fields", sep1330Schema))
	tool("test_reconnection", "Closes its SSE stream before answering; the result arrives when the client resumes the stream", noArgs, reconnectionTool)
	tool("json_schema_2020_12_tool", "Takes arguments described with JSON Schema 2020-12 keywords", jsonSchema202012,
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args := string(req.Params.Arguments)
			if args == "" {
				args = "{}"
			}
			return mcp.TextResult("Schema validated arguments: " + args), nil
		})
}

// pause waits d, or less if ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func progressTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	total := 100.0
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, stepDelay); err != nil {
				return nil, err
			}
		}
		if err := req.Session.NotifyProgress(ctx, p, &total, fmt.Sprintf("Completed step %d of 3", i+1)); err != nil {
			return nil, err
		}
	}
	return mcp.TextResult("Progress test completed"), nil
}

func loggingTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, stepDelay); err != nil {
				return nil, err
			}
		}
		if err := req.Session.Log(ctx, mcp.LevelInfo, "everything-server", msg); err != nil {
			return nil, err
		}
	}
	return mcp.TextResult("Logging test completed"), nil
}

func samplingTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: in.Prompt}}}},
		MaxTokens: 100,
	})
	if err != nil {
		return nil, err
	}
	var text []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			text = append(text, t.Text)
		}
	}
	return mcp.TextResult("LLM response: " + strings.Join(text, "\n")), nil
}

func elicitationTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	return elicitWith(in.Message, userInfoSchema)(ctx, req)
}

// elicitWith returns a tool handler that elicits a form and reports the answer.
func elicitWith(message, schema string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: message, RequestedSchema: json.RawMessage(schema)})
		if err != nil {
			return nil, err
		}
		content, err := json.Marshal(res.Content)
		if err != nil {
			return nil, err
		}
		return mcp.TextResult(fmt.Sprintf("User response: action=%s, content=%s", res.Action, content)), nil
	}
}

// reconnectionTool ends the HTTP response of its own SSE stream before answering
// (SEP-1699): the client resumes with GET and Last-Event-ID and gets the result
// there. On transports without resumable streams it simply answers.
func reconnectionTool(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if streamable.CloseSSEStream(ctx) {
		return mcp.TextResult("Reconnection test completed: the result was delivered on the resumed stream"), nil
	}
	return mcp.TextResult("Reconnection test completed (this transport has no resumable stream to close)"), nil
}
