package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
	"github.com/wiremcp/wiremcp/mcp"
)

// URIs of the resources the server exposes besides the binding's tools.
const (
	reportURIPrefix = "report://"
	reportTemplate  = "report://{id}"
	diagnosticsURI  = "reports://diagnostics"
	triagePrompt    = "triage"
)

const instructions = `This server holds reports (CI runs, security scans, performance and accessibility checks).
Call REPORTS_LIST to see them (filter by category, status, source, tag or lifecycleStatus), REPORTS_GET for one
report's sections, and REPORTS_UPDATE_STATUS to mark a report read or dismissed. Each report is also the resource
report://{id} (Markdown); the "triage" prompt gathers the failing reports for you.`

// newMCPServer returns an MCP server exposing inbox through the Reports binding, as
// resources and as a prompt. It keeps the resource list in step with the inbox and
// sends resources/updated when a report changes; ctx bounds those notifications.
func newMCPServer(ctx context.Context, inbox *Inbox, log *slog.Logger, version string) *mcp.Server {
	s := mcp.NewServer(mcp.Implementation{
		Name: "wiremcp-reports", Title: "Reports", Version: version,
		Description: "Reports inbox: CI, security, performance and accessibility reports",
	}, &mcp.ServerOptions{Instructions: instructions, Logger: log})

	s.AddTool(&mcp.Tool{
		Name:         reports.ToolList,
		Title:        "List reports",
		Description:  "List report summaries, newest first (ties by id). All filters are optional and exact: category, status (passing, warning, failing, info), source, tag, lifecycleStatus (unread, read, dismissed).",
		InputSchema:  reports.ListInputSchema,
		OutputSchema: reports.ListOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "List reports", ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in reports.ListInput
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return mcp.ErrorResult("invalid arguments: %v", err), nil
		}
		return structured(reports.ListOutput{Reports: inbox.List(in)})
	})

	s.AddTool(&mcp.Tool{
		Name:         reports.ToolGet,
		Title:        "Get a report",
		Description:  "Return one full report by id: the summary fields plus its sections (markdown, metrics with previous values, tables).",
		InputSchema:  reports.GetInputSchema,
		OutputSchema: reports.GetOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "Get a report", ReadOnlyHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in reports.GetInput
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return mcp.ErrorResult("invalid arguments: %v", err), nil
		}
		r, err := inbox.Get(in.ID)
		if err != nil {
			return mcp.ErrorResult("no report with id %q; call %s to see the available ids", in.ID, reports.ToolList), nil
		}
		return structured(r)
	})

	s.AddTool(&mcp.Tool{
		Name:         reports.ToolUpdateStatus,
		Title:        "Update a report's lifecycle status",
		Description:  "Set a report's lifecycle status to unread, read or dismissed. The change is saved before the answer is sent; if the report's content changes later it becomes unread again.",
		InputSchema:  reports.UpdateStatusInputSchema,
		OutputSchema: reports.UpdateStatusOutputSchema,
		Annotations: &mcp.ToolAnnotations{Title: "Update a report's lifecycle status", ReadOnlyHint: mcp.Bool(false),
			DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in reports.UpdateStatusInput
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return mcp.ErrorResult("invalid arguments: %v", err), nil
		}
		err := inbox.SetStatus(in.ReportID, in.LifecycleStatus)
		switch {
		case errors.Is(err, ErrNotFound):
			return structured(reports.UpdateStatusOutput{Message: fmt.Sprintf("no report with id %q", in.ReportID)})
		case err != nil:
			log.Error("saving lifecycle status", "id", in.ReportID, "err", err)
			return structured(reports.UpdateStatusOutput{Message: "could not save the change: " + err.Error()})
		}
		return structured(reports.UpdateStatusOutput{Success: true, Message: fmt.Sprintf("report %q is now %s", in.ReportID, in.LifecycleStatus)})
	})

	readReport := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		id := req.Vars["id"]
		if id == "" {
			id = strings.TrimPrefix(req.Params.URI, reportURIPrefix)
		}
		r, err := inbox.Get(id)
		if err != nil {
			return nil, fmt.Errorf("%w: %s", mcp.ErrResourceNotFound, req.Params.URI)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: "text/markdown", Text: reports.FormatMarkdown(r),
		}}}, nil
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: reportTemplate, Name: "report", Title: "Report",
		Description: "One report rendered as Markdown; the id is the one REPORTS_LIST returns.",
		MIMEType:    "text/markdown",
	}, readReport)

	s.AddResource(&mcp.Resource{
		URI: diagnosticsURI, Name: "diagnostics", Title: "Invalid report files",
		Description: "Report files that were skipped because they do not match the Report schema, with the reason.",
		MIMEType:    "application/json",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		d := inbox.Diagnostics()
		if d == nil {
			d = []reports.Diagnostic{}
		}
		b, err := json.MarshalIndent(map[string]any{"diagnostics": d}, "", "  ")
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: diagnosticsURI, MIMEType: "application/json", Text: string(b)}}}, nil
	})

	s.AddPrompt(&mcp.Prompt{
		Name: triagePrompt, Title: "Triage failing reports",
		Description: "Ask the model to triage the failing reports that are not dismissed: severity, likely cause, next step.",
		Arguments: []*mcp.PromptArgument{
			{Name: "category", Title: "Category", Description: "Only reports of this category (optional)."},
			{Name: "includeWarnings", Title: "Include warnings", Description: `"true" to include reports with status warning.`},
		},
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args := req.Params.Arguments
		text := triageText(inbox, args["category"], args["includeWarnings"] == "true")
		return &mcp.GetPromptResult{
			Description: "Triage of the failing reports",
			Messages:    []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: text}}},
		}, nil
	})

	syncResources(s, inbox, inbox.List(reports.ListInput{}))
	inbox.OnChange(func(c Change) {
		var added []reports.ReportSummary
		for _, id := range append(append([]string(nil), c.Added...), c.Updated...) {
			if r, err := inbox.Get(id); err == nil {
				added = append(added, r.ReportSummary)
			}
		}
		syncResources(s, inbox, added)
		if len(c.Removed) > 0 {
			uris := make([]string, len(c.Removed))
			for i, id := range c.Removed {
				uris[i] = reportURIPrefix + id
			}
			s.RemoveResources(uris...)
		}
		for _, id := range append(append([]string(nil), c.Updated...), c.Lifecycle...) {
			s.ResourceUpdated(ctx, reportURIPrefix+id)
		}
		if c.Diagnostics {
			s.ResourceUpdated(ctx, diagnosticsURI)
		}
	})
	return s
}

