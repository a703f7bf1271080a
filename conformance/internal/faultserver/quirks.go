package faultserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Quirks are behaviours of correct servers that once made the suite report
// failures that were its own mistakes (seen against servers nobody here
// wrote). Each is switched on by name through Options.Quirks, and a test
// proves the suite now judges it fairly. The key is the quirk's name; the
// value says what the server then does.
var Quirks = map[string]string{
	"slow-default-duration": "lists long_operation, a read-only tool whose optional duration (seconds) defaults to 10 s, longer than the suite's exchange limit in tests (as server-everything's trigger-long-running-operation)",
	"stall-prompts-get":     "answers prompts/get only after stallFor, longer than the exchange limit the tests give the suite",
	"strict-prompt-args":    "refuses prompt arguments it cannot use with error -32603, the way a prompt that validates its input in code does",
	"delete-then-400":       "after DELETE, answers requests naming the ended session with HTTP 400 instead of 404",
	"silent-on-invalid":     "over stdio, answers nothing to a message it cannot take as a request (its -32700 or -32600 error is dropped), as server-everything does",
	"strict-tool-args":      "refuses the arguments of echo with JSON-RPC error -32603 and those of add with an isError result, as tools that check their input against the server's data do",
	"origin-400":            "refuses a foreign Origin with HTTP 400, not 403 (revisions before 2025-11-25 name no status)",
	"refuse-large-id":       "refuses a request whose integer id is beyond 2^53 with -32700 and a null id, as a JavaScript server does (a float64 cannot hold it)",
}

// beyondFloat reports whether a JSON number id is an integer a float64
// cannot hold exactly (beyond 2^53).
func beyondFloat(id json.RawMessage) bool {
	n, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil && (n > 1<<53 || n < -(1<<53))
}

// silenced drops the -32700 and -32600 errors from msgs under
// silent-on-invalid.
func (s *Server) silenced(msgs [][]byte) [][]byte {
	if !s.quirk("silent-on-invalid") {
		return msgs
	}
	var out [][]byte
	for _, m := range msgs {
		if !bytes.Contains(m, []byte(`"code":-32700`)) && !bytes.Contains(m, []byte(`"code":-32600`)) {
			out = append(out, m)
		}
	}
	return out
}

// stallFor is how long stall-prompts-get holds prompts/get.
const stallFor = 4 * time.Second

// longOpMax bounds long_operation, whatever it is asked.
const longOpMax = 10.0

func (s *Server) quirk(q string) bool { return s.quirks[q] }

func init() {
	registerTool("long_operation", extraTool{def: longOpDef, call: longOpCall})
}

func longOpDef(s *Server, _ string) map[string]any {
	if !s.quirk("slow-default-duration") {
		return nil
	}
	return map[string]any{
		"name":        "long_operation",
		"description": "Runs for duration seconds in steps, reporting progress at each step when asked.",
		"annotations": map[string]any{"readOnlyHint": true},
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
			"duration": map[string]any{"type": "number", "default": 10, "description": "Duration of the operation in seconds"},
			"steps":    map[string]any{"type": "number", "default": 5, "description": "Number of steps"},
		}},
	}
}

func longOpCall(s *Server, c *call, args map[string]json.RawMessage) reply {
	secs := 10.0
	if raw, ok := args["duration"]; ok {
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || f < 0 {
			return s.toolResult(c, "duration must be a non-negative number", nil, true)
		}
		secs = min(f, longOpMax)
	}
	s.progress(c)
	first := c.notes
	c.notes = nil
	text := fmt.Sprintf("Long operation completed in %g s", secs)
	return reply{msgs: first, stream: true, later: func() [][]byte {
		t := time.NewTimer(time.Duration(secs * float64(time.Second)))
		defer t.Stop()
		<-t.C
		return s.toolResult(c, text, nil, false).msgs
	}}
}
