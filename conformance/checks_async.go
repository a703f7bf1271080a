package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Checks of requests that take a while: cancellation of a request in
// flight, and resumption of an interrupted SSE stream with Last-Event-ID.

const (
	// slowFor is how long the suite asks a slow tool to run. The
	// cancellation window covers it, so it is kept short.
	slowFor = time.Second
	// inFlightWait bounds the wait for a sign that a request is running
	// (a progress notification, an event stream) before it is cancelled.
	inFlightWait = 250 * time.Millisecond
	// lateGrace is how long after the ping (and after the time the tool
	// would have needed) a late response is still waited for.
	lateGrace = 300 * time.Millisecond
	// maxRetryWait bounds how long the suite honours an SSE retry field.
	maxRetryWait = 2 * time.Second
)

func init() {
	register(
		&Check{ID: "utilities/cancel-in-flight", Area: AreaUtilities, Severity: SHOULD, Until: Rev20251125,
			Requirement: "After notifications/cancelled for a request in flight, no response and no progress for it follow, and the session keeps working",
			Run:         runCancelInFlight},
		&Check{ID: "http/resume", Area: AreaHTTP, Severity: SHOULD, Transports: HTTP, Since: Rev20250326, Until: Rev20251125,
			Requirement: "After a disconnect, GET with Last-Event-ID delivers the rest of that SSE stream, its response included, and replays nothing at or before that id",
			Run:         runResume},
		&Check{ID: "http/event-id-unique", Area: AreaHTTP, Severity: MUST, Transports: HTTP, Since: Rev20250326, Until: Rev20251125,
			Requirement: "SSE event ids are unique across all the streams of a session",
			Run:         runEventIDUnique},
	)
}

// slowTool is a tool the suite can make run for a chosen time.
type slowTool struct {
	toolCall
	prop    string // the duration argument
	millis  bool   // prop counts milliseconds, not seconds
	integer bool
	max     float64 // schema maximum (+Inf when none)
}

// argsFor returns the tool's arguments asking it to run for d (bounded by
// the schema's maximum).
func (t slowTool) argsFor(d time.Duration) map[string]any {
	v := d.Seconds()
	if t.millis {
		v = float64(d.Milliseconds())
	}
	v = math.Min(v, t.max)
	args := map[string]any{}
	for k, x := range t.args {
		args[k] = x
	}
	if t.integer {
		args[t.prop] = int64(math.Ceil(v))
	} else {
		args[t.prop] = v
	}
	return args
}

// findSlowTool looks for slow_compute (the official suite's fixture), then
// for a tool whose name hints at slowness, with a numeric argument that
// reads as a duration and can be set to at least half of slowFor. It stops
// the check as not applicable when there is none.
func findSlowTool(c *C) slowTool {
	tcs := c.callableTools()
	var hinted []toolCall
	for _, tc := range tcs {
		if tc.name == "slow_compute" {
			hinted = append([]toolCall{tc}, hinted...)
			continue
		}
		n := strings.ToLower(tc.name)
		for _, w := range []string{"slow", "long", "sleep", "wait", "delay"} {
			if strings.Contains(n, w) {
				hinted = append(hinted, tc)
				break
			}
		}
	}
	for _, tc := range hinted {
		if st, ok := durationArg(tc); ok {
			return st
		}
	}
	c.NA("no slow tool (slow_compute, or a slow/long/sleep/wait/delay tool with a duration argument) to keep a request in flight")
	return slowTool{}
}

// durationArg finds a duration-like numeric property in tc's input schema.
func durationArg(tc toolCall) (slowTool, bool) {
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if json.Unmarshal(tc.tool["inputSchema"], &s) != nil {
		return slowTool{}, false
	}
	best, bestRank := "", 0
	for name, ps := range s.Properties {
		if t := schemaType(ps); t != "number" && t != "integer" {
			continue
		}
		n := strings.ToLower(name)
		rank := 0
		switch {
		case n == "seconds" || n == "secs":
			rank = 3
		case strings.Contains(n, "second") || strings.Contains(n, "duration") || strings.Contains(n, "delay") ||
			strings.Contains(n, "sleep") || strings.Contains(n, "wait"):
			rank = 2
		case strings.HasSuffix(n, "ms") || strings.Contains(n, "milli") || strings.Contains(n, "time"):
			rank = 1
		}
		if rank > bestRank || (rank == bestRank && rank > 0 && name < best) {
			best, bestRank = name, rank
		}
	}
	if best == "" {
		return slowTool{}, false
	}
	ps := s.Properties[best]
	n := strings.ToLower(best)
	st := slowTool{toolCall: tc, prop: best, max: math.Inf(1), integer: schemaType(ps) == "integer",
		millis: strings.HasSuffix(n, "ms") || strings.Contains(n, "milli")}
	if m, ok := ps["maximum"].(float64); ok {
		st.max = m
	}
	unit := 1.0
	if st.millis {
		unit = 1000
	}
	return st, st.max >= slowFor.Seconds()*unit/2
}

