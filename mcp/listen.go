package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
)

// SubscriptionFilter says which change notifications a subscriptions/listen request
// wants (2026-07-28).
type SubscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// listener is one open subscriptions/listen request.
type listener struct {
	ss     *ServerSession
	ctx    context.Context // the listen handler's: notifications travel on its stream
	id     json.RawMessage // the listen request's id, echoed as subscriptionId
	filter SubscriptionFilter
	mu     sync.Mutex // one notification at a time, in order
}

// send queues a notification for the listener's session outbox (outbox.go).
func (l *listener) send(method string, params map[string]any) {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]json.RawMessage{MetaSubscriptionID: l.id}
	l.ss.enqueue(outNote{method: method, params: params, l: l})
}

// deliver writes one notification of the listener, after its acknowledgement.
func (l *listener) deliver(method string, params map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.ss.conn.Notify(l.ctx, method, params); err != nil {
		l.ss.server.log.Debug("listen notification failed", "method", method, "err", err)
	}
}

// handleListen serves subscriptions/listen: acknowledge the honoured filter, then keep
// the request open, sending the change notifications it asked for, until the client
// goes away or the session ends.
func handleListen(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	var p struct {
		Notifications *SubscriptionFilter `json:"notifications"`
	}
	if err := unmarshalParams(ri.req.Params, &p); err != nil {
		return nil, err
	}
	if p.Notifications == nil {
		return nil, invalidParams("subscriptions/listen: notifications is required")
	}
	caps := ss.server.capabilities(ri.rev)
	var honoured SubscriptionFilter
	// Only what the server declared is honoured; the rest is dropped from the ack.
	honoured.ToolsListChanged = p.Notifications.ToolsListChanged && caps.Tools != nil && caps.Tools.ListChanged
	honoured.PromptsListChanged = p.Notifications.PromptsListChanged && caps.Prompts != nil && caps.Prompts.ListChanged
	honoured.ResourcesListChanged = p.Notifications.ResourcesListChanged && caps.Resources != nil && caps.Resources.ListChanged
	if caps.Resources != nil && caps.Resources.Subscribe {
		honoured.ResourceSubscriptions = p.Notifications.ResourceSubscriptions
		if h := ss.server.opts.SubscribeHandler; h != nil {
			// A listen's resource subscriptions are the 2026-07-28 form of
			// resources/subscribe: the handler is told of each, and one it refuses is
			// left out of the acknowledgement.
			var kept []string
			for _, uri := range honoured.ResourceSubscriptions {
				if err := h(ctx, ss, uri); err != nil {
					ss.server.log.Debug("listen subscription refused", "uri", uri, "err", err)
					continue
				}
				kept = append(kept, uri)
			}
			honoured.ResourceSubscriptions = kept
		}
	}
	l := &listener{ss: ss, ctx: ctx, id: json.RawMessage(ri.req.ID.Raw()), filter: honoured}
	// The acknowledgement goes first; registration follows under the listener's lock
	// so that no change notification can overtake it.
	l.mu.Lock()
	ss.server.mu.Lock()
	ss.server.listeners[l] = struct{}{}
	ss.server.mu.Unlock()
	ackParams := map[string]any{"notifications": honoured,
		"_meta": map[string]json.RawMessage{MetaSubscriptionID: l.id}}
	err := ss.conn.Notify(ctx, "notifications/subscriptions/acknowledged", ackParams)
	l.mu.Unlock()
	defer func() {
		ss.server.mu.Lock()
		delete(ss.server.listeners, l)
		ss.server.mu.Unlock()
	}()
	if err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
	case <-ss.stopping:
	}
	// A graceful end answers the listen request (a cancelled one is not answered).
	return map[string]any{"_meta": map[string]json.RawMessage{MetaSubscriptionID: l.id}}, nil
}

func (s *Server) listenerSnapshot() []*listener {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*listener, 0, len(s.listeners))
	for l := range s.listeners {
		out = append(out, l)
	}
	return out
}

func (s *Server) notifyListeners(c changeSet) {
	for _, l := range s.listenerSnapshot() {
		if c.tools && l.filter.ToolsListChanged {
			l.send("notifications/tools/list_changed", nil)
		}
		if c.prompts && l.filter.PromptsListChanged {
			l.send("notifications/prompts/list_changed", nil)
		}
		if c.resources && l.filter.ResourcesListChanged {
			l.send("notifications/resources/list_changed", nil)
		}
	}
}

func (s *Server) notifyResourceListeners(uri string) {
	for _, l := range s.listenerSnapshot() {
		for _, sub := range l.filter.ResourceSubscriptions {
			if uri == sub || strings.HasPrefix(uri, strings.TrimSuffix(sub, "/")+"/") {
				l.send("notifications/resources/updated", map[string]any{"uri": uri})
				break
			}
		}
	}
}
