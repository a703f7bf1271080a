package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
)

// This file holds what travels between a client request and its upstream session:
// the forwarded calls, and the upstream's messages routed back to the client.

func (uc *upConn) begin(ss *mcp.ServerSession, ctx context.Context) *call {
	c := &call{ss: ss, ctx: ctx}
	uc.mu.Lock()
	uc.calls = append(uc.calls, c)
	uc.mu.Unlock()
	return c
}

func (uc *upConn) end(c *call) {
	uc.mu.Lock()
	for i, x := range uc.calls {
		if x == c {
			uc.calls = append(uc.calls[:i], uc.calls[i+1:]...)
			break
		}
	}
	uc.mu.Unlock()
}

// target finds the client request an upstream message belongs to: the call whose
// context it carries, else the latest call in flight on this upstream session.
func (uc *upConn) target(ctx context.Context) *call {
	if c, ok := ctx.Value(callKey{}).(*call); ok {
		return c
	}
	uc.mu.Lock()
	defer uc.mu.Unlock()
	if n := len(uc.calls); n > 0 {
		return uc.calls[n-1]
	}
	return nil
}

var errNoRequest = errors.New("gateway: no client request in flight to carry this request")

func (uc *upConn) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	c := uc.target(ctx)
	if c == nil {
		return nil, errNoRequest
	}
	res, err := c.ss.Elicit(c.ctx, req.Params)
	c.noteInput(err)
	if errors.Is(err, mcp.ErrCapabilityNotSupported) {
		// The client cannot be asked (the upstream session is shared, or the client
		// declared elicitation only for another mode): the gateway declines for it,
		// which an upstream handles as it would the user's refusal.
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return res, err
}

func (uc *upConn) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	c := uc.target(ctx)
	if c == nil {
		return nil, errNoRequest
	}
	res, err := c.ss.CreateMessage(c.ctx, req.Params)
	c.noteInput(err)
	return res, err
}

// noteInput keeps the "input required" error of a 2026-07-28 client: the forwarded
// call then answers with it, and the client's retry runs the upstream call again.
func (c *call) noteInput(err error) {
	if err != nil && mcp.IsInputRequired(err) {
		c.mu.Lock()
		if c.inputErr == nil {
			c.inputErr = err
		}
		c.mu.Unlock()
	}
}

func (c *call) inputRequired() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.inputErr
}

func (uc *upConn) log(ctx context.Context, cs *mcp.ClientSession, prm *mcp.LoggingMessageParams) {
	logger := firstNonEmpty(prm.Logger, uc.p.name)
	if c := uc.target(ctx); c != nil {
		_ = c.ss.Log(c.ctx, prm.Level, logger, prm.Data)
		return
	}
	if uc.owner != nil {
		_ = uc.owner.Log(uc.p.ctx, prm.Level, logger, prm.Data)
		return
	}
	uc.p.broadcastLog(prm.Level, logger, prm.Data)
}

// broadcastLog sends a log message of the shared upstream, sent outside any request,
// to every client of the server. It runs off the upstream's reader (so a slow client
// never holds up the upstream session), at most maxLogFanouts at a time; beyond that
// the message is dropped and counted. Each client gets it within logWriteTimeout.
func (p *upstreamPart) broadcastLog(level mcp.LoggingLevel, logger string, data any) {
	select {
	case p.logSem <- struct{}{}:
	default:
		p.mu.Lock()
		p.droppedLogs++
		p.mu.Unlock()
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		<-p.logSem
		return
	}
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		defer func() { <-p.logSem }()
		for _, ss := range p.srv.Sessions() {
			ctx, cancel := context.WithTimeout(p.ctx, logWriteTimeout)
			_ = ss.Log(ctx, level, logger, data)
			cancel()
		}
	}()
}