// pendingCall is a request sent without waiting for its response.
type pendingCall struct {
	id   string
	sent chan struct{} // closed once the send returned (HTTP: reply headers)
	stop context.CancelFunc
	err  error
}

// startCall sends a request in the background (a Streamable HTTP POST may
// not return before the response) and returns at once. wait ends it.
func startCall(c *C, s *Session, method string, params map[string]any) *pendingCall {
	ctx, stop := context.WithTimeout(c.ctx, c.timeout())
	p := &pendingCall{id: s.newID(), sent: make(chan struct{}), stop: stop}
	body, hdr := s.request(p.id, method, params), s.headers(method, params)
	go func() {
		defer close(p.sent)
		_, p.err = s.conn.send(ctx, body, hdr)
	}()
	return p
}

// wait cancels what is left of the send and waits for its goroutine.
func (p *pendingCall) wait() {
	p.stop()
	<-p.sent
}

// waitOr waits for a message after mark satisfying pred until d passes, ctx
// ends or extra is closed; it reports whether such a message came.
func waitOr(ctx context.Context, s *Session, mark int, d time.Duration, extra <-chan struct{}, pred func(Msg) bool) bool {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-extra:
			cancel()
		case <-done:
		}
	}()
	_, err := s.WaitFrom(wctx, mark, pred)
	return err == nil
}

func progressFor(token string) func(Msg) bool {
	tok := string(mustJSON(token))
	return func(m Msg) bool {
		return m.Method() == "notifications/progress" && string(m.Params()["progressToken"]) == tok
	}
}

func runCancelInFlight(c *C) {
	st := findSlowTool(c)
	s := c.Session()
	if s.kind == HTTP && s.sessionID == "" {
		// The cancellation travels in a POST of its own; without a session
		// nothing ties it to the request (ids are only unique per client).
		c.NA("the server issues no session id: a cancellation cannot be tied to a request on another HTTP exchange")
	}
	for attempt := 1; attempt <= 2; attempt++ {
		d := slowFor * time.Duration(attempt*attempt)
		token := "cancel-" + strconv.Itoa(attempt)
		params := map[string]any{"name": st.name, "arguments": st.argsFor(d), "_meta": map[string]any{"progressToken": token}}
		mark, start := s.Mark(), time.Now()
		p := startCall(c, s, "tools/call", params)
		answered := func(m Msg) bool { return m.IsResponse() && m.IDRaw() == p.id }
		// In flight: a progress notification for it, its event stream, or a
		// short delay.
		waitOr(c.ctx, s, mark, inFlightWait, p.sent, func(m Msg) bool { return answered(m) || progressFor(token)(m) })
		cancelAt := s.Mark()
		body := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + p.id + `,"reason":"conformance: cancel-in-flight"}}`
		ctx, cancel := c.Ctx()
		_, err := s.Send(ctx, []byte(body), nil)
		cancel()
		if err != nil {
			p.wait()
			c.Fatalf("sending notifications/cancelled: %v", err)
		}
		c.Ping(s, "notifications/cancelled")
		// What the server wrote before it read the cancellation may still be
		// on its way (on HTTP the request's stream and the ping travel apart):
		// progress counts as late only after a grace period.
		got := waitOr(c.ctx, s, mark, lateGrace, nil, answered)
		lateMark := s.Mark()
		// A response that ignores the cancellation comes when the tool is
		// done: wait past that too.
		if rest := time.Until(start.Add(d + lateGrace)); !got && rest > 0 {
			got = waitOr(c.ctx, s, mark, rest, nil, answered)
		}
		p.wait()
		if got {
			m, idx, _ := s.conn.box().wait(c.ctx, mark, answered)
			if idx < cancelAt {
				c.Logf("attempt %d: %q answered within %v, before the cancellation was sent", attempt, st.name, time.Since(start).Round(time.Millisecond))
				continue
			}
			c.Fatalf("the cancelled request (id %s) was answered: %s", p.id, short(m.Raw))
		}
		for _, m := range s.Since(lateMark) {
			if progressFor(token)(m) {
				c.Failf("progress for the cancelled request after the cancellation was acknowledged: %s", short(m.Raw))
			}
		}
		if p.err != nil && s.kind != HTTP {
			c.Failf("sending the request: %v", p.err)
		}
		return
	}
	c.NA("tool %q finished before it could be cancelled", st.name)
}

