package faultserver

import (
	"encoding/json"
	"sort"
	"sync"
)

// reportStore holds a few sample reports for the Reports binding.
type reportStore struct {
	mu        sync.Mutex
	reports   []map[string]any
	lifecycle map[string]string
}

func newReportStore() *reportStore {
	mk := func(id, cat, status, at string) map[string]any {
		return map[string]any{"id": id, "title": "Report " + id, "category": cat, "status": status,
			"summary": "Sample report " + id + ".", "updatedAt": at, "source": "faultserver", "tags": []string{"sample"}}
	}
	return &reportStore{
		reports: []map[string]any{
			mk("ci-nightly", "ci", "passing", "2025-05-01T10:00:00Z"),
			mk("sec-scan", "security", "failing", "2025-05-03T08:30:00Z"),
			mk("perf-bench", "performance", "warning", "2025-04-28T12:00:00Z"),
			mk("a11y-audit", "accessibility", "info", "2025-05-02T16:45:00Z"),
			mk("ci-pr-42", "ci", "failing", "2025-04-30T09:15:00Z"),
		},
		lifecycle: map[string]string{},
	}
}

func (s *Server) reportTools() []map[string]any {
	obj := func(props map[string]any, req ...string) map[string]any {
		m := map[string]any{"type": "object", "properties": props}
		if len(req) > 0 {
			m["required"] = req
		}
		return m
	}
	str := map[string]any{"type": "string"}
	tools := []map[string]any{
		{"name": "REPORTS_LIST", "description": "List reports.", "annotations": map[string]any{"readOnlyHint": true},
			"inputSchema":  obj(map[string]any{"category": str, "status": map[string]any{"type": "string", "enum": []string{"passing", "warning", "failing", "info"}}}),
			"outputSchema": obj(map[string]any{"reports": map[string]any{"type": "array"}}, "reports")},
		{"name": "REPORTS_GET", "description": "Get one report.", "annotations": map[string]any{"readOnlyHint": true},
			"inputSchema": obj(map[string]any{"id": str}, "id"), "outputSchema": obj(map[string]any{"id": str}, "id")},
		{"name": "REPORTS_UPDATE_STATUS", "description": "Set a report's lifecycle status.", "annotations": map[string]any{"destructiveHint": false, "idempotentHint": true},
			"inputSchema":  obj(map[string]any{"reportId": str, "lifecycleStatus": map[string]any{"type": "string", "enum": []string{"unread", "read", "dismissed"}}}, "reportId", "lifecycleStatus"),
			"outputSchema": obj(map[string]any{"success": map[string]any{"type": "boolean"}, "message": str}, "success")},
	}
	if s.has("reports/tools") {
		tools = tools[:2]
	}
	return tools
}

// summary returns a copy of report r with its lifecycle status.
func (st *reportStore) summary(r map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range r {
		out[k] = v
	}
	ls := st.lifecycle[r["id"].(string)]
	if ls == "" {
		ls = "unread"
	}
	out["lifecycleStatus"] = ls
	return out
}

func (s *Server) reportCall(c *call, name string, args map[string]json.RawMessage) reply {
	st := s.store
	st.mu.Lock()
	defer st.mu.Unlock()
	arg := func(k string) string { v, _ := str(args, k); return v }
	switch name {
	case "REPORTS_LIST":
		cat, status := arg("category"), arg("status")
		if s.has("reports/list-filters") {
			status = ""
		}
		var list []map[string]any
		for _, r := range st.reports {
			if (cat == "" || r["category"] == cat) && (status == "" || r["status"] == status) {
				list = append(list, st.summary(r))
			}
		}
		sort.SliceStable(list, func(i, j int) bool {
			a, b := list[i]["updatedAt"].(string), list[j]["updatedAt"].(string)
			if s.has("reports/list-order") {
				return a < b
			}
			return a > b
		})
		if list == nil {
			list = []map[string]any{}
		}
		return s.reportResult(c, map[string]any{"reports": list})
	case "REPORTS_GET":
		id := arg("id")
		for _, r := range st.reports {
			if r["id"] == id {
				full := st.summary(r)
				sec := map[string]any{"type": "markdown", "content": "Details of " + id + "."}
				if s.has("reports/get") {
					sec = map[string]any{"type": "chart", "content": "?"}
				}
				full["sections"] = []any{sec, map[string]any{"type": "metrics", "title": "Numbers",
					"items": []any{map[string]any{"label": "Checks", "value": 12, "previousValue": 10}}}}
				return s.reportResult(c, full)
			}
		}
		if s.has("reports/get-unknown") {
			return c.errorf(-32602, "unknown report %q", id)
		}
		return s.toolResult(c, "no report with id "+id, nil, true)
	case "REPORTS_UPDATE_STATUS":
		id, ls := arg("reportId"), arg("lifecycleStatus")
		found := false
		for _, r := range st.reports {
			found = found || r["id"] == id
		}
		if !found || (ls != "unread" && ls != "read" && ls != "dismissed") {
			return s.toolResult(c, "unknown report or status", nil, true)
		}
		if !s.has("reports/update-status") {
			st.lifecycle[id] = ls
		}
		return s.reportResult(c, map[string]any{"success": true})
	}
	return c.errorf(-32602, "unknown tool %q", name)
}

// reportResult returns structured content with the same JSON as text.
func (s *Server) reportResult(c *call, v map[string]any) reply {
	text := string(mustJSON(v))
	if s.has("reports/list-shape") {
		text = "{}"
	}
	res := map[string]any{"content": []map[string]any{{"type": "text", "text": text}}, "structuredContent": v}
	return s.result(c, res)
}
