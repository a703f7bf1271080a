package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wiremcp/wiremcp/mcp"
)

// The fixtures of the 2026-07-28 server scenarios (official-suite.md §3). Every
// handler here is written once for both eras: req.Session.Input (and Elicit) sends
// elicitation/create, sampling/createMessage and roots/list to an initialize-era
// client during the call, and answers a 2026-07-28 client with an input_required
// result that the client retries with its answers.

// Requested schemas and prompts of the input_required fixtures; the suite's scenarios
// and the Go tests in this directory compare them exactly.
const (
	nameSchema    = `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	okSchema      = `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`
	colorSchema   = `{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`
	contextSchema = `{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`

	capitalQuestion = "What is the capital of France?"
	greetingRequest = "Generate a greeting"
)

// headerToolSchema is the input schema of test_header_params: region is mirrored into
// the Mcp-Param-Region HTTP header (x-mcp-header), query is not.
const headerToolSchema = `{"type":"object","properties":{` +
	`"region":{"type":"string","description":"Region to query; travels in the Mcp-Param-Region header too","x-mcp-header":"Region"},` +
	`"query":{"type":"string","description":"Free text, body only"}},` +
	`"required":["region"]}`

// resourceUpdateSchema is the input schema of test_trigger_resource_update.
const resourceUpdateSchema = `{"type":"object","properties":{` +
	`"uri":{"type":"string","description":"The resource that changed (default test://watched-resource)"}}}`

// elicit, sample and roots build the InputRequests of the fixtures.
func elicit(message, schema string) mcp.InputRequest {
	return mcp.ElicitInput(&mcp.ElicitParams{Message: message, RequestedSchema: json.RawMessage(schema)})
}

func sample(text string, maxTokens int64) mcp.InputRequest {
	return mcp.SamplingInput(&mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: text}}}},
		MaxTokens: maxTokens,
	})
}

// addModernTools registers the tools of the 2026-07-28 scenarios. They are listed
// after the older fixtures, so that a no-argument tool stays first in tools/list.
func addModernTools(s *mcp.Server) {
	tool := func(name, desc, schema string, h mcp.ToolHandler) {
		s.AddTool(&mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)}, h)
	}
	tool("test_missing_capability", "Needs the sampling capability; fails with -32021 when the request did not declare it", noArgs,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Session.ClientCapabilitiesFor(ctx).Sampling == nil {
				return nil, mcp.MissingClientCapabilityError(&mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}})
			}
			return mcp.TextResult("The client declared sampling"), nil
		})
	tool("test_streaming_elicitation", "Asks the user for a name while the call is in flight (elicitation, or input_required under 2026-07-28)", noArgs,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "What is your name?", RequestedSchema: json.RawMessage(nameSchema)})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(greet(res)), nil
		})
	tool("test_logging_tool", "Logs three info messages; under 2026-07-28 they are sent only when the request carries a log level", noArgs, loggingTool)
	addTriggerToolChange(s)
	tool("test_trigger_prompt_change", "Changes the prompt list (re-registers test_simple_prompt), so clients are sent notifications/prompts/list_changed", noArgs,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			addSimplePrompt(s)
			return mcp.TextResult("The prompt list changed"), nil
		})
	tool("test_trigger_resource_list_change", "Changes the resource list (re-registers test://watched-resource), so clients are sent notifications/resources/list_changed", noArgs,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			addWatchedResource(s)
			return mcp.TextResult("The resource list changed"), nil
		})
	tool("test_trigger_resource_update", "Announces an update of a resource (uri, default test://watched-resource) to the sessions and listen streams subscribed to it", resourceUpdateSchema,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				URI string `json:"uri"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			if in.URI == "" {
				in.URI = "test://watched-resource"
			}
			s.ResourceUpdated(ctx, in.URI)
			return mcp.TextResult("Updated " + in.URI), nil
		})
	tool("test_input_required_result_elicitation", "Asks the user's name (user_name) and greets them", noArgs,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in, err := req.Session.Input(ctx, map[string]mcp.InputRequest{"user_name": elicit("What is your name?", nameSchema)})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(greet(answer(in.Elicit("user_name")))), nil
		})
	tool("test_input_required_result_sampling", "Asks the client's model a question (capital_question) and reports the answer", noArgs,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in, err := req.Session.Input(ctx, map[string]mcp.InputRequest{"capital_question": sample(capitalQuestion, 100)})
			if err != nil {
				return nil, err
			}
			res, err := in.Sampling("capital_question")
			if err != nil {
				return nil, err
			}
			return mcp.TextResult("The model answered: " + samplingText(res)), nil
		})
	tool("test_input_required_result_list_roots", "Asks for the client's roots (client_roots) and lists them", noArgs,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in, err := req.Session.Input(ctx, map[string]mcp.InputRequest{"client_roots": mcp.RootsInput()})
			if err != nil {
				return nil, err
			}
			res, err := in.Roots("client_roots")
			if err != nil {
				return nil, err
			}
			return mcp.TextResult("Client roots: " + rootList(res)), nil
		})
	tool("test_input_required_result_request_state", "Asks for a confirmation (confirm); the state of the round trip travels in requestState", noArgs,
		confirmTool("state-ok"))
	tool("test_input_required_result_tampered_state", "Asks for a confirmation (confirm) under an HMAC-protected requestState; a tampered state is refused", noArgs,
		confirmTool("state verified"))
	tool("test_input_required_result_multiple_inputs", "Asks for a name, a model greeting and the client's roots in one round", noArgs,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in, err := req.Session.Input(ctx, map[string]mcp.InputRequest{
				"user_name":    elicit("What is your name?", nameSchema),
				"greeting":     sample(greetingRequest, 50),
				"client_roots": mcp.RootsInput(),
			})
			if err != nil {
				return nil, err
			}
			g, err := in.Sampling("greeting")
			if err != nil {
				return nil, err
			}
			roots, err := in.Roots("client_roots")
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(fmt.Sprintf("%s Greeting: %s Roots: %s",
				greet(answer(in.Elicit("user_name"))), samplingText(g), rootList(roots))), nil
		})
	tool("test_input_required_result_multi_round", "Asks for a name, then (in a second round) a favourite colour", noArgs,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			in1, err := req.Session.Input(ctx, map[string]mcp.InputRequest{"step1": elicit("Step 1: What is your name?", nameSchema)})
			if err != nil {
				return nil, err
			}
			name := field(answer(in1.Elicit("step1")), "name")
			in2, err := req.Session.Input(ctx, map[string]mcp.InputRequest{"step2": elicit("Step 2: What is your favorite color?", colorSchema)})
			if err != nil {
				return nil, err
			}
			color := field(answer(in2.Elicit("step2")), "color")
			return mcp.TextResult(fmt.Sprintf("%s likes %s", name, color)), nil
		})
	tool("test_input_required_result_capabilities", "Asks only for what the request's client capabilities allow (elicitation, sampling, roots)", noArgs,
		capabilitiesTool)
	tool("test_header_params", "Echoes its region and query; region is mirrored in the Mcp-Param-Region header (x-mcp-header)", headerToolSchema,
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Region string `json:"region"`
				Query  string `json:"query"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return mcp.TextResult(fmt.Sprintf("region=%q query=%q", in.Region, in.Query)), nil
		})
}

// addTriggerToolChange registers test_trigger_tool_change, which registers itself
// again when called: the tool list changes (same tools, new registration), and
// clients are told.
func addTriggerToolChange(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "test_trigger_tool_change",
		Description: "Changes the tool list (re-registers itself), so clients are sent notifications/tools/list_changed",
		InputSchema: json.RawMessage(noArgs)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			addTriggerToolChange(s)
			return mcp.TextResult("The tool list changed"), nil
		})
}

// addModernPrompts registers the prompts of the 2026-07-28 scenarios.
func addModernPrompts(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "Asks the user for context (user_context) before rendering"},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			in, err := req.Session.Input(ctx, map[string]mcp.InputRequest{
				"user_context": elicit("Please provide context for the prompt", contextSchema),
			})
			if err != nil {
				return nil, err
			}
			text := "No context was given."
			if res := answer(in.Elicit("user_context")); res != nil && res.Action == "accept" {
				text = "Context: " + field(res, "context")
			}
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: text}}}}, nil
		})
}

// confirmTool asks for a confirmation under the key confirm and reports it with tag.
func confirmTool(tag string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, err := req.Session.Input(ctx, map[string]mcp.InputRequest{"confirm": elicit("Please confirm to continue", okSchema)})
		if err != nil {
			return nil, err
		}
		res := answer(in.Elicit("confirm"))
		ok := res != nil && res.Action == "accept" && res.Content["ok"] == true
		return mcp.TextResult(fmt.Sprintf("%s: confirmed=%t", tag, ok)), nil
	}
}

// capabilitiesTool asks for each kind of input the request's client declared it can
// give, and nothing else.
func capabilitiesTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	caps := req.Session.ClientCapabilitiesFor(ctx)
	reqs := map[string]mcp.InputRequest{}
	if caps.Elicitation != nil {
		reqs["user_name"] = elicit("What is your name?", nameSchema)
	}
	if caps.Sampling != nil {
		reqs["capital_question"] = sample(capitalQuestion, 100)
	}
	if caps.Roots != nil {
		reqs["client_roots"] = mcp.RootsInput()
	}
	if len(reqs) == 0 {
		return nil, mcp.MissingClientCapabilityError(&mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}})
	}
	in, err := req.Session.Input(ctx, reqs)
	if err != nil {
		return nil, err
	}
	return mcp.TextResult("Answered: " + strings.Join(in.Keys(), ", ")), nil
}

// answer drops the decoding error of an elicitation answer (the library validated
// its shape already): nil means no usable answer.
func answer(res *mcp.ElicitResult, err error) *mcp.ElicitResult {
	if err != nil {
		return nil
	}
	return res
}

// field returns a string field of an accepted elicitation, or "".
func field(res *mcp.ElicitResult, name string) string {
	if res == nil || res.Action != "accept" {
		return ""
	}
	s, _ := res.Content[name].(string)
	return s
}

// greet greets the user whose name an elicitation returned.
func greet(res *mcp.ElicitResult) string {
	if res == nil || res.Action != "accept" {
		action := "no answer"
		if res != nil {
			action = res.Action
		}
		return "The user did not give a name (" + action + ")."
	}
	return "Hello, " + field(res, "name") + "!"
}

// samplingText joins the text blocks of a sampling answer.
func samplingText(res *mcp.CreateMessageResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// rootList lists the URIs of a roots answer.
func rootList(res *mcp.ListRootsResult) string {
	uris := make([]string, 0, len(res.Roots))
	for _, r := range res.Roots {
		uris = append(uris, r.URI)
	}
	if len(uris) == 0 {
		return "(none)"
	}
	return strings.Join(uris, ", ")
}
