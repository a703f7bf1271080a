package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// The fixtures of the tasks extension scenarios (tasks-*; official-suite.md §3.5).
// Tasks are on for the whole server (ServerOptions.Tasks): under 2025-11-25 they are
// the experimental tasks capability, under 2026-07-28 the io.modelcontextprotocol/tasks
// extension, and in both the tools below say whether they may run as one.

// taskOptions turns tasks on. test_tool_with_task gathers its input in multi
// round-trip rounds before it becomes a task, so its calls are deferred: the handler
// decides when to start the task.
func taskOptions() *mcp.TaskOptions {
	return &mcp.TaskOptions{
		MaxConcurrent: 32,
		PollInterval:  200 * time.Millisecond,
		Defer: func(_ context.Context, req *mcp.CallToolRequest) bool {
			return req.Params.Name == "test_tool_with_task"
		},
	}
}

// maxComputeSeconds bounds how long slow_compute may be asked to run.
const maxComputeSeconds = 120

// addTaskTools registers the task fixtures.
func addTaskTools(s *mcp.Server) {
	tool := func(name, desc, support, schema string, h mcp.ToolHandler) {
		t := &mcp.Tool{Name: name, Description: desc, InputSchema: json.RawMessage(schema)}
		if support != "" {
			t.Execution = &mcp.ToolExecution{TaskSupport: support}
		}
		s.AddTool(t, h)
	}
	tool("greet", "Greets someone at once (never runs as a task)", "",
		`{"type":"object","properties":{"name":{"type":"string","description":"Who to greet"}},"required":["name"]}`,
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return mcp.TextResult("Hello, " + in.Name + "!"), nil
		})
	tool("slow_compute", "Computes for the given number of seconds; may run as a task", mcp.TaskSupportOptional,
		`{"type":"object","properties":{"seconds":{"type":"number","minimum":0,"maximum":120,"description":"How long to compute"},`+
			`"label":{"type":"string","description":"A name for the computation"}},"required":["seconds"]}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Seconds float64 `json:"seconds"`
				Label   string  `json:"label"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			if err := pause(ctx, time.Duration(min(in.Seconds, maxComputeSeconds)*float64(time.Second))); err != nil {
				return nil, err
			}
			return mcp.TextResult(fmt.Sprintf("Computed %q in %gs", in.Label, in.Seconds)), nil
		})
	tool("failing_job", "A job that must run as a task and ends with a tool error", mcp.TaskSupportRequired, noArgs,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.ErrorResult("The job failed, as it always does"), nil
		})
	tool("protocol_error_job", "A job that must run as a task and ends with a protocol error", mcp.TaskSupportRequired, noArgs,
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "the job crashed, as it always does")
		})
	tool("confirm_delete", "Asks the user to confirm before deleting a file (as a task, it waits for tasks/update)", mcp.TaskSupportOptional,
		`{"type":"object","properties":{"filename":{"type":"string","description":"The file to delete"}},"required":["filename"]}`,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Filename string `json:"filename"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			res, err := req.Session.Input(ctx, map[string]mcp.InputRequest{"confirm": elicit("Delete "+in.Filename+"?",
				`{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)})
			if err != nil {
				return nil, err
			}
			if a := answer(res.Elicit("confirm")); a != nil && a.Action == "accept" && a.Content["confirm"] == true {
				return mcp.TextResult("Deleted " + in.Filename + " (pretend)"), nil
			}
			return mcp.TextResult("Kept " + in.Filename), nil
		})
	tool("multi_input", "Asks for two answers at once (as a task, each arrives with tasks/update)", mcp.TaskSupportOptional, noArgs,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Input(ctx, map[string]mcp.InputRequest{
				"first_name": elicit("What is your first name?", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
				"last_name":  elicit("What is your last name?", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
			})
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(strings.TrimSpace(field(answer(res.Elicit("first_name")), "name") + " " + field(answer(res.Elicit("last_name")), "name"))), nil
		})
	tool("test_tool_with_task", "Asks for a name in a multi round-trip round, then finishes as a task", mcp.TaskSupportRequired, noArgs,
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Input(ctx, map[string]mcp.InputRequest{"user_name": elicit("What is your name?", nameSchema)})
			if err != nil {
				return nil, err
			}
			// Then the rest runs as a task; where no task is possible (an
			// initialize-era client, say) the call simply finishes.
			if err := req.Session.StartTask(ctx); err != nil && !errors.Is(err, mcp.ErrTaskUnavailable) {
				return nil, err
			}
			if err := pause(ctx, 100*time.Millisecond); err != nil {
				return nil, err
			}
			return mcp.TextResult(greet(answer(res.Elicit("user_name")))), nil
		})
}
