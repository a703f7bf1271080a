package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// Server-to-client messages. Call them with the handler's context: on transports with
// several streams (Streamable HTTP) they then travel on the stream of the request
// being handled, and they are refused when the client did not declare the capability
// they need.

// Elicit asks the user for input through the client (elicitation/create). Form mode
// (the default) needs a RequestedSchema in the restricted subset; URL mode needs URL
// and ElicitationID. It returns an error wrapping ErrCapabilityNotSupported when the
// client did not declare elicitation (or the mode). Under 2026-07-28 it works through
// Input (key "elicitation-N"): return its error from the handler unchanged.
func (ss *ServerSession) Elicit(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
	rev, caps := ss.revisionFor(ctx)
	if rev == nil || caps == nil {
		return nil, ErrNotInitialized
	}
	req, err := prepareElicit(rev, caps, p)
	if err != nil {
		return nil, err
	}
	if rev.stateless {
		res, err := ss.Input(ctx, map[string]InputRequest{autoKey(ctx, "elicitation"): ElicitInput(p)})
		if err != nil {
			return nil, err
		}
		return res.Elicit(res.Keys()[0])
	}
	var raw json.RawMessage
	if err := ss.call(ctx, "elicitation/create", req, &raw); err != nil {
		return nil, err
	}
	if err := checkInputAnswer(ElicitInput(req), req, raw); err != nil {
		return nil, fmt.Errorf("elicitation: %w", err)
	}
	var res ElicitResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	if req.Mode == ElicitModeURL {
		ss.mu.Lock()
		if ss.urlElicits == nil {
			ss.urlElicits = map[string]struct{}{}
		}
		ss.urlElicits[req.ElicitationID] = struct{}{}
		ss.mu.Unlock()
	}
	return &res, nil
}

// NotifyElicitationComplete tells the client that the out-of-band interaction of a
// URL-mode elicitation it was sent has finished. Unknown ids are refused.
func (ss *ServerSession) NotifyElicitationComplete(ctx context.Context, elicitationID string) error {
	ss.mu.Lock()
	_, ok := ss.urlElicits[elicitationID]
	if ok {
		delete(ss.urlElicits, elicitationID)
	}
	ss.mu.Unlock()
	if !ok {
		return fmt.Errorf("elicitation %q was never sent to this client", elicitationID)
	}
	return ss.conn.Notify(ctx, "notifications/elicitation/complete", &ElicitationCompleteParams{ElicitationID: elicitationID})
}

