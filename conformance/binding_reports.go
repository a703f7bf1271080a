package conformance

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// reportsBinding checks a server that implements the Reports binding: the
// tools REPORTS_LIST, REPORTS_GET and REPORTS_UPDATE_STATUS.
type reportsBinding struct{}

func init() { RegisterBinding(reportsBinding{}) }

// Name implements Binding.
func (reportsBinding) Name() string { return "reports" }

const (
	toolList   = "REPORTS_LIST"
	toolGet    = "REPORTS_GET"
	toolUpdate = "REPORTS_UPDATE_STATUS"
)

// summaryJSON is the part of a ReportSummary the checks compare.
type summaryJSON struct {
	ID              string `json:"id"`
	Category        string `json:"category"`
	Status          string `json:"status"`
	UpdatedAt       string `json:"updatedAt"`
	LifecycleStatus string `json:"lifecycleStatus"`
}

// Checks implements Binding.
func (reportsBinding) Checks() []*Check {
	b := func(ch *Check) *Check { ch.Area, ch.Binding = "reports", "reports"; return ch }
	return []*Check{
		b(&Check{ID: "reports/tools", Severity: MUST,
			Requirement: "The server lists REPORTS_LIST, REPORTS_GET and REPORTS_UPDATE_STATUS, each with an object inputSchema and (from 2025-06-18) an outputSchema",
			Run: func(c *C) {
				c.NeedCap("tools")
				byName := map[string]Obj{}
				for _, t := range c.Tools() {
					n, _ := t.Str("name")
					byName[n] = t
				}
				for _, n := range []string{toolList, toolGet, toolUpdate} {
					t, ok := byName[n]
					if !ok {
						c.Failf("tool %s is missing", n)
						continue
					}
					if _, ok := t.Obj("inputSchema"); !ok {
						c.Failf("%s has no inputSchema object", n)
					}
					// outputSchema exists from 2025-06-18; older revisions have no
					// member to carry it.
					if _, ok := t.Obj("outputSchema"); !ok && hasStructured(c.Revision()) {
						c.Failf("%s declares no outputSchema", n)
					}
				}
			}}),
		b(&Check{ID: "reports/list-shape", Severity: MUST,
			Requirement: "REPORTS_LIST returns structuredContent matching the list output schema and the same JSON as text",
			Run: func(c *C) {
				s := c.Session()
				raw := reportsCall(c, s, toolList, map[string]any{})
				if err := reports.ValidateJSON(reports.SchemaListOutput, raw); err != nil {
					c.Failf("REPORTS_LIST output: %v", err)
				}
			}}),
		b(&Check{ID: "reports/list-order", Severity: MUST,
			Requirement: "REPORTS_LIST orders reports by updatedAt, newest first",
			Run: func(c *C) {
				s := c.Session()
				list := reportsList(c, s, map[string]any{})
				for i := 1; i < len(list); i++ {
					a, errA := time.Parse(time.RFC3339Nano, list[i-1].UpdatedAt)
					b, errB := time.Parse(time.RFC3339Nano, list[i].UpdatedAt)
					if errA != nil || errB != nil {
						c.Fatalf("updatedAt is not RFC 3339: %q / %q", list[i-1].UpdatedAt, list[i].UpdatedAt)
					}
					if a.Before(b) {
						c.Fatalf("report %q (%s) is listed before the newer %q (%s)", list[i-1].ID, list[i-1].UpdatedAt, list[i].ID, list[i].UpdatedAt)
					}
				}
			}}),
		b(&Check{ID: "reports/list-filters", Severity: MUST,
			Requirement: "REPORTS_LIST with category or status returns exactly the matching reports",
			Run: func(c *C) {
				s := c.Session()
				all := reportsList(c, s, map[string]any{})
				if len(all) == 0 {
					c.NA("the server has no reports")
				}
				want := map[[2]string][]string{}
				for _, r := range all {
					want[[2]string{"category", r.Category}] = append(want[[2]string{"category", r.Category}], r.ID)
					want[[2]string{"status", r.Status}] = append(want[[2]string{"status", r.Status}], r.ID)
				}
				for k, ids := range want {
					got := reportsList(c, s, map[string]any{k[0]: k[1]})
					var gotIDs []string
					for _, r := range got {
						gotIDs = append(gotIDs, r.ID)
					}
					sort.Strings(ids)
					sort.Strings(gotIDs)
					if string(mustJSON(ids)) != string(mustJSON(gotIDs)) {
						c.Failf("filter %s=%q returned %v, want %v", k[0], k[1], gotIDs, ids)
					}
				}
			}}),
		b(&Check{ID: "reports/get", Severity: MUST,
			Requirement: "REPORTS_GET returns the full report, valid against the Report schema, for every listed id",
			Run: func(c *C) {
				s := c.Session()
				list := reportsList(c, s, map[string]any{})
				if len(list) == 0 {
					c.NA("the server has no reports")
				}
				for _, r := range list[:min(10, len(list))] {
					raw := reportsCall(c, s, toolGet, map[string]any{"id": r.ID})
					if err := reports.ValidateJSON(reports.SchemaReport, raw); err != nil {
						c.Failf("REPORTS_GET %q: %v", r.ID, err)
						continue
					}
					var got summaryJSON
					_ = json.Unmarshal(raw, &got)
					if got.ID != r.ID || got.Status != r.Status || got.Category != r.Category {
						c.Failf("REPORTS_GET %q returned id %q status %q category %q, the list says %q %q", r.ID, got.ID, got.Status, got.Category, r.Status, r.Category)
					}
				}
			}}),
		b(&Check{ID: "reports/get-unknown", Severity: MUST,
			Requirement: "REPORTS_GET of an unknown id is a tool result with isError: true",
			Run: func(c *C) {
				s := c.Session()
				c.mayCallNamed(toolGet)
				ex := c.Call(s, "tools/call", map[string]any{"name": toolGet, "arguments": map[string]any{"id": "conformance-no-such-report"}})
				if e := ex.Response.Error(); e != nil {
					c.Fatalf("JSON-RPC error %s %q instead of an isError result", e.Code, e.Message)
				}
				if string(ex.Response.Result()["isError"]) != "true" {
					c.Fatalf("result without isError: true: %s", short(ex.Response.Raw))
				}
			}}),
		b(&Check{ID: "reports/update-status", Serial: true, Severity: MUST,
			Requirement: "REPORTS_UPDATE_STATUS returns {success: true} and the new lifecycleStatus shows in REPORTS_LIST",
			Run: func(c *C) {
				s := c.Session()
				list := reportsList(c, s, map[string]any{})
				if len(list) == 0 {
					c.NA("the server has no reports")
				}
				target := list[0]
				orig := target.LifecycleStatus
				if orig == "" {
					orig = "unread"
				}
				next := "read"
				if orig == "read" {
					next = "dismissed"
				}
				raw := reportsCall(c, s, toolUpdate, map[string]any{"reportId": target.ID, "lifecycleStatus": next})
				if err := reports.ValidateJSON(reports.SchemaUpdateStatusOutput, raw); err != nil {
					c.Failf("REPORTS_UPDATE_STATUS output: %v", err)
				}
				var out struct{ Success bool }
				if json.Unmarshal(raw, &out) != nil || !out.Success {
					c.Fatalf("REPORTS_UPDATE_STATUS answered %s", short(raw))
				}
				found := false
				for _, r := range reportsList(c, s, map[string]any{}) {
					if r.ID == target.ID {
						found = true
						if r.LifecycleStatus != next {
							c.Failf("after the update %q has lifecycleStatus %q, want %q", r.ID, r.LifecycleStatus, next)
						}
					}
				}
				if !found {
					c.Failf("report %q vanished from the list after the update", target.ID)
				}
				reportsCall(c, s, toolUpdate, map[string]any{"reportId": target.ID, "lifecycleStatus": orig})
			}}),
	}
}

