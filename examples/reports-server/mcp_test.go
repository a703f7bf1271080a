package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/wiremcp/wiremcp/bindings/reports"
	"github.com/wiremcp/wiremcp/internal/leaktest"
	"github.com/wiremcp/wiremcp/internal/mcpschema"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/memory"
)

// callJSON calls a tool and checks the binding's result rules: structuredContent is
// present and the single text block carries the same JSON. It decodes the structured
// content into out.
func callJSON(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: raw})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s(%s) returned an error result: %+v", tool, raw, res.Content)
	}
	sc, ok := res.StructuredContent.(json.RawMessage)
	if !ok || len(sc) == 0 {
		t.Fatalf("%s: no structuredContent (%T)", tool, res.StructuredContent)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1 text block", tool, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T, want text", tool, res.Content[0])
	}
	var a, b any
	if err := json.Unmarshal(sc, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(text.Text), &b); err != nil {
		t.Fatalf("%s: text block is not JSON: %v", tool, err)
	}
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("%s: text block differs from structuredContent (-structured +text):\n%s", tool, diff)
	}
	if out != nil {
		if err := json.Unmarshal(sc, out); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// exerciseBinding runs the binding's end-to-end scenario against a server that serves
// the built-in samples with fresh state: list, filter, get, update, get again.
func exerciseBinding(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	t.Helper()
	// The binding is detected by tool names; every tool declares an outputSchema.
	tools := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	for _, name := range []string{reports.ToolList, reports.ToolGet, reports.ToolUpdateStatus} {
		if tools[name] == nil {
			t.Fatalf("tool %s missing", name)
		}
		if len(tools[name].OutputSchema) == 0 {
			t.Errorf("tool %s has no outputSchema", name)
		}
	}

	var all reports.ListOutput
	callJSON(t, ctx, cs, reports.ToolList, map[string]any{}, &all)
	samples, _ := loadSamples()
	if len(all.Reports) != len(samples) {
		t.Fatalf("REPORTS_LIST returned %d reports, want %d", len(all.Reports), len(samples))
	}
	for i := 1; i < len(all.Reports); i++ {
		a, b := all.Reports[i-1], all.Reports[i]
		if a.UpdatedAt.Before(b.UpdatedAt) || (a.UpdatedAt.Equal(b.UpdatedAt) && a.ID > b.ID) {
			t.Errorf("order broken at %d: %s (%v) before %s (%v)", i, a.ID, a.UpdatedAt, b.ID, b.UpdatedAt)
		}
	}
	for _, s := range all.Reports {
		if s.LifecycleStatus != reports.LifecycleUnread {
			t.Errorf("%s starts as %q, want unread", s.ID, s.LifecycleStatus)
		}
	}

	var failingCI reports.ListOutput
	callJSON(t, ctx, cs, reports.ToolList, map[string]any{"category": "ci", "status": "failing"}, &failingCI)
	var want []string
	for _, s := range all.Reports {
		if s.Category == "ci" && s.Status == reports.StatusFailing {
			want = append(want, s.ID)
		}
	}
	if len(want) == 0 {
		t.Fatal("the samples have no failing ci report")
	}
	if diff := cmp.Diff(want, idsOf(failingCI.Reports)); diff != "" {
		t.Errorf("filter category=ci status=failing (-want +got):\n%s", diff)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: reports.ToolList, Arguments: json.RawMessage(`{"status":"red"}`)})
	if err != nil || !res.IsError {
		t.Errorf("invalid status filter: %v, isError=%v", err, res != nil && res.IsError)
	}

	id := want[0]
	var rep reports.Report
	callJSON(t, ctx, cs, reports.ToolGet, map[string]any{"id": id}, &rep)
	if rep.ID != id || len(rep.Sections) == 0 || rep.LifecycleStatus != reports.LifecycleUnread {
		t.Errorf("REPORTS_GET(%s) = %+v", id, rep.ReportSummary)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: reports.ToolGet, Arguments: json.RawMessage(`{"id":"no-such-report"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `no report with id "no-such-report"`) {
		t.Errorf("unknown id: %+v", res)
	}

	var upd reports.UpdateStatusOutput
	callJSON(t, ctx, cs, reports.ToolUpdateStatus, map[string]any{"reportId": id, "lifecycleStatus": "dismissed"}, &upd)
	if !upd.Success {
		t.Errorf("update: %+v", upd)
	}
	callJSON(t, ctx, cs, reports.ToolUpdateStatus, map[string]any{"reportId": "no-such-report", "lifecycleStatus": "read"}, &upd)
	if upd.Success || upd.Message == "" {
		t.Errorf("update of an unknown id: %+v", upd)
	}
	callJSON(t, ctx, cs, reports.ToolGet, map[string]any{"id": id}, &rep)
	if rep.LifecycleStatus != reports.LifecycleDismissed {
		t.Errorf("after update, lifecycleStatus = %q, want dismissed", rep.LifecycleStatus)
	}
	var dismissed reports.ListOutput
	callJSON(t, ctx, cs, reports.ToolList, map[string]any{"lifecycleStatus": "dismissed"}, &dismissed)
	if diff := cmp.Diff([]string{id}, idsOf(dismissed.Reports)); diff != "" {
		t.Errorf("dismissed list (-want +got):\n%s", diff)
	}
}

func memorySession(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) (context.Context, *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	a, b := memory.NewPair()
	ss, err := srv.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	// These tests use initialize-era features (resources/subscribe); pin the
	// revision unless the caller chose one.
	var o mcp.ClientOptions
	if opts != nil {
		o = *opts
	}
	if o.ProtocolVersion == "" {
		o.ProtocolVersion = mcp.LatestInitializeRevision
	}
	cs, err := mcp.NewClient(mcp.Implementation{Name: "test", Version: "1"}, &o).Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return ctx, cs
}

func sampleInbox(t *testing.T) *Inbox {
	t.Helper()
	in, _ := newTestInbox(t)
	loaded, diags := loadSamples()
	in.Replace(loaded, diags)
	return in
}

func TestMCPBinding(t *testing.T) {
	leaktest.Check(t)
	in := sampleInbox(t)
	ctx, cs := memorySession(t, newMCPServer(context.Background(), in, discard, version), nil)
	exerciseBinding(t, ctx, cs)
}

func TestMCPResourcesAndPrompt(t *testing.T) {
	in := sampleInbox(t)
	listChanged := make(chan struct{}, 10)
	updated := make(chan string, 10)
	srv := newMCPServer(context.Background(), in, discard, version)
	ctx, cs := memorySession(t, srv, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ClientSession) { listChanged <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, _ *mcp.ClientSession, p *mcp.ResourceUpdatedParams) {
			updated <- p.URI
		},
	})

	var uris []string
	for r, err := range cs.Resources(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if !slices.Contains(uris, "report://ci-main-nightly") || !slices.Contains(uris, diagnosticsURI) {
		t.Errorf("resources = %v", uris)
	}
	var templates []string
	for rt, err := range cs.ResourceTemplates(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		templates = append(templates, rt.URITemplate)
	}
	if !slices.Contains(templates, reportTemplate) {
		t.Errorf("templates = %v", templates)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "report://ci-main-nightly"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].MIMEType != "text/markdown" || !strings.HasPrefix(rr.Contents[0].Text, "# Nightly build: main") {
		t.Errorf("report resource = %+v", rr.Contents)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "report://nope"}); err == nil {
		t.Error("reading an unknown report succeeded")
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: diagnosticsURI})
	if err != nil || !strings.Contains(rr.Contents[0].Text, `"diagnostics": []`) {
		t.Errorf("diagnostics = %+v, %v", rr, err)
	}

	// Prompt: only failing reports that are not dismissed.
	if err := in.SetStatus("sec-dependency-audit", reports.LifecycleDismissed); err != nil {
		t.Fatal(err)
	}
	pr, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: triagePrompt})
	if err != nil {
		t.Fatal(err)
	}
	text := pr.Messages[0].Content.(*mcp.TextContent).Text
	for _, want := range []string{"Report id: ci-main-nightly", "Report id: a11y-checkout", "TestBackoffCapsAtMax"} {
		if !strings.Contains(text, want) {
			t.Errorf("triage prompt lacks %q", want)
		}
	}
	for _, avoid := range []string{"sec-dependency-audit", "perf-api-latency", "ci-release-1-8"} {
		if strings.Contains(text, avoid) {
			t.Errorf("triage prompt includes %q", avoid)
		}
	}
	pr, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: triagePrompt, Arguments: map[string]string{"category": "performance", "includeWarnings": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := pr.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, "perf-api-latency") || strings.Contains(text, "ci-main-nightly") {
		t.Errorf("triage prompt for performance warnings:\n%s", text)
	}

	// Subscriptions: a lifecycle change and a content change are announced.
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "report://ci-main-nightly"}); err != nil {
		t.Fatal(err)
	}
	if err := in.SetStatus("ci-main-nightly", reports.LifecycleRead); err != nil {
		t.Fatal(err)
	}
	waitFor(t, updated, "report://ci-main-nightly")

	// A new report appears: resources/list_changed, and it is listed.
	drain(listChanged)
	loaded, _ := loadSamples()
	extra := testReport("fresh", "Fresh", "ci", reports.StatusInfo, time.Now())
	in.Replace(append(loaded, reports.LoadedReport{Report: extra, File: "fresh.json"}), nil)
	select {
	case <-listChanged:
	case <-time.After(10 * time.Second):
		t.Fatal("no resources/list_changed after a report was added")
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "report://fresh"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "# Fresh") {
		t.Errorf("new report resource: %+v, %v", rr, err)
	}
}

func waitFor(t *testing.T, ch chan string, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-ch:
			if got == want {
				return
			}
		case <-deadline:
			t.Fatalf("no notification for %s", want)
		}
	}
}

func drain(ch chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// TestMCPOfficialSchema checks the server's tools/list, tools/call, resources and
// prompt results against the official MCP schema of each initialize-era revision.
func TestMCPOfficialSchema(t *testing.T) {
	for _, rev := range []string{"2025-06-18", "2025-11-25"} {
		t.Run(rev, func(t *testing.T) {
			schema := mcpschema.ForTest(t, rev)
			in := sampleInbox(t)
			ctx, cs := memorySession(t, newMCPServer(context.Background(), in, discard, version), &mcp.ClientOptions{ProtocolVersion: rev})
			check := func(def string, v any) {
				t.Helper()
				b, err := json.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				if err := schema.Validate(def, b); err != nil {
					t.Errorf("%s: %v\n%s", def, err, b)
				}
			}
			lt, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			check("ListToolsResult", lt)
			for _, call := range []struct{ tool, args string }{
				{reports.ToolList, `{}`},
				{reports.ToolGet, `{"id":"perf-api-latency"}`},
				{reports.ToolGet, `{"id":"missing"}`},
				{reports.ToolUpdateStatus, `{"reportId":"perf-api-latency","lifecycleStatus":"read"}`},
			} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: json.RawMessage(call.args)})
				if err != nil {
					t.Fatal(err)
				}
				check("CallToolResult", res)
			}
			lr, err := cs.ListResources(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			check("ListResourcesResult", lr)
			lrt, err := cs.ListResourceTemplates(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rev == "2025-06-18" {
				// That revision marks uriTemplate with format "uri-template", which
				// jsonschema/v6 checks by parsing the template as a URL: it rejects a
				// variable in the host position ("report://{id}") although RFC 6570
				// allows it. Check everything else with the template expanded.
				for _, rt := range lrt.ResourceTemplates {
					if rt.URITemplate == reportTemplate {
						c := *rt
						c.URITemplate = "report://an-id"
						lrt = &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{&c}}
					}
				}
			}
			check("ListResourceTemplatesResult", lrt)
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "report://perf-api-latency"})
			if err != nil {
				t.Fatal(err)
			}
			check("ReadResourceResult", rr)
			lp, err := cs.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			check("ListPromptsResult", lp)
			gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: triagePrompt})
			if err != nil {
				t.Fatal(err)
			}
			check("GetPromptResult", gp)
		})
	}
}
