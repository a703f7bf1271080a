package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/stdio"
)

// The test binary doubles as the upstream stdio MCP server of the tests: with
// GATEWAY_TEST_UPSTREAM=1 in its environment it serves testUpstream on stdin/stdout.
func TestMain(m *testing.M) {
	if os.Getenv("GATEWAY_TEST_UPSTREAM") == "1" {
		os.Exit(testUpstream())
	}
	if len(os.Args) > 1 && os.Args[1] == "demo-upstream" {
		// The demo configuration runs its own executable this way.
		os.Exit(demoUpstream())
	}
	code := m.Run()
	removeExampleBuilds()
	os.Exit(code)
}

// upstreamCommand is the mcp.command of a config that runs the test upstream.
func upstreamCommand(t testing.TB) []string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}
}

func testUpstream() int {
	s := newTestUpstream()
	fmt.Fprintln(os.Stderr, "upstream: started")
	if err := s.Run(context.Background(), stdio.Stdio()); err != nil {
		return 1
	}
	return 0
}

// newTestUpstream is the test upstream's server.
func newTestUpstream() *mcp.Server {
	s := mcp.NewServer(mcp.Implementation{Name: "test-upstream", Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler: func(ctx context.Context, ss *mcp.ServerSession, uri string) error { return nil },
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			return &mcp.CompleteResult{Completion: mcp.Completion{Values: []string{"alpha", "beta"}}}, nil
		},
	})
	type msg struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the message back."},
		func(ctx context.Context, req *mcp.CallToolRequest, in msg) (*mcp.CallToolResult, any, error) {
			return mcp.TextResult(in.Message), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "The upstream's process id."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return mcp.TextResult(fmt.Sprint(os.Getpid())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Reports progress three times."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			total := 3.0
			for i := 1; i <= 3; i++ {
				_ = req.Session.NotifyProgress(ctx, float64(i), &total, fmt.Sprintf("step %d", i))
			}
			return mcp.TextResult("done"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "log", Description: "Logs a message at warning level."},
		func(ctx context.Context, req *mcp.CallToolRequest, in msg) (*mcp.CallToolResult, any, error) {
			_ = req.Session.Log(ctx, mcp.LevelWarning, "test", in.Message)
			return mcp.TextResult("logged"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "log_later", Description: "Logs the message after answering, outside any request."},
		func(ctx context.Context, req *mcp.CallToolRequest, in msg) (*mcp.CallToolResult, any, error) {
			ss := req.Session
			go func() {
				time.Sleep(50 * time.Millisecond)
				_ = ss.Log(context.Background(), mcp.LevelInfo, "later", in.Message)
			}()
			return mcp.TextResult("will log"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "roots", Description: "Lists the client's roots."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.ListRoots(ctx)
			if err != nil {
				return mcp.ErrorResult("%v", err), nil, nil
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return mcp.TextResult(strings.Join(uris, " ")), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Asks the user for a name."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return nil, nil, err
			}
			return mcp.TextResult(fmt.Sprintf("%s %v", res.Action, res.Content["name"])), nil, nil
		})
	type afterArgs struct {
		MS int `json:"ms"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "ask_after", Description: "Waits ms milliseconds, then asks the user for a name."},
		func(ctx context.Context, req *mcp.CallToolRequest, in afterArgs) (*mcp.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
			}
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return nil, nil, err
			}
			return mcp.TextResult(fmt.Sprintf("%s %v", res.Action, res.Content["name"])), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "Asks the client's model."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: mcp.RoleUser, Content: []mcp.Content{&mcp.TextContent{Text: "hi"}}}}})
			if err != nil {
				return nil, nil, err
			}
			text := ""
			if len(res.Content) > 0 {
				if tc, ok := res.Content[0].(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			return mcp.TextResult("model said: " + text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "Waits until cancelled (at most a minute)."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(time.Minute):
				return mcp.TextResult("not cancelled"), nil, nil
			}
		})
	type waitArgs struct {
		MS int `json:"ms"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Answers after ms milliseconds unless cancelled."},
		func(ctx context.Context, req *mcp.CallToolRequest, in waitArgs) (*mcp.CallToolResult, any, error) {
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
				return mcp.TextResult("waited"), nil, nil
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Writes to stderr and exits."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "upstream: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "stderr", Description: "Writes a line to stderr."},
		func(ctx context.Context, req *mcp.CallToolRequest, in msg) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "upstream: "+in.Message)
			return mcp.TextResult("written"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "touch", Description: "Says demo://note changed."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			s.ResourceUpdated(ctx, "demo://note")
			return mcp.TextResult("touched"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "relist", Description: "Registers itself again (tools/list_changed)."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			s.AddTool(&mcp.Tool{Name: "added", Description: "Added by relist.", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.TextResult("added"), nil
				})
			return mcp.TextResult("relisted"), nil, nil
		})
	s.AddResource(&mcp.Resource{URI: "demo://note", Name: "note", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "demo://note", MIMEType: "text/plain", Text: "a note"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "hello", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["who"]}}}}, nil
		})
	return s
}
