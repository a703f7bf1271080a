package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/wiremcp/wiremcp/jsonrpc"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/sse"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// allRT serves every enabled server's tools, resources and prompts on one endpoint,
// /mcp/all. Tools and prompts are named "server__name" (see allNames); resources
// keep their URIs (when two servers offer the same URI, the first server by name
// wins). It runs no tasks: tools that run only as tasks are left out. Calls go to the owning server's handlers, so per-client upstream sessions
// work the same way here.
type allRT struct {
	srv  *mcp.Server
	reg  *registry
	http *streamable.Handler
	sse  *sse.Handler

	syncMu sync.Mutex // one rebuild at a time, so that an older view never replaces a newer one

	mu      sync.Mutex
	mapping []allMapping
	owners  map[string]*serverRT // resource URI and prompt name on /mcp/all -> server
	prompts map[string]string    // prompt name on /mcp/all -> name on its server
}

// allMapping is one row of the /mcp/all name table shown on the meta pages.
type allMapping struct {
	Server, Kind, Name, All string
}

func newAllRT(o *Options) *allRT {
	a := &allRT{owners: map[string]*serverRT{}, prompts: map[string]string{}}
	a.srv = mcp.NewServer(mcp.Implementation{Name: "all", Version: "gateway"}, &mcp.ServerOptions{
		Logger:       o.Logger,
		Instructions: "Every server of this gateway on one endpoint; tool and prompt names are prefixed with their server's name and two underscores.",
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ListChangedCapability{ListChanged: true},
			Resources: &mcp.ResourcesCapability{Subscribe: true, ListChanged: true},
			Prompts:   &mcp.ListChangedCapability{ListChanged: true},
		},
		SubscribeHandler: func(ctx context.Context, ss *mcp.ServerSession, uri string) error {
			a.mu.Lock()
			rt := a.owners["resource:"+uri]
			a.mu.Unlock()
			if rt == nil || rt.hooks == nil {
				return nil // static resources never change: nothing to forward
			}
			return rt.hooks.subscribe(ctx, ss, uri)
		},
		CompletionHandler: func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			if req.Params.Ref == nil || req.Params.Ref.Type != "ref/prompt" {
				return &mcp.CompleteResult{}, nil
			}
			a.mu.Lock()
			rt, name := a.owners["prompt:"+req.Params.Ref.Name], a.prompts[req.Params.Ref.Name]
			a.mu.Unlock()
			if rt == nil {
				return nil, &jsonrpc.Error{Code: -32602, Message: fmt.Sprintf("unknown prompt %q", req.Params.Ref.Name)}
			}
			if rt.hooks == nil {
				return &mcp.CompleteResult{}, nil
			}
			p := *req.Params
			ref := *p.Ref
			ref.Name = name
			p.Ref = &ref
			return rt.hooks.complete(ctx, &mcp.CompleteRequest{Session: req.Session, Params: &p})
		},
	})
	a.reg = newRegistry(a.srv, &ServerConfig{}, newLineRing(50), nil)
	connect := func(ctx context.Context, t jsonrpc.Transport) error {
		_, err := a.srv.Connect(ctx, t)
		return err
	}
	a.http = streamable.NewHandler(connect, &streamable.HandlerOptions{Logger: o.Logger, AllowedOrigins: o.allowedOrigins, AllowedHosts: o.AllowedHosts, KeepAlive: o.KeepAlive, SessionOwner: o.SessionOwner, SessionIdleTimeout: o.SessionIdleTimeout})
	a.sse = sse.NewHandler(connect, &sse.HandlerOptions{Logger: o.Logger, AllowedOrigins: o.allowedOrigins, AllowedHosts: o.AllowedHosts, KeepAlive: o.KeepAlive, MessagePath: o.Prefix + "/mcp/all/sse", SessionOwner: o.SessionOwner})
	return a
}

// sync rebuilds /mcp/all from the servers (sorted by name).
func (a *allRT) sync(servers []*serverRT) {
	a.syncMu.Lock()
	defer a.syncMu.Unlock()
	type item struct {
		rt   *serverRT
		snap *snapshot
	}
	var items []item
	var qs []qualified
	for _, rt := range servers {
		s := rt.reg.snapshot()
		items = append(items, item{rt, s})
		for _, t := range s.Tools {
			qs = append(qs, qualified{rt.name, "tool:" + t.Tool.Name})
		}
		for _, p := range s.Prompts {
			qs = append(qs, qualified{rt.name, "prompt:" + p.Prompt.Name})
		}
	}
	// Tool and prompt names live in separate namespaces; name each set on its own.
	var tq, pq []qualified
	for _, q := range qs {
		if q.Name[:5] == "tool:" {
			tq = append(tq, qualified{q.Server, q.Name[5:]})
		} else {
			pq = append(pq, qualified{q.Server, q.Name[7:]})
		}
	}
	tn, pn := allNames(tq), allNames(pq)
	e := &entries{}
	owners := map[string]*serverRT{}
	prompts := map[string]string{}
	var mapping []allMapping
	for _, it := range items {
		for _, t := range it.snap.Tools {
			tool := *t.Tool
			if tool.Execution != nil && tool.Execution.TaskSupport == "required" {
				continue // /mcp/all runs no tasks: a tool that needs one is left out
			}
			tool.Execution = nil
			tool.Name = tn[qualified{it.rt.name, t.Tool.Name}]
			e.Tools = append(e.Tools, &toolEntry{Tool: &tool, Handler: t.Handler})
			mapping = append(mapping, allMapping{it.rt.name, "tool", t.Tool.Name, tool.Name})
		}
		for _, p := range it.snap.Prompts {
			pr := *p.Prompt
			pr.Name = pn[qualified{it.rt.name, p.Prompt.Name}]
			e.Prompts = append(e.Prompts, &promptEntry{Prompt: &pr, Handler: p.Handler})
			owners["prompt:"+pr.Name] = it.rt
			prompts[pr.Name] = p.Prompt.Name
			mapping = append(mapping, allMapping{it.rt.name, "prompt", p.Prompt.Name, pr.Name})
		}
		for _, r := range it.snap.Resources {
			k := "resource:" + r.key()
			if owners[k] != nil {
				continue
			}
			owners[k] = it.rt
			e.Resources = append(e.Resources, r)
		}
	}
	a.mu.Lock()
	a.owners, a.prompts, a.mapping = owners, prompts, mapping
	a.mu.Unlock()
	a.reg.set("all", e)
}

func (a *allRT) mappingFor(server string) []allMapping {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []allMapping
	for _, m := range a.mapping {
		if m.Server == server {
			out = append(out, m)
		}
	}
	return out
}

func (a *allRT) close(ctx context.Context) {
	_ = a.http.Shutdown(ctx)
	_ = a.sse.Shutdown(ctx)
	for _, ss := range a.srv.Sessions() {
		_ = ss.Close()
	}
	_ = a.srv.Close()
}
