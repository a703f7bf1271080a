package faultserver

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"
)

// slow_compute: a tool that takes a while, for cancellation and stream
// resumption. It follows the official suite's fixture name and its seconds
// argument; it does not run as a task (tasks.go has its own tool).

// maxSlowSeconds bounds how long slow_compute runs, whatever it is asked:
// other checks call every tool with generated arguments.
const maxSlowSeconds = 3

func init() {
	Faults["utilities/cancel-in-flight"] = "finishes a cancelled request and answers it anyway"
	registerTool("slow_compute", extraTool{def: slowDef, call: slowCall})
	registerNotification("notifications/cancelled", func(s *Server, sess *session, in *incoming) reply {
		cancelInFlight(sess, in.params["requestId"])
		return reply{}
	})
}

func slowDef(*Server, string) map[string]any {
	return map[string]any{
		"name":        "slow_compute",
		"description": "Computes for the given number of seconds (at most 3), reporting progress when asked.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
			"seconds": map[string]any{"type": "number", "minimum": 0, "maximum": maxSlowSeconds, "default": 0},
			"label":   map[string]any{"type": "string"},
		}},
	}
}

// inflight holds the cancellable requests of initialize-era sessions: a
// notifications/cancelled naming one closes its channel.
var inflight = struct {
	sync.Mutex
	m map[inflightKey]chan struct{}
}{m: map[inflightKey]chan struct{}{}}

type inflightKey struct {
	sess *session
	id   string
}

// cancelInFlight cancels the request id of sess, if it is running.
func cancelInFlight(sess *session, id json.RawMessage) {
	if id == nil {
		return
	}
	inflight.Lock()
	defer inflight.Unlock()
	k := inflightKey{sess, string(id)}
	if ch, ok := inflight.m[k]; ok {
		close(ch)
		delete(inflight.m, k)
	}
}

func slowCall(s *Server, c *call, args map[string]json.RawMessage) reply {
	secs := 0.0
	if raw, ok := args["seconds"]; ok {
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil || f < 0 {
			return s.toolResult(c, "seconds must be a non-negative number", nil, true)
		}
		secs = min(f, maxSlowSeconds)
	}
	label, _ := str(args, "label")
	text := fmt.Sprintf("Computed %q in %gs", label, secs)
	s.progress(c)
	if secs == 0 {
		return s.toolResult(c, text, nil, false)
	}
	// The progress goes out at once; the result when the time is up, or
	// never when the client cancels the request first.
	first := c.notes
	c.notes = nil
	var cancelled chan struct{}
	if c.sess != nil && !s.has("utilities/cancel-in-flight") {
		cancelled = make(chan struct{})
		inflight.Lock()
		inflight.m[inflightKey{c.sess, string(c.id())}] = cancelled
		inflight.Unlock()
	}
	return reply{msgs: first, stream: true, later: func() [][]byte {
		t := time.NewTimer(time.Duration(secs * float64(time.Second)))
		defer t.Stop()
		select {
		case <-t.C:
		case <-cancelled: // nil (never ready) when nothing can cancel
			return nil
		}
		if cancelled != nil {
			k := inflightKey{c.sess, string(c.id())}
			inflight.Lock()
			if inflight.m[k] == cancelled {
				delete(inflight.m, k)
			}
			inflight.Unlock()
		}
		return s.toolResult(c, text, nil, false).msgs
	}}
}