// resumable is the first half of a resumption: the interrupted stream and
// the request whose response it owes.
type resumable struct {
	id     string
	events []SSEEvent // what the client saw before the disconnect
}

// lastID returns the id of the last event that had one, and its retry
// field (the last one sent).
func (r resumable) lastID() (string, string, bool) {
	id, retry, ok := "", "", false
	for _, ev := range r.events {
		if ev.Retry != "" {
			retry = ev.Retry
		}
		if ev.HasID {
			id, ok = ev.ID, true
		}
	}
	return id, retry, ok
}

func (r resumable) answered() bool {
	for _, ev := range r.events {
		if m := parseMsg([]byte(ev.Data), ""); ev.Data != "" && m.IsResponse() && m.IDRaw() == r.id {
			return true
		}
	}
	return false
}

func runResume(c *C) {
	s := c.Session()
	hc, ok := s.conn.(*httpConn)
	if !ok {
		c.NotTestablef("not an HTTP connection")
	}
	var r resumable
	why := ""
	if hasTool(c, "test_reconnection") && c.run.opts.toolPolicy() != CallNone {
		r, why = serverClosedStream(c, s, hc)
	}
	if r.id == "" {
		if why != "" {
			c.Logf("%s; trying a slow tool instead", why)
		}
		r = clientDroppedStream(c, s, hc)
	}
	last, retry, ok := r.lastID()
	if !ok {
		c.NA("the events of the stream carry no ids: the server offers no resumption")
	}
	if ms, err := strconv.Atoi(retry); err == nil && ms > 0 {
		// The client must wait the retry interval before reconnecting.
		t := time.NewTimer(min(time.Duration(ms)*time.Millisecond, maxRetryWait))
		select {
		case <-t.C:
		case <-c.ctx.Done():
		}
		t.Stop()
	}
	c.Logf("request %s: its event stream ended after event id %q (%d events), before the response; resuming with GET and Last-Event-ID", r.id, last, len(r.events))
	hdr := s.headers("", nil)
	hdr.Set("Accept", "text/event-stream")
	hdr.Set("Last-Event-ID", last)
	ctx, cancel := c.Ctx()
	defer cancel()
	// The exchange behind a verdict is this GET and what its stream carried.
	c.trace.sentHTTP(s, http.MethodGet, nil, http.Header{"Last-Event-ID": {last}}, s.Mark())
	reply, err := hc.do(ctx, http.MethodGet, hc.url, nil, hdr, "GET-resume")
	c.trace.replied(s, reply)
	if err != nil {
		c.Fatalf("GET with Last-Event-ID %q: %v", last, err)
	}
	if reply.Stream == nil {
		c.Fatalf("GET with Last-Event-ID %q: HTTP %d, Content-Type %q, not an event stream", last, reply.Status, reply.Header.Get("Content-Type"))
	}
	seenIDs, seenData := map[string]bool{}, map[string]bool{}
	for _, ev := range r.events {
		if ev.HasID {
			seenIDs[ev.ID] = true
		}
		if ev.Data != "" {
			seenData[ev.Data] = true
		}
	}
	for i := 0; ; i++ {
		ev, ok := reply.Stream.next(i, ctx.Done())
		if !ok {
			how := endedOrTimedOut(reply.Stream)
			if how == "timed out" {
				how += " after " + fmtDuration(c.timeout())
			}
			c.Fatalf("the resumed stream (Last-Event-ID %q) %s without the response to request %s (%d events)",
				last, how, r.id, len(reply.Stream.Events()))
		}
		if ev.HasID && seenIDs[ev.ID] {
			c.Failf("event id %q, already received before the disconnect, was sent again", ev.ID)
		}
		if ev.Data != "" && seenData[ev.Data] {
			c.Failf("a message received before the disconnect was replayed: %s", short([]byte(ev.Data)))
		}
		if m := parseMsg([]byte(ev.Data), ""); ev.Data != "" && m.IsResponse() && m.IDRaw() == r.id {
			return
		}
	}
}

