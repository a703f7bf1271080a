package conformance

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"time"
)

// C is handed to a check while it runs. Failf records a failure and goes
// on; Fatalf, NA and NotTestablef record their verdict and stop the check
// (they call runtime.Goexit, so use them only from the check's goroutine).
type C struct {
	ctx      context.Context
	run      *revRun
	check    *Check
	failures []string
	notes    []string
	stop     Outcome // NotApplicable / NotTestable when stopped early
	reason   string
	sessions []*Session
	trace    exchangeTrace
	exchange string // the exchange at the first failure or not-testable verdict
}

// Revision returns the revision the check runs under.
func (c *C) Revision() string { return c.run.revision }

// Modern reports whether the revision is 2026-07-28 or later.
func (c *C) Modern() bool { return isModern(c.run.revision) }

// Transport returns the transport of the target.
func (c *C) Transport() Transport { return c.run.target.Kind() }

// Target returns the target under test.
func (c *C) Target() Target { return c.run.target }

// Failf records a failure with evidence and continues. The first failure
// keeps the exchange that led to it (the last request sent and what came
// back).
func (c *C) Failf(format string, args ...any) {
	if len(c.failures) == 0 {
		c.exchange = c.trace.render()
	}
	c.failures = append(c.failures, fmt.Sprintf(format, args...))
}

// Fatalf records a failure and stops the check. When one of args is an
// error saying that an exchange ran out of time, the server is not to blame
// for what the check could not see: the check stops as not testable instead
// ("timed out after N s (try -timeout)").
func (c *C) Fatalf(format string, args ...any) {
	for _, a := range args {
		if err, ok := a.(error); ok && isTimeout(err) {
			msg := fmt.Sprintf(format, args...)
			msg = strings.TrimSuffix(strings.TrimSuffix(msg, context.DeadlineExceeded.Error()), ": ")
			c.timedOut(msg)
		}
		if err, ok := a.(error); ok && errors.Is(err, errClosedForResumption) {
			c.NotTestablef(format, args...)
		}
	}
	c.Failf(format, args...)
	runtime.Goexit()
}

// timedOut stops the check as not testable because an exchange described
// by what did not finish within the time limit.
func (c *C) timedOut(what string) {
	c.NotTestablef("%s: timed out after %s (try -timeout)", what, fmtDuration(c.timeout()))
}

// isTimeout reports whether err is a deadline running out (the suite's
// per-exchange limit or the check's own bound), as opposed to an answer or
// a broken connection.
func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}

// fmtDuration prints d the way -timeout takes it ("10s", "1.5s", "200ms").
func fmtDuration(d time.Duration) string {
	if d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf("%d s", int64(d/time.Second))
	}
	return d.String()
}