// hasStructured reports whether rev has structured tool output
// (outputSchema and structuredContent, 2025-06-18 on).
func hasStructured(rev string) bool { return rev >= Rev20250618 }

// reportsCall calls a binding tool and returns its output after checking
// that the result is not an error. From 2025-06-18 the output is the
// structuredContent, and a text block must carry the same JSON; before,
// structured output does not exist and the output is the JSON object in a
// text block.
func reportsCall(c *C, s *Session, tool string, args map[string]any) json.RawMessage {
	c.mayCallNamed(tool)
	r := c.Result(s, "tools/call", map[string]any{"name": tool, "arguments": args})
	if string(r["isError"]) == "true" {
		c.Fatalf("%s %s: isError result: %s", tool, mustJSON(args), short(mustJSON(r)))
	}
	blocks, _ := r.Arr("content")
	raw, ok := r["structuredContent"]
	if !hasStructured(c.Revision()) {
		for _, b := range blocks {
			o, _ := toObj(b)
			if t, ok := o.Str("text"); ok && json.Valid([]byte(t)) && jsonKind(json.RawMessage(t)) == "object" {
				return json.RawMessage(t)
			}
		}
		c.Fatalf("%s: no text block carries a JSON object (structuredContent does not exist before %s): %s", tool, Rev20250618, short(mustJSON(r)))
	}
	if !ok {
		c.Fatalf("%s: result has no structuredContent", tool)
	}
	same := false
	for _, b := range blocks {
		o, _ := toObj(b)
		if t, ok := o.Str("text"); ok && jsonEqual([]byte(t), raw) {
			same = true
		}
	}
	if !same {
		c.Failf("%s: no text block carries the structuredContent JSON", tool)
	}
	return raw
}

// reportsList calls REPORTS_LIST and decodes the summaries.
func reportsList(c *C, s *Session, args map[string]any) []summaryJSON {
	raw := reportsCall(c, s, toolList, args)
	var out struct {
		Reports []summaryJSON `json:"reports"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		c.Fatalf("REPORTS_LIST output: %v", err)
	}
	return out.Reports
}