func endedOrTimedOut(st *SSEStream) string {
	select {
	case <-st.Done():
		return "ended"
	default:
		return "timed out"
	}
}

func hasTool(c *C, name string) bool {
	if !c.HasCap("tools") {
		return false
	}
	for _, t := range c.Tools() {
		if n, _ := t.Str("name"); n == name {
			return true
		}
	}
	return false
}

// serverClosedStream calls test_reconnection, whose stream the server
// closes after priming it, before the result. When that leaves nothing to
// resume it returns the reason instead.
func serverClosedStream(c *C, s *Session, hc *httpConn) (resumable, string) {
	params := map[string]any{"name": "test_reconnection", "arguments": map[string]any{}}
	id := s.newID()
	ctx, cancel := c.Ctx()
	defer cancel()
	reply, err := hc.send(ctx, s.request(id, "tools/call", params), s.headers("tools/call", params))
	if err != nil {
		c.Fatalf("tools/call test_reconnection: %v", err)
	}
	if reply.Stream == nil {
		return resumable{}, fmt.Sprintf("test_reconnection was answered with HTTP %d %q, not an event stream", reply.Status, reply.Header.Get("Content-Type"))
	}
	if !waitStream(reply.Stream, c.timeout()) {
		return resumable{}, "test_reconnection: the server did not close its stream"
	}
	r := resumable{id: id, events: reply.Stream.Events()}
	if r.answered() {
		return resumable{}, "test_reconnection delivered its result before closing the stream"
	}
	return r, ""
}

// clientDroppedStream calls a slow tool and drops the connection once an
// event with an id has arrived (a disconnect is not a cancellation).
func clientDroppedStream(c *C, s *Session, hc *httpConn) resumable {
	st := findSlowTool(c)
	params := map[string]any{"name": st.name, "arguments": st.argsFor(slowFor), "_meta": map[string]any{"progressToken": "resume-1"}}
	id := s.newID()
	ctx, cancel := c.Ctx()
	defer cancel()
	reply, abort, err := hc.postAbortable(ctx, s.request(id, "tools/call", params), s.headers("tools/call", params))
	if err != nil {
		c.Fatalf("tools/call %s: %v", st.name, err)
	}
	defer abort()
	if reply.Stream == nil {
		c.NA("%s was answered with HTTP %d %q, not an event stream", st.name, reply.Status, reply.Header.Get("Content-Type"))
	}
	for i := 0; ; i++ {
		ev, ok := reply.Stream.next(i, ctx.Done())
		if !ok {
			c.NA("the stream of %s %s before any event with an id", st.name, endedOrTimedOut(reply.Stream))
		}
		if ev.HasID {
			break
		}
	}
	abort()
	<-reply.Stream.Done()
	r := resumable{id: id, events: reply.Stream.Events()}
	if r.answered() {
		c.NA("%s answered before the client disconnected: nothing to resume", st.name)
	}
	return r
}

func runEventIDUnique(c *C) {
	s := c.Session()
	var tcs []toolCall
	if c.run.opts.toolPolicy() != CallNone && c.HasCap("tools") {
		for _, tc := range preferTools(c.callableTools(), "progress", "long", "slow") {
			if tc.name != "test_reconnection" { // its stream ends without the response
				tcs = append(tcs, tc)
			}
		}
	}
	owner := map[string]int{} // event id → stream
	streams := 0
	for i, tc := range tcs[:min(4, len(tcs))] {
		ex := c.Call(s, "tools/call", map[string]any{"name": tc.name, "arguments": tc.args, "_meta": map[string]any{"progressToken": fmt.Sprintf("ids-%d", i)}})
		if ex.HTTP == nil || ex.HTTP.Stream == nil {
			continue
		}
		waitStream(ex.HTTP.Stream, c.timeout())
		withIDs := false
		for _, ev := range ex.HTTP.Stream.Events() {
			if !ev.HasID {
				continue
			}
			withIDs = true
			if prev, dup := owner[ev.ID]; dup {
				if prev == i {
					c.Failf("event id %q appears twice on the stream of %s", ev.ID, tc.name)
				} else {
					c.Failf("event id %q of the stream of %s was already used by the stream of %s", ev.ID, tc.name, tcs[prev].name)
				}
			}
			owner[ev.ID] = i
		}
		if withIDs {
			streams++
		}
		if streams == 2 {
			return
		}
	}
	c.NA("fewer than two event streams with event ids came back (%d)", streams)
}