// Logf records a note shown with the result.
func (c *C) Logf(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// NA stops the check as not applicable (the server lacks the prerequisite).
func (c *C) NA(format string, args ...any) {
	c.stop, c.reason = NotApplicable, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// NotTestablef stops the check as not testable (counts as a failure).
func (c *C) NotTestablef(format string, args ...any) {
	if len(c.failures) == 0 {
		c.exchange = c.trace.render()
	}
	c.stop, c.reason = NotTestable, fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// Ctx returns a context bounded by the exchange timeout.
func (c *C) Ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, c.run.opts.timeout())
}

// timeout returns the per-exchange timeout.
func (c *C) timeout() time.Duration { return c.run.opts.timeout() }

// Dial opens a connection without any handshake. For the stateless
// revision it is ready for requests.
func (c *C) Dial() *Session {
	s, err := c.run.dial(c.ctx)
	if err != nil {
		c.NotTestablef("connecting: %v", err)
	}
	s.onMsg = c.validate
	s.onCall = c.run.noteCall
	s.trace = &c.trace
	s.toolSchema = c.run.listedToolSchema
	c.sessions = append(c.sessions, s)
	return s
}

// Session opens a ready session: connected and, in the initialize era,
// initialized (with notifications/initialized sent).
func (c *C) Session() *Session {
	s := c.Dial()
	if !s.modern {
		ctx, cancel := c.Ctx()
		defer cancel()
		if err := s.initialize(ctx, true); err != nil {
			if isTimeout(err) {
				c.timedOut("handshake")
			}
			c.NotTestablef("handshake: %v", err)
		}
	}
	return s
}

// Call sends a request on s; a transport failure or timeout fails the
// check.
func (c *C) Call(s *Session, method string, params map[string]any) *Exchange {
	ctx, cancel := c.Ctx()
	defer cancel()
	ex, err := s.Call(ctx, method, params)
	if err != nil {
		c.Fatalf("%v", err) // the error names the method
	}
	return ex
}

// Result sends a request and requires a result object.
func (c *C) Result(s *Session, method string, params map[string]any) Obj {
	ex := c.Call(s, method, params)
	r, err := resultOrErr(ex)
	if err != nil {
		c.Fatalf("%s: %v", method, err)
	}
	return r
}

// RequireError sends a request and requires a JSON-RPC error with one of
// codes (any code when codes is empty). It returns the error.
func (c *C) RequireError(s *Session, method string, params map[string]any, codes ...int64) *RPCError {
	ex := c.Call(s, method, params)
	return c.expectError(method, ex.Response, codes...)
}

// expectError checks that m is an error response with one of codes.
func (c *C) expectError(what string, m Msg, codes ...int64) *RPCError {
	e := m.Error()
	if e == nil {
		c.Fatalf("%s: want a JSON-RPC error%s, got %s", what, codeList(codes), short(m.Raw))
	}
	code, ok := e.CodeInt()
	if !ok {
		c.Fatalf("%s: error code %q is not an integer", what, e.Code)
	}
	if len(codes) == 0 {
		return e
	}
	for _, want := range codes {
		if code == want {
			return e
		}
	}
	c.Fatalf("%s: error code %d, want%s (message %q)", what, code, codeList(codes), e.Message)
	return nil
}

func codeList(codes []int64) string {
	if len(codes) == 0 {
		return ""
	}
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprint(c)
	}
	return " " + strings.Join(parts, " or ")
}

// Ping requires that s still answers.
func (c *C) Ping(s *Session, after string) {
	ctx, cancel := c.Ctx()
	defer cancel()
	s.quiet = true
	err := s.Ping(ctx)
	s.quiet = false
	if err != nil {
		c.Fatalf("session no longer works after %s: %v", after, err)
	}
}

// Caps returns the server capabilities found when the run started.
func (c *C) Caps() Obj { return c.run.caps }

// HasCap reports whether the server declared capability name.
func (c *C) HasCap(name string) bool { _, ok := c.run.caps[name]; return ok }

// NeedCap stops the check as not applicable unless name is declared.
func (c *C) NeedCap(name string) {
	if !c.HasCap(name) {
		c.NA("server does not declare the %q capability", name)
	}
}

// Tools returns every tool (all pages), listed once per run.
func (c *C) Tools() []Obj { return c.run.list(c, "tools/list", "tools") }

// Prompts returns every prompt.
func (c *C) Prompts() []Obj { return c.run.list(c, "prompts/list", "prompts") }

// Resources returns every resource.
func (c *C) Resources() []Obj { return c.run.list(c, "resources/list", "resources") }

// Templates returns every resource template.
func (c *C) Templates() []Obj { return c.run.list(c, "resources/templates/list", "resourceTemplates") }

// HTTPDo performs a raw HTTP request against the target URL (Streamable
// HTTP) with the user's headers plus hdr.
func (c *C) HTTPDo(s *Session, method string, body []byte, hdr http.Header) *HTTPReply {
	hc, ok := s.conn.(*httpConn)
	if !ok {
		c.NotTestablef("not an HTTP connection")
	}
	ctx, cancel := c.Ctx()
	defer cancel()
	c.trace.sentHTTP(s, method, body, hdr, s.Mark())
	r, err := hc.do(ctx, method, hc.url, body, hdr, method)
	c.trace.replied(s, r)
	if err != nil {
		c.Fatalf("%s %s: %v", method, hc.url, err)
	}
	return r
}

// validate applies -schema-dir validation to a message seen during the
// check.
func (c *C) validate(method string, m Msg) {
	if c.run.schema == nil {
		return
	}
	if err := c.run.schema.validate(method, m); err != nil {
		c.Failf("schema: %v", err)
	}
}

// closeAll ends the sessions the check opened, in the background: the run
// waits for them before it returns.
func (c *C) closeAll() {
	for _, s := range c.sessions {
		c.run.closeLater(s)
	}
}
