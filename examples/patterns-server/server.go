package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/wiremcp/wiremcp/examples/patterns-server/catalog"
	"github.com/wiremcp/wiremcp/examples/patterns-server/present"
	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// maxElicitRounds bounds how often one tool call asks the user; after that the
// needsInput payload is returned.
const maxElicitRounds = 3

const instructions = `Search a catalog of Go programming patterns with search_patterns (q, category, difficulty) and read one in full with get_pattern (id).
Both tools take format: "markdown" (default, for people), "json" (the canonical JSON contract) or "both" (Markdown, then JSON last).
When input is missing or a search is too broad, the server asks through elicitation if the client supports it, and otherwise returns a needsInput:v1 payload naming the fields to fill.`

// newServer returns an MCP server offering search_patterns and get_pattern over
// cat. popts configures the presentation engine (nil: defaults); logger may be nil.
func newServer(cat *catalog.Catalog, popts *present.Options, logger *slog.Logger) *mcp.Server {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	h := &handlers{eng: present.NewEngine(cat, popts), log: logger}
	s := mcp.NewServer(mcp.Implementation{Name: "wiremcp-patterns", Title: "Go patterns catalog", Version: "0.1.0"},
		&mcp.ServerOptions{Instructions: instructions, Logger: logger,
			// Arguments the inputSchema refuses get the tools' own error shape
			// (toolError:v1 in structuredContent and the JSON block), not the
			// library's one text block.
			InvalidArgumentsHandler: func(_ context.Context, req *mcp.CallToolRequest, err *mcp.InvalidArgumentsError) *mcp.CallToolResult {
				res, _ := toResult(present.ErrorReply(present.ArgumentsError(req.Params.Name, req.Params.Arguments, err.Err), present.FormatBoth))
				return res
			}})
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}
	s.AddTool(&mcp.Tool{
		Name:  "search_patterns",
		Title: "Search Go patterns",
		Description: fmt.Sprintf("Search %d Go programming patterns by words (q), category and difficulty. "+
			"Returns a ranked index and the top results as cards; every match is listed in the JSON (patternSearchResults:v1). "+
			"An empty q, or more than %d matches with neither category nor difficulty, asks for input (needsInput:v1).",
			cat.Len(), present.ManyMatches),
		InputSchema:  present.SearchInputSchema(),
		OutputSchema: present.OutputSchema(present.KindSearchResults, present.KindNeedsInput, present.KindToolError),
		Annotations:  readOnly,
	}, h.search)
	s.AddTool(&mcp.Tool{
		Name:  "get_pattern",
		Title: "Get a Go pattern",
		Description: "Return one pattern in full (patternDetails:v1): description, when to use and avoid it, " +
			"sections, a complete compilable Go example and provenance. An unknown or empty id asks for input with suggestions.",
		InputSchema:  present.GetInputSchema(),
		OutputSchema: present.OutputSchema(present.KindDetails, present.KindNeedsInput, present.KindToolError),
		Annotations:  readOnly,
	}, h.get)
	return s
}

type handlers struct {
	eng *present.Engine
	log *slog.Logger
}

func (h *handlers) search(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, te := present.DecodeSearchArgs(req.Params.Arguments)
	if te != nil {
		return toResult(present.ErrorReply(te, present.FormatBoth))
	}
	reply, err := h.ask(ctx, req.Session, h.eng.Search(args), func(ans map[string]string) *present.Reply {
		args = args.WithAnswers(ans)
		return h.eng.Search(args)
	})
	if err != nil {
		return nil, err
	}
	return toResult(reply)
}

func (h *handlers) get(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, te := present.DecodeGetArgs(req.Params.Arguments)
	if te != nil {
		return toResult(present.ErrorReply(te, present.FormatBoth))
	}
	reply, err := h.ask(ctx, req.Session, h.eng.Get(args), func(ans map[string]string) *present.Reply {
		args = args.WithAnswers(ans)
		return h.eng.Get(args)
	})
	if err != nil {
		return nil, err
	}
	return toResult(reply)
}

// ask resolves a needsInput reply through native elicitation while the client
// supports it and the user accepts, re-running the tool with the answers
// (rerun). It returns the reply to send: the final result, the needsInput
// payload when elicitation is unavailable, declined or cancelled (or answered
// with nothing), or a CLIENT_ERROR for an answer that does not fit the form.
func (h *handlers) ask(ctx context.Context, ss *mcp.ServerSession, r *present.Reply, rerun func(map[string]string) *present.Reply) (*present.Reply, error) {
	for round := 0; r.Ask != nil && ss != nil && round < maxElicitRounds; round++ {
		res, err := ss.Elicit(ctx, &mcp.ElicitParams{
			Mode:            mcp.ElicitModeForm,
			Message:         r.Ask.Message,
			RequestedSchema: r.Ask.RequestedSchema(),
		})
		var rpcErr *jsonrpc.Error
		switch {
		case err == nil:
		case errors.Is(err, mcp.ErrCapabilityNotSupported):
			h.log.Debug("elicitation unavailable; returning needsInput", "err", err)
			return r, nil
		case mcp.IsInputRequired(err), ctx.Err() != nil:
			// 2026-07-28: the library turns this call into an input_required
			// result and runs the handler again with the answers.
			return nil, err
		case errors.As(err, &rpcErr):
			// The client answered elicitation/create with an error: treat it
			// like a refusal rather than failing the tool call.
			h.log.Warn("elicitation failed at the client; returning needsInput", "err", err)
			return r, nil
		default:
			// The answer did not fit the requested schema (or never arrived).
			return present.ErrorReply(present.NewToolError(present.CodeClient,
				"elicitation answer rejected: "+err.Error(), false,
				map[string]any{"source": "elicitation"}), r.Format), nil
		}
		if res.Action != "accept" {
			h.log.Debug("elicitation not accepted", "action", res.Action)
			return r, nil
		}
		answers, te := r.Ask.Accept(res.Content)
		if te != nil {
			return present.ErrorReply(te, r.Format), nil
		}
		if len(answers) == 0 {
			return r, nil
		}
		r = rerun(answers)
	}
	return r, nil
}

// toResult puts a Reply on the wire: its format-gated text blocks (with MIME
// type and audience) and, always, the payload as structuredContent.
func toResult(r *present.Reply) (*mcp.CallToolResult, error) {
	blocks, err := r.Blocks()
	if err != nil {
		return nil, fmt.Errorf("render %s: %w", r.Kind, err)
	}
	raw, err := r.JSON()
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", r.Kind, err)
	}
	res := &mcp.CallToolResult{StructuredContent: json.RawMessage(raw), IsError: r.IsError}
	for _, b := range blocks {
		roles := make([]mcp.Role, len(b.Audience))
		for i, a := range b.Audience {
			roles[i] = mcp.Role(a)
		}
		res.Content = append(res.Content, &mcp.TextContent{Text: b.Text, MIMEType: b.MIMEType, Annotations: &mcp.Annotations{Audience: roles}})
	}
	return res, nil
}
