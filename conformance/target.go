package conformance

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// Target names the server under test. Set exactly one of URL, SSEURL and
// Command.
type Target struct {
	// URL is a Streamable HTTP MCP endpoint, e.g. http://127.0.0.1:8080/mcp.
	URL string
	// SSEURL is the event-stream URL of a legacy HTTP+SSE (2024-11-05)
	// server, e.g. http://127.0.0.1:8080/sse.
	SSEURL string
	// Command starts a stdio server: program and arguments. The suite starts
	// a fresh process for every check.
	Command []string
	// Env is the stdio server's environment (nil inherits the suite's).
	Env []string
	// Dir is the stdio server's working directory ("" = the suite's).
	Dir string
}

// Transport identifies a target kind; checks declare the set they apply to.
type Transport uint8

// Transports a check can apply to.
const (
	HTTP  Transport = 1 << iota // Streamable HTTP
	SSE                         // legacy HTTP+SSE
	Stdio                       // stdio

	AllTransports = HTTP | SSE | Stdio
)

// String names the transport set.
func (t Transport) String() string {
	var parts []string
	if t&HTTP != 0 {
		parts = append(parts, "http")
	}
	if t&SSE != 0 {
		parts = append(parts, "sse")
	}
	if t&Stdio != 0 {
		parts = append(parts, "stdio")
	}
	return strings.Join(parts, "|")
}

// Kind returns the transport of the target.
func (t Target) Kind() Transport {
	switch {
	case t.URL != "":
		return HTTP
	case t.SSEURL != "":
		return SSE
	case len(t.Command) > 0:
		return Stdio
	}
	return 0
}

// String describes the target for reports.
func (t Target) String() string {
	switch t.Kind() {
	case HTTP:
		return t.URL
	case SSE:
		return "sse " + t.SSEURL
	case Stdio:
		return "stdio " + strings.Join(t.Command, " ")
	}
	return "(no target)"
}

func (t Target) validate() error {
	n := 0
	if t.URL != "" {
		n++
	}
	if t.SSEURL != "" {
		n++
	}
	if len(t.Command) > 0 {
		n++
	}
	if n != 1 {
		return errors.New("conformance: set exactly one of Target.URL, Target.SSEURL and Target.Command")
	}
	return nil
}

// Options configure a run. The zero value runs every core check with
// negotiated revision and a 10 s timeout per exchange.
type Options struct {
	// Revision is a revision id to pin, RevisionNegotiate ("" means the
	// same) or RevisionAll to run each known revision in turn.
	Revision string
	// Run selects checks whose id matches; nil runs all. Others are reported
	// as skipped.
	Run *regexp.Regexp
	// Headers are added to every HTTP request (e.g. Authorization).
	Headers http.Header
	// SchemaDir, when set, holds schema-<revision>.json files; every result
	// and notification the server sends is validated against the schema of
	// the revision in use, and violations fail the check that saw them.
	SchemaDir string
	// Timeout bounds each exchange with the server (0 means 10 s).
	Timeout time.Duration
	// Bindings selects binding check sets by name (see RegisterBinding).
	Bindings []string
	// CallTools says which of the server's tools the suite may call with
	// arguments it generates: CallReadOnly (the zero value) calls only tools
	// annotated readOnlyHint: true and the official conformance suite's
	// fixture tools (see FixtureTools); CallAll calls every tool not
	// annotated destructiveHint: true; CallNone calls none. Checks that need
	// a call the policy forbids are not applicable. MCP says a tool without
	// annotations may be destructive, so only the first is safe against a
	// server you do not own.
	CallTools ToolPolicy
	// NoToolCalls is the old spelling of CallTools: CallNone; when set it
	// wins.
	NoToolCalls bool
	// Parallel is how many checks run at once (0 means 4; 1 runs them one
	// by one). Checks marked Serial always run alone.
	Parallel int
	// Started, when set, is called as each check starts (from the
	// goroutine that runs it; calls may be concurrent).
	Started func(revision, id string)
	// Progress, when set, is called after each check finishes (calls may
	// be concurrent when Parallel > 1).
	Progress func(done, total int, r CheckResult)
}

// ToolPolicy selects the tools the suite may call (Options.CallTools).
type ToolPolicy string

// Tool policies.
const (
	CallReadOnly ToolPolicy = "readonly"
	CallAll      ToolPolicy = "all"
	CallNone     ToolPolicy = "none"
)

// ParseToolPolicy parses "readonly", "all" or "none".
func ParseToolPolicy(s string) (ToolPolicy, error) {
	switch p := ToolPolicy(s); p {
	case CallReadOnly, CallAll, CallNone:
		return p, nil
	}
	return "", fmt.Errorf("unknown tool policy %q (want readonly, all or none)", s)
}

func (o *Options) toolPolicy() ToolPolicy {
	switch {
	case o.NoToolCalls:
		return CallNone
	case o.CallTools == "":
		return CallReadOnly
	}
	return o.CallTools
}

func (o *Options) parallel() int {
	if o.Parallel <= 0 {
		return 4
	}
	return o.Parallel
}

func (o *Options) timeout() time.Duration {
	if o.Timeout <= 0 {
		return 10 * time.Second
	}
	return o.Timeout
}
