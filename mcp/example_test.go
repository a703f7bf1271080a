package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// connect serves s over an in-process pipe and connects a client with opts.
func connect(s *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, func()) {
	a, b := memory.NewPair()
	ss, _ := s.Connect(context.Background(), a)
	cs, err := mcp.NewClient(mcp.Implementation{Name: "example-client", Version: "1.0.0"}, opts).Connect(context.Background(), b)
	if err != nil {
		panic(err)
	}
	return cs, func() { cs.Close(); ss.Close() }
}

// A minimal server with one tool, one resource and one prompt.
func Example_minimalServer() {
	s := mcp.NewServer(mcp.Implementation{Name: "minimal", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.TextResult("hello, world"), nil
		})
	s.AddResource(&mcp.Resource{URI: "note://today", Name: "today", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "buy milk"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "summarize", Arguments: []*mcp.PromptArgument{{Name: "text", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser,
				Content: &mcp.TextContent{Text: "Summarize: " + req.Params.Arguments["text"]}}}}, nil
		})

	cs, done := connect(s, nil)
	defer done()
	ctx := context.Background()
	r, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello"})
	fmt.Println(r.Content[0].(*mcp.TextContent).Text)
	rr, _ := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "note://today"})
	fmt.Println(rr.Contents[0].Text)
	p, _ := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"text": "MCP"}})
	fmt.Println(p.Messages[0].Content.(*mcp.TextContent).Text)
	// Output:
	// hello, world
	// buy milk
	// Summarize: MCP
}

// Weather is the typed tool's input: the schema is derived from the struct.
type Weather struct {
	City  string `json:"city" description:"City name"`
	Units string `json:"units,omitempty" mcp:"enum=metric|imperial;default=metric"`
}

// Forecast is the typed tool's output: results carry it as structuredContent.
type Forecast struct {
	City    string  `json:"city"`
	Celsius float64 `json:"celsius"`
}

// A typed tool: arguments are validated before the handler runs, and the output is
// sent as structuredContent plus the same JSON as text.
func ExampleAddTool() {
	s := mcp.NewServer(mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "forecast"},
		func(ctx context.Context, req *mcp.CallToolRequest, in Weather) (*mcp.CallToolResult, Forecast, error) {
			return nil, Forecast{City: in.City, Celsius: 21.5}, nil
		})
	cs, done := connect(s, nil)
	defer done()
	ctx := context.Background()
	r, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: json.RawMessage(`{"city":"Lisbon"}`)})
	fmt.Println(r.Content[0].(*mcp.TextContent).Text)
	r, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: json.RawMessage(`{"city":"Lisbon","units":"kelvin"}`)})
	fmt.Println(r.IsError)
	// Output:
	// {"city":"Lisbon","celsius":21.5}
	// true
}

// Elicitation: a tool asks the user for missing input through the client.
func ExampleServerSession_Elicit() {
	s := mcp.NewServer(mcp.Implementation{Name: "booking", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "book"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			answer, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message:         "How many seats?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"seats":{"type":"integer","minimum":1}},"required":["seats"]}`),
			})
			if errors.Is(err, mcp.ErrCapabilityNotSupported) {
				return mcp.ErrorResult("please pass the number of seats"), nil, nil
			} else if err != nil {
				return nil, nil, err
			}
			return mcp.TextResult(fmt.Sprintf("%s: %v seats", answer.Action, answer.Content["seats"])), nil, nil
		})
	cs, done := connect(s, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"seats": 2}}, nil
		},
	})
	defer done()
	r, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "book"})
	fmt.Println(r.Content[0].(*mcp.TextContent).Text)
	// Output:
	// accept: 2 seats
}

// Progress: the client asks for progress with WithProgress; the handler reports it.
func ExampleWithProgress() {
	s := mcp.NewServer(mcp.Implementation{Name: "worker", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "work"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			total := 2.0
			for i := 1; i <= 2; i++ {
				req.Session.NotifyProgress(ctx, float64(i), &total, fmt.Sprintf("step %d", i))
			}
			return mcp.TextResult("done"), nil, nil
		})
	cs, done := connect(s, nil)
	defer done()
	ctx := mcp.WithProgress(context.Background(), func(p *mcp.ProgressNotificationParams) {
		fmt.Printf("%v/%v %s\n", p.Progress, *p.Total, p.Message)
	})
	r, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "work"})
	fmt.Println(r.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 1/2 step 1
	// 2/2 step 2
	// done
}

// Cancellation: cancelling the call's context tells the server, whose handler sees
// its own context end.
func Example_cancellation() {
	s := mcp.NewServer(mcp.Implementation{Name: "slow", Version: "1.0.0"}, nil)
	started, stopped := make(chan struct{}), make(chan struct{})
	mcp.AddTool(s, &mcp.Tool{Name: "slow"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			close(started)
			<-ctx.Done()
			close(stopped)
			return nil, nil, ctx.Err()
		})
	cs, done := connect(s, nil)
	defer done()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow"})
	<-stopped
	fmt.Println(errors.Is(err, context.Canceled))
	// Output:
	// true
}