// syncResources registers (or re-registers) one fixed resource per report so that
// resources/list shows them; the server announces the change with list_changed.
func syncResources(s *mcp.Server, inbox *Inbox, list []reports.ReportSummary) {
	for _, r := range list {
		id := r.ID
		s.AddResource(&mcp.Resource{
			URI: reportURIPrefix + id, Name: id, Title: r.Title,
			Description: fmt.Sprintf("[%s] %s", r.Status, r.Summary),
			MIMEType:    "text/markdown",
			Annotations: &mcp.Annotations{LastModified: r.UpdatedAt.UTC().Format(time.RFC3339)},
		}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			rep, err := inbox.Get(id)
			if err != nil {
				return nil, fmt.Errorf("%w: %s", mcp.ErrResourceNotFound, req.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
				URI: req.Params.URI, MIMEType: "text/markdown", Text: reports.FormatMarkdown(rep),
			}}}, nil
		})
	}
}

// structured returns v as both structuredContent and one text block of the same JSON.
func structured(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}, nil
}

// triageText builds the triage prompt: instructions, then each failing (and, if asked,
// warning) report that is not dismissed, as Markdown.
func triageText(inbox *Inbox, category string, warnings bool) string {
	var picked []reports.ReportSummary
	for _, s := range inbox.List(reports.ListInput{Category: category}) {
		if s.LifecycleStatus == reports.LifecycleDismissed {
			continue
		}
		if s.Status == reports.StatusFailing || (warnings && s.Status == reports.StatusWarning) {
			picked = append(picked, s)
		}
	}
	var b strings.Builder
	scope := "failing"
	if warnings {
		scope = "failing and warning"
	}
	if category != "" {
		scope += " " + category
	}
	if len(picked) == 0 {
		fmt.Fprintf(&b, "There are no %s reports that are not dismissed. Say so briefly and suggest nothing else.", scope)
		return b.String()
	}
	fmt.Fprintf(&b, "Triage these %d %s reports. For each one, state in a few lines: what broke, how severe it is "+
		"(blocker, high, medium or low) and why, the most likely cause given the evidence in the report, and the next "+
		"concrete step (with the owner if the report names one). Then give a prioritised to-do list across all of them. "+
		"Do not invent facts that the reports do not contain.\n", len(picked), scope)
	for _, s := range picked {
		r, err := inbox.Get(s.ID)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "\n---\n\nReport id: %s (resource %s%s)\n\n%s", r.ID, reportURIPrefix, r.ID, reports.FormatMarkdown(r))
	}
	return b.String()
}
