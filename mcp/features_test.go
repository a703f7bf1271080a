package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

func resourceServer() *Server {
	s := NewServer(Implementation{Name: "res", Version: "1"}, &ServerOptions{
		CompletionHandler: func(ctx context.Context, req *CompleteRequest) (*CompleteResult, error) {
			var vals []string
			for i := range 150 {
				v := fmt.Sprintf("%s%03d", req.Params.Argument.Value, i)
				vals = append(vals, v)
			}
			return &CompleteResult{Completion: Completion{Values: vals}}, nil
		},
	})
	s.AddResource(&Resource{URI: "test://static", Name: "static", MIMEType: "text/plain"},
		func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
			return &ReadResourceResult{Contents: []*ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "hello"}}}, nil
		})
	s.AddResource(&Resource{URI: "test://blob", Name: "blob"},
		func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
			return &ReadResourceResult{Contents: []*ResourceContents{{URI: req.Params.URI, MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2, 255}}}}, nil
		})
	s.AddResourceTemplate(&ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"},
		func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
			if req.Vars["id"] == "missing" {
				return nil, fmt.Errorf("%w: no item %q; items are numbered, try test://items/1", ErrResourceNotFound, req.Vars["id"])
			}
			return &ReadResourceResult{Contents: []*ResourceContents{{URI: req.Params.URI, Text: "item " + req.Vars["id"]}}}, nil
		})
	s.AddPrompt(&Prompt{Name: "greet", Arguments: []*PromptArgument{{Name: "name", Required: true}, {Name: "style"}}},
		func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error) {
			return &GetPromptResult{Messages: []*PromptMessage{
				{Role: RoleUser, Content: &TextContent{Text: "Greet " + req.Params.Arguments["name"]}},
				{Role: RoleUser, Content: &EmbeddedResource{Resource: &ResourceContents{URI: "test://static", Text: "hello"}}},
				{Role: RoleUser, Content: &ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"}},
			}}, nil
		})
	return s
}