// forward runs fn on the upstream session that serves ss, as a call that upstream
// messages can be routed to, within the server's timeout.
func (p *upstreamPart) forward(ctx context.Context, ss *mcp.ServerSession, fn func(ctx context.Context, uc *upConn) error) error {
	uc, err := p.connFor(ctx, ss)
	if err != nil {
		return err
	}
	c := uc.begin(ss, ctx)
	defer uc.end(c)
	cctx, cancel := context.WithTimeout(context.WithValue(ctx, callKey{}, c), p.server.timeout())
	defer cancel()
	err = fn(cctx, uc)
	if ie := c.inputRequired(); ie != nil {
		return ie
	}
	if err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: no answer within %v: %w", p.name, p.server.timeout(), err)
	}
	return err
}

func (p *upstreamPart) toolHandler(name string, asTask bool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var res *mcp.CallToolResult
		err := p.forward(ctx, req.Session, func(cctx context.Context, uc *upConn) error {
			if _, ok := req.Params.Meta["progressToken"]; ok {
				cctx = mcp.WithProgress(cctx, func(pn *mcp.ProgressNotificationParams) {
					_ = req.Session.NotifyProgress(ctx, pn.Progress, pn.Total, pn.Message)
				})
			}
			var err error
			params := &mcp.CallToolParams{Name: name, Arguments: req.Params.Arguments}
			if asTask {
				var task *mcp.Task
				task, res, err = uc.cs.CallToolAsTask(cctx, params, 0)
				if err == nil && task != nil {
					res, err = uc.cs.TaskResult(cctx, task.ID)
				}
			} else {
				res, err = uc.cs.CallTool(cctx, params)
			}
			if errors.Is(err, mcp.ErrInvalidStructuredContent) && res != nil {
				err = nil // the gateway's own server checks the result against the schema
			}
			return err
		})
		if err == nil {
			return res, nil
		}
		var je *jsonrpc.Error
		if errors.As(err, &je) || mcp.IsInputRequired(err) || ctx.Err() != nil {
			return nil, err
		}
		p.errs.Add(fmt.Sprintf("tools/call %s: %v", name, err))
		return mcp.ErrorResult("%s: %v", p.name, err), nil
	}
}

func (p *upstreamPart) readHandler(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	var res *mcp.ReadResourceResult
	err := p.forward(ctx, req.Session, func(cctx context.Context, uc *upConn) error {
		var err error
		res, err = uc.cs.ReadResource(cctx, &mcp.ReadResourceParams{URI: req.Params.URI})
		return err
	})
	if mcp.IsResourceNotFound(err) {
		return nil, fmt.Errorf("%w: %s", mcp.ErrResourceNotFound, req.Params.URI)
	}
	return res, err
}

func (p *upstreamPart) promptHandler(name string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		var res *mcp.GetPromptResult
		err := p.forward(ctx, req.Session, func(cctx context.Context, uc *upConn) error {
			var err error
			res, err = uc.cs.GetPrompt(cctx, &mcp.GetPromptParams{Name: name, Arguments: req.Params.Arguments})
			return err
		})
		return res, err
	}
}

func (p *upstreamPart) subscribe(ctx context.Context, ss *mcp.ServerSession, uri string) error {
	return p.forward(ctx, ss, func(cctx context.Context, uc *upConn) error {
		return uc.cs.Subscribe(cctx, &mcp.SubscribeParams{URI: uri})
	})
}

func (p *upstreamPart) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var res *mcp.CompleteResult
	err := p.forward(ctx, req.Session, func(cctx context.Context, uc *upConn) error {
		var err error
		res, err = uc.cs.Complete(cctx, req.Params)
		return err
	})
	return res, err
}

func (p *upstreamPart) initialized(ctx context.Context, ss *mcp.ServerSession) {
	p.ensureStarted()
}

// rootsChanged passes a client's new roots to its own upstream session (per-client
// mode; a shared upstream session declares no roots).
func (p *upstreamPart) rootsChanged(ctx context.Context, ss *mcp.ServerSession) {
	p.mu.Lock()
	slot := p.clients[ss]
	p.mu.Unlock()
	if slot == nil {
		return
	}
	select {
	case <-slot.ready:
	case <-ctx.Done():
		return
	}
	if slot.uc == nil {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	res, err := ss.ListRoots(rctx)
	if err != nil {
		p.errs.Add("roots/list of a client: " + err.Error())
		return
	}
	slot.uc.client.SetRoots(rctx, res.Roots)
}