// CreateMessage asks the client to sample from a model (sampling/createMessage).
func (ss *ServerSession) CreateMessage(ctx context.Context, p *CreateMessageParams) (*CreateMessageResult, error) {
	rev, caps := ss.revisionFor(ctx)
	if rev == nil || caps == nil {
		return nil, ErrNotInitialized
	}
	if err := prepareSampling(rev, caps, p); err != nil {
		return nil, err
	}
	if rev.stateless {
		res, err := ss.Input(ctx, map[string]InputRequest{autoKey(ctx, "sampling"): SamplingInput(p)})
		if err != nil {
			return nil, err
		}
		return res.Sampling(res.Keys()[0])
	}
	var res CreateMessageResult
	if err := ss.call(ctx, "sampling/createMessage", p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// checkToolLoop enforces the tool-use message rules of sampling: a user message with
// tool_result blocks holds only those, and every tool_use is answered by the next
// message.
func checkToolLoop(msgs []*SamplingMessage) error {
	for i, m := range msgs {
		var uses []string
		results, others := 0, 0
		for _, c := range m.Content {
			switch v := c.(type) {
			case *ToolUseContent:
				uses = append(uses, v.ID)
			case *ToolResultContent:
				results++
			default:
				others++
			}
		}
		if results > 0 && others > 0 {
			return fmt.Errorf("message %d mixes tool_result blocks with other content", i)
		}
		if len(uses) > 0 && i+1 < len(msgs) {
			answered := map[string]bool{}
			for _, c := range msgs[i+1].Content {
				if r, ok := c.(*ToolResultContent); ok {
					answered[r.ToolUseID] = true
				}
			}
			for _, id := range uses {
				if !answered[id] {
					return fmt.Errorf("tool_use %q in message %d is not answered by the next message", id, i)
				}
			}
		}
	}
	return nil
}

// ListRoots asks the client for its roots (roots/list).
func (ss *ServerSession) ListRoots(ctx context.Context) (*ListRootsResult, error) {
	rev, caps := ss.revisionFor(ctx)
	if rev == nil || caps == nil {
		return nil, ErrNotInitialized
	}
	if caps.Roots == nil {
		return nil, fmt.Errorf("roots: %w: the client did not declare roots", ErrCapabilityNotSupported)
	}
	if rev.stateless {
		res, err := ss.Input(ctx, map[string]InputRequest{autoKey(ctx, "roots"): RootsInput()})
		if err != nil {
			return nil, err
		}
		return res.Roots(res.Keys()[0])
	}
	var res ListRootsResult
	if err := ss.call(ctx, "roots/list", struct{}{}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Ping checks that the client answers.
func (ss *ServerSession) Ping(ctx context.Context) error {
	var res json.RawMessage
	return ss.call(ctx, "ping", struct{}{}, &res)
}

// Log sends a notifications/message to the client when the server declared logging
// and level is at least the level the client set (all levels until it sets one).
func (ss *ServerSession) Log(ctx context.Context, level LoggingLevel, logger string, data any) error {
	if level.severity() < 0 {
		return fmt.Errorf("mcp: unknown logging level %q", level)
	}
	if ss.server.opts.DisableLogging {
		return nil
	}
	ss.mu.Lock()
	min := ss.logLevel
	ss.mu.Unlock()
	if ri := requestInfoFrom(ctx); ri != nil && ri.logLevel != "" {
		min = ri.logLevel
	} else if ri != nil && ri.modernLogging {
		// 2026-07-28: no log messages for a request that did not ask for them.
		return nil
	}
	if min != "" && level.severity() < min.severity() {
		return nil
	}
	return ss.notifyFor(ctx, "notifications/message", &LoggingMessageParams{Level: level, Logger: logger, Data: data})
}

// NotifyProgress reports progress on the request ctx belongs to. It does nothing when
// the client asked for no progress (no progressToken). progress must increase with
// every call, and nothing is sent once the request has been answered.
func (ss *ServerSession) NotifyProgress(ctx context.Context, progress float64, total *float64, message string) error {
	ri := requestInfoFrom(ctx)
	if ri == nil || ri.progressToken == nil {
		return nil
	}
	if ri.done.Load() {
		return errors.New("mcp: progress after the request was answered")
	}
	if t := ri.task.Load(); t != nil && t.terminal() {
		return errors.New("mcp: progress after the task ended")
	}
	ri.mu.Lock()
	if ri.sentProgress && progress <= ri.lastProgress {
		ri.mu.Unlock()
		return fmt.Errorf("mcp: progress must increase (%v after %v)", progress, ri.lastProgress)
	}
	ri.sentProgress, ri.lastProgress = true, progress
	ri.mu.Unlock()
	p := &ProgressNotificationParams{ProgressToken: ri.progressToken, Progress: progress, Total: total}
	if ri.rev.progressMessage {
		p.Message = message
	}
	return ss.notifyFor(ctx, "notifications/progress", p)
}

// call sends a server-to-client request; when ctx ends first the client is told
// with notifications/cancelled.
func (ss *ServerSession) call(ctx context.Context, method string, params, result any) error {
	select {
	case <-ss.conn.Done():
		return ErrSessionClosed
	default:
	}
	if t := taskOf(ctx); t != nil && !t.modern {
		return t.call(ctx, ss, method, params, result)
	}
	return callCancellable(ctx, ss.conn, method, params, result)
}

// callCancellable makes a call and, if ctx ends before the answer, sends
// notifications/cancelled for it.
func callCancellable(ctx context.Context, conn *jsonrpc.Conn, method string, params, result any) error {
	err := conn.Call(ctx, method, params, result)
	if err != nil && ctx.Err() != nil {
		if id, ok := jsonrpc.CanceledCallID(err); ok {
			_ = conn.Notify(context.WithoutCancel(ctx), "notifications/cancelled",
				&CancelledNotificationParams{RequestID: json.RawMessage(id.Raw()), Reason: ctx.Err().Error()})
		}
	}
	return err
}