func TestResources(t *testing.T) {
	cs, _ := pair(t, resourceServer(), nil)
	ctx := testCtx(t)
	var uris []string
	for r, err := range cs.Resources(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	// Registration order, not alphabetical.
	diff(t, []string{"test://static", "test://blob"}, uris)
	tl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "test://items/{id}", tl.ResourceTemplates[0].URITemplate)

	r, err := cs.ReadResource(ctx, &ReadResourceParams{URI: "test://static"})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "hello", r.Contents[0].Text)
	r, err = cs.ReadResource(ctx, &ReadResourceParams{URI: "test://blob"})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, []byte{0, 1, 2, 255}, r.Contents[0].Blob)
	r, err = cs.ReadResource(ctx, &ReadResourceParams{URI: "test://items/42"})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "item 42", r.Contents[0].Text)
	for _, uri := range []string{"test://nope", "test://items/missing", "test://items/a/b"} {
		_, err = cs.ReadResource(ctx, &ReadResourceParams{URI: uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != CodeResourceNotFound || !IsResourceNotFound(err) {
			t.Errorf("%s: err = %v, want -32002", uri, err)
		}
		// The message is the standard one; data holds the URI, the handler's
		// explanation when it gave one, and the server's templates.
		want := `{"templates":["test://items/{id}"],"uri":"` + uri + `"}`
		if uri == "test://items/missing" {
			want = `{"detail":"no item \"missing\"; items are numbered, try test://items/1","templates":["test://items/{id}"],"uri":"test://items/missing"}`
		}
		if je != nil && (je.Message != "Resource not found" || string(je.Data) != want) {
			t.Errorf("%s: message %q data %s, want data %s", uri, je.Message, je.Data, want)
		}
	}
}

func TestResourceSubscriptions(t *testing.T) {
	s := resourceServer()
	updates := make(chan string, 10)
	cs, _ := pair(t, s, &ClientOptions{ResourceUpdatedHandler: func(ctx context.Context, cs *ClientSession, p *ResourceUpdatedParams) {
		updates <- p.URI
	}})
	ctx := testCtx(t)
	if err := cs.Subscribe(ctx, &SubscribeParams{URI: "test://static"}); err != nil {
		t.Fatal(err)
	}
	s.ResourceUpdated(ctx, "test://blob") // not subscribed: nothing
	s.ResourceUpdated(ctx, "test://static")
	diff(t, "test://static", <-updates)
	if err := cs.Unsubscribe(ctx, &SubscribeParams{URI: "test://static"}); err != nil {
		t.Fatal(err)
	}
	s.ResourceUpdated(ctx, "test://static")
	if err := cs.Ping(ctx); err != nil { // anything sent before the ping's reply has arrived
		t.Fatal(err)
	}
	diff(t, 0, len(updates))
}

func TestPrompts(t *testing.T) {
	cs, _ := pair(t, resourceServer(), nil)
	ctx := testCtx(t)
	lp, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	diff(t, "greet", lp.Prompts[0].Name)
	gp, err := cs.GetPrompt(ctx, &GetPromptParams{Name: "greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, 3, len(gp.Messages))
	diff(t, &TextContent{Text: "Greet Ada"}, gp.Messages[0].Content)
	diff(t, "hello", gp.Messages[1].Content.(*EmbeddedResource).Resource.Text)
	diff(t, []byte{1, 2, 3}, gp.Messages[2].Content.(*ImageContent).Data)
	_, err = cs.GetPrompt(ctx, &GetPromptParams{Name: "greet"})
	if !errors.Is(err, jsonrpc.ErrInvalidParams) || !strings.Contains(err.Error(), "name") {
		t.Errorf("missing argument: err = %v", err)
	}
	_, err = cs.GetPrompt(ctx, &GetPromptParams{Name: "nope"})
	if !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("unknown prompt: err = %v", err)
	}
}

func TestCompletion(t *testing.T) {
	cs, _ := pair(t, resourceServer(), nil)
	ctx := testCtx(t)
	r, err := cs.Complete(ctx, &CompleteParams{Ref: &CompleteReference{Type: "ref/prompt", Name: "greet"},
		Argument: CompleteArgument{Name: "name", Value: "A"}, Context: &CompleteContext{Arguments: map[string]string{"style": "x"}}})
	if err != nil {
		t.Fatal(err)
	}
	diff(t, 100, len(r.Completion.Values))
	diff(t, true, r.Completion.HasMore)
	diff(t, 150, *r.Completion.Total)
	_, err = cs.Complete(ctx, &CompleteParams{Ref: &CompleteReference{Type: "ref/prompt", Name: "nope"}, Argument: CompleteArgument{Name: "x"}})
	if !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("unknown prompt: err = %v", err)
	}
	_, err = cs.Complete(ctx, &CompleteParams{Ref: &CompleteReference{Type: "ref/resource", URI: "test://items/{id}"}, Argument: CompleteArgument{Name: "id", Value: "4"}})
	if err != nil {
		t.Errorf("template completion: %v", err)
	}
}

func loggingServer(levels chan<- string) *Server {
	s := NewServer(Implementation{Name: "log", Version: "1"}, nil)
	AddTool(s, &Tool{Name: "log"}, func(ctx context.Context, req *CallToolRequest, in struct{}) (*CallToolResult, any, error) {
		for _, l := range []LoggingLevel{LevelDebug, LevelInfo, LevelWarning, LevelError, LevelEmergency} {
			if err := req.Session.Log(ctx, l, "test", map[string]any{"level": string(l)}); err != nil {
				return nil, nil, err
			}
		}
		return TextResult("done"), nil, nil
	})
	return s
}

func TestLoggingLevels(t *testing.T) {
	var mu sync.Mutex
	var got []string
	cs, _ := pair(t, loggingServer(nil), &ClientOptions{LoggingMessageHandler: func(ctx context.Context, cs *ClientSession, p *LoggingMessageParams) {
		mu.Lock()
		got = append(got, string(p.Level))
		mu.Unlock()
	}})
	ctx := testCtx(t)
	call := func() []string {
		mu.Lock()
		got = nil
		mu.Unlock()
		if _, err := cs.CallTool(ctx, &CallToolParams{Name: "log"}); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
	diff(t, []string{"debug", "info", "warning", "error", "emergency"}, call())
	if err := cs.SetLoggingLevel(ctx, LevelError); err != nil {
		t.Fatal(err)
	}
	diff(t, []string{"error", "emergency"}, call())
	err := cs.SetLoggingLevel(ctx, "loud")
	if !errors.Is(err, jsonrpc.ErrInvalidParams) {
		t.Errorf("bad level: err = %v", err)
	}
	diff(t, []string{"error", "emergency"}, call())
}

func TestProgress(t *testing.T) {
	s := NewServer(Implementation{Name: "p", Version: "1"}, nil)
	var lateErr error
	done := make(chan struct{})
	AddTool(s, &Tool{Name: "work"}, func(ctx context.Context, req *CallToolRequest, in struct{}) (*CallToolResult, any, error) {
		total := 3.0
		for i := 1; i <= 3; i++ {
			if err := req.Session.NotifyProgress(ctx, float64(i), &total, fmt.Sprintf("step %d", i)); err != nil {
				return nil, nil, err
			}
		}
		if err := req.Session.NotifyProgress(ctx, 2, &total, "backwards"); err == nil {
			return nil, nil, errors.New("decreasing progress was accepted")
		}
		go func() {
			defer close(done)
			<-ctx.Done() // never ends before the reply; check after the call instead
		}()
		return TextResult("ok"), nil, nil
	})
	var seen []float64
	var msgs []string
	cs, _ := pair(t, s, nil)
	ctx := testCtx(t)
	pctx := WithProgress(ctx, func(p *ProgressNotificationParams) {
		seen = append(seen, p.Progress)
		msgs = append(msgs, p.Message)
	})
	res, err := cs.CallTool(pctx, &CallToolParams{Name: "work"})
	if err != nil || res.IsError {
		t.Fatalf("res=%+v err=%v", res, err)
	}
	diff(t, []float64{1, 2, 3}, seen)
	diff(t, []string{"step 1", "step 2", "step 3"}, msgs)
	_ = lateErr
	// Without a progress token, no progress is sent (and NotifyProgress is a no-op).
	seen = nil
	if _, err := cs.CallTool(ctx, &CallToolParams{Name: "work"}); err != nil {
		t.Fatal(err)
	}
	diff(t, 0, len(seen))
}

func TestProgressTokenTypePreserved(t *testing.T) {
	s := NewServer(Implementation{Name: "p", Version: "1"}, nil)
	AddTool(s, &Tool{Name: "work"}, func(ctx context.Context, req *CallToolRequest, in struct{}) (*CallToolResult, any, error) {
		return TextResult("ok"), nil, req.Session.NotifyProgress(ctx, 0.5, nil, "")
	})
	for _, token := range []string{`"abc"`, `7`, `9007199254740993`} {
		w := rawPeer(t, s)
		w.initialize("2025-11-25")
		w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"work","_meta":{"progressToken":` + token + `}}}`)
		diff(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`+token+`,"progress":0.5}}`, w.recv())
		if got := w.recv(); !strings.Contains(got, `"id":1,"result"`) {
			t.Errorf("reply = %s", got)
		}
	}
}

func TestCancellationFromClient(t *testing.T) {
	s := NewServer(Implementation{Name: "c", Version: "1"}, nil)
	started := make(chan struct{})
	stopped := make(chan error, 1)
	AddTool(s, &Tool{Name: "slow"}, func(ctx context.Context, req *CallToolRequest, in struct{}) (*CallToolResult, any, error) {
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return nil, nil, ctx.Err()
	})
	cs, _ := pair(t, s, nil)
	ctx := testCtx(t)
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &CallToolParams{Name: "slow"})
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("call err = %v", err)
	}
	// The server handler saw its context cancelled by notifications/cancelled.
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("handler ctx err = %v", err)
	}
	if err := cs.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func elicitServer() *Server {
	s := NewServer(Implementation{Name: "e", Version: "1"}, nil)
	AddTool(s, &Tool{Name: "ask"}, func(ctx context.Context, req *CallToolRequest, in struct{}) (*CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &ElicitParams{Message: "Your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
		if err != nil {
			return nil, nil, err
		}
		if res.Action != "accept" {
			return TextResult("user chose " + res.Action), nil, nil
		}
		return TextResult(fmt.Sprint("hello ", res.Content["name"])), nil, nil
	})
	AddTool(s, &Tool{Name: "badschema"}, func(ctx context.Context, req *CallToolRequest, in struct{}) (*CallToolResult, any, error) {
		_, err := req.Session.Elicit(ctx, &ElicitParams{Message: "x",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"nested":{"type":"object","properties":{}}}}`)})
		return nil, nil, err
	})
	AddTool(s, &Tool{Name: "sample"}, func(ctx context.Context, req *CallToolRequest, in struct{}) (*CallToolResult, any, error) {
		r, err := req.Session.CreateMessage(ctx, &CreateMessageParams{MaxTokens: 10,
			Messages: []*SamplingMessage{{Role: RoleUser, Content: []Content{&TextContent{Text: "2+2?"}}}}})
		if err != nil {
			return nil, nil, err
		}
		return TextResult(r.Model + ": " + r.Content[0].(*TextContent).Text), nil, nil
	})
	AddTool(s, &Tool{Name: "roots"}, func(ctx context.Context, req *CallToolRequest, in struct{}) (*CallToolResult, any, error) {
		r, err := req.Session.ListRoots(ctx)
		if err != nil {
			return nil, nil, err
		}
		return TextResult(fmt.Sprint(len(r.Roots), " ", r.Roots[0].URI)), nil, nil
	})
	return s
}

func text(t *testing.T, r *CallToolResult, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return r.Content[0].(*TextContent).Text
}

func TestServerToClientRequests(t *testing.T) {
	action := "accept"
	cs, _ := pair(t, elicitServer(), &ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
			if action != "accept" {
				return &ElicitResult{Action: action}, nil
			}
			return &ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		SamplingHandler: func(ctx context.Context, req *CreateMessageRequest) (*CreateMessageResult, error) {
			return &CreateMessageResult{Role: RoleAssistant, Model: "m1", Content: []Content{&TextContent{Text: "4"}}}, nil
		},
		Roots: []*Root{{URI: "file:///tmp", Name: "tmp"}},
	})
	ctx := testCtx(t)
	call := func(name string) (*CallToolResult, error) { return cs.CallTool(ctx, &CallToolParams{Name: name}) }
	r, err := call("ask")
	diff(t, "hello Ada", text(t, r, err))
	action = "decline"
	r, err = call("ask")
	diff(t, "user chose decline", text(t, r, err))
	r, err = call("sample")
	diff(t, "m1: 4", text(t, r, err))
	r, err = call("roots")
	diff(t, "1 file:///tmp", text(t, r, err))
	r, err = call("badschema")
	if err != nil || !r.IsError || !strings.Contains(r.Content[0].(*TextContent).Text, "nested") {
		t.Errorf("bad elicitation schema: %+v %v", r, err)
	}
}

func TestServerToClientRequestsRefusedWithoutCapability(t *testing.T) {
	cs, _ := pair(t, elicitServer(), nil)
	ctx := testCtx(t)
	for _, name := range []string{"ask", "sample", "roots"} {
		r, err := cs.CallTool(ctx, &CallToolParams{Name: name})
		if err != nil || !r.IsError || !strings.Contains(r.Content[0].(*TextContent).Text, "did not declare") {
			t.Errorf("%s: %+v %v", name, r, err)
		}
	}
	// Elicitation does not exist before 2025-06-18, whatever the client says.
	cs2, _ := pair(t, elicitServer(), &ClientOptions{ProtocolVersion: "2025-03-26",
		ElicitationHandler: func(ctx context.Context, req *ElicitRequest) (*ElicitResult, error) {
			t.Error("elicitation sent to a 2025-03-26 client")
			return nil, nil
		}})
	r, err := cs2.CallTool(ctx, &CallToolParams{Name: "ask"})
	if err != nil || !r.IsError {
		t.Errorf("2025-03-26 elicitation: %+v %v", r, err)
	}
}
