package faultserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Change notifications: list-changed triggers, resource subscriptions and
// their updates (initialize era), and subscriptions/listen (2026-07-28).
//
// In the initialize era a trigger tool announces the change to the calling
// session only: through the session's outlet (stdio output, the Streamable
// HTTP GET stream, the legacy event stream) or, when no outlet is open, on
// the trigger's own response stream. In 2026-07-28 it announces the change
// to every open listen stream whose filter asked for it.

func init() {
	for id, what := range map[string]string{
		"utilities/list-changed":      "runs the list-change triggers without announcing anything",
		"resources/updated":           "never sends notifications/resources/updated",
		"resources/unsubscribe-stops": "keeps sending updates after resources/unsubscribe",
		"stateless/listen-ack":        "sends numeric-looking string subscription ids as numbers",
		"stateless/listen-filter":     "sends every list change to every listen stream, whatever its filter",
		"stateless/listen-delivery":   "acknowledges listen requests but never sends a change on them",
	} {
		Faults[id] = what
	}
	noArgs := map[string]any{"type": "object", "properties": map[string]any{}}
	for _, t := range []struct{ name, kind, desc string }{
		{"test_trigger_tool_change", "tools", "Announces a change of the tool list"},
		{"test_trigger_prompt_change", "prompts", "Announces a change of the prompt list"},
		{"test_trigger_resource_list_change", "resources", "Announces a change of the resource list"},
	} {
		registerTool(t.name, extraTool{
			def: func(*Server, string) map[string]any {
				return map[string]any{"name": t.name, "description": t.desc, "inputSchema": noArgs}
			},
			call: func(s *Server, c *call, _ map[string]json.RawMessage) reply {
				return s.listChanged(c, t.kind)
			},
		})
	}
	registerTool("test_trigger_resource_update", extraTool{
		def: func(*Server, string) map[string]any {
			return map[string]any{"name": "test_trigger_resource_update",
				"description": "Announces an update of a resource (uri, default mem://notes/alpha) to its subscribers",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{
					"uri": map[string]any{"type": "string", "description": "the resource that changed"}}}}
		},
		call: func(s *Server, c *call, args map[string]json.RawMessage) reply {
			uri, ok := str(args, "uri")
			if !ok || uri == "" {
				uri = "mem://notes/alpha"
			}
			return s.resourceUpdated(c, uri)
		},
	})
	extraMethods["subscriptions/listen"] = func(s *Server, c *call) reply { return s.listen(c) }
}

// listenFunc serves a long-lived request (subscriptions/listen): the
// transport first sends any msgs of the reply, then calls it with a context
// that ends when the client goes away or the server stops; emit writes one
// message on the request's stream and reports false once the stream is
// gone. The request ends, without a response, when the function returns.
type listenFunc func(ctx context.Context, emit func([]byte) bool)

// notifyState is the server's change-notification state.
type notifyState struct {
	mu      sync.Mutex
	subs    map[*session]map[string]bool // initialize-era resource subscriptions
	listens map[*listenStream]bool       // open subscriptions/listen requests
}

// listenStream is one open subscriptions/listen request.
type listenStream struct {
	id     json.RawMessage // the listen request id as sent
	filter listenFilter    // what the server honours
	cancel context.CancelFunc
	mu     sync.Mutex // one message at a time; the acknowledgement first
	emit   func([]byte) bool
}

// listenFilter is a SubscriptionFilter.
type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

func (f listenFilter) wants(kind string) bool {
	switch kind {
	case "tools":
		return f.ToolsListChanged
	case "prompts":
		return f.PromptsListChanged
	case "resources":
		return f.ResourcesListChanged
	}
	return false
}

// covers reports whether a subscription to sub covers uri (the URI itself
// or a sub-resource).
func covers(sub, uri string) bool {
	return uri == sub || strings.HasPrefix(uri, strings.TrimSuffix(sub, "/")+"/")
}

// subscriptionID is the id echoed in _meta; the listen-ack fault turns a
// numeric-looking string into a number.
func (s *Server) subscriptionID(id json.RawMessage) json.RawMessage {
	if s.has("stateless/listen-ack") && kind(id) == "string" {
		var v string
		_ = json.Unmarshal(id, &v)
		if _, err := strconv.ParseInt(v, 10, 64); err == nil {
			return json.RawMessage(v)
		}
	}
	return id
}

// send writes one notification on the listen stream, tagged with its id.
func (s *Server) sendListen(ls *listenStream, method string, params map[string]any) {
	params["_meta"] = map[string]json.RawMessage{"io.modelcontextprotocol/subscriptionId": s.subscriptionID(ls.id)}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.emit(notification(method, params))
}

func (s *Server) openListens() []*listenStream {
	s.notify.mu.Lock()
	defer s.notify.mu.Unlock()
	out := make([]*listenStream, 0, len(s.notify.listens))
	for ls := range s.notify.listens {
		out = append(out, ls)
	}
	return out
}

// listen serves subscriptions/listen (2026-07-28 only).
func (s *Server) listen(c *call) reply {
	if !c.modern {
		return c.errorf(-32601, "method not found: subscriptions/listen")
	}
	raw, ok := c.in.params["notifications"]
	if !ok || kind(raw) != "object" {
		return c.errorf(-32602, "subscriptions/listen: notifications must be an object")
	}
	var asked listenFilter
	if err := json.Unmarshal(raw, &asked); err != nil {
		return c.errorf(-32602, "subscriptions/listen: bad notifications: %v", err)
	}
	// Every kind is declared by this server, so the whole filter is honoured.
	ls := &listenStream{id: c.id(), filter: asked}
	return reply{listen: func(ctx context.Context, emit func([]byte) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		ls.cancel, ls.emit = cancel, emit
		ls.mu.Lock() // nothing overtakes the acknowledgement
		s.notify.mu.Lock()
		if s.notify.listens == nil {
			s.notify.listens = map[*listenStream]bool{}
		}
		s.notify.listens[ls] = true
		s.notify.mu.Unlock()
		ack := map[string]any{"notifications": asked,
			"_meta": map[string]json.RawMessage{"io.modelcontextprotocol/subscriptionId": s.subscriptionID(ls.id)}}
		emit(notification("notifications/subscriptions/acknowledged", ack))
		ls.mu.Unlock()
		<-ctx.Done()
		s.notify.mu.Lock()
		delete(s.notify.listens, ls)
		s.notify.mu.Unlock()
	}}
}

// cancelListen ends the listen streams whose id is requestId (stdio clients
// end a subscription with notifications/cancelled).
func (s *Server) cancelListen(requestID json.RawMessage) {
	for _, ls := range s.openListens() {
		if string(ls.id) == string(requestID) && ls.cancel != nil {
			ls.cancel()
		}
	}
}

// modernNotification handles a 2026-07-28 client notification.
func (s *Server) modernNotification(in *incoming) {
	if in.method == "notifications/cancelled" {
		s.cancelListen(in.params["requestId"])
	}
}

// announce delivers a change notification to an initialize-era session:
// through its outlet, or else ahead of the trigger's response.
func (s *Server) announce(c *call, r reply, msg []byte) reply {
	if c.sess.send(msg) {
		return r
	}
	r.msgs = append([][]byte{msg}, r.msgs...)
	r.stream = true
	return r
}

// listChanged serves the list-change triggers.
func (s *Server) listChanged(c *call, what string) reply {
	r := s.toolResult(c, "the "+what+" list changed", nil, false)
	method := "notifications/" + what + "/list_changed"
	if !c.modern {
		if s.has("utilities/list-changed") {
			return r
		}
		return s.announce(c, r, []byte(`{"jsonrpc":"2.0","method":"`+method+`"}`))
	}
	if s.has("stateless/listen-delivery") {
		return r
	}
	for _, ls := range s.openListens() {
		if ls.filter.wants(what) || s.has("stateless/listen-filter") {
			s.sendListen(ls, method, map[string]any{})
		}
	}
	return r
}

// resourceUpdated serves test_trigger_resource_update.
func (s *Server) resourceUpdated(c *call, uri string) reply {
	r := s.toolResult(c, fmt.Sprintf("%s was updated", uri), nil, false)
	if !c.modern {
		if s.has("resources/updated") || !s.subscribed(c.sess, uri) {
			return r
		}
		return s.announce(c, r, notification("notifications/resources/updated", map[string]any{"uri": uri}))
	}
	if s.has("stateless/listen-delivery") {
		return r
	}
	for _, ls := range s.openListens() {
		for _, sub := range ls.filter.ResourceSubscriptions {
			if covers(sub, uri) {
				s.sendListen(ls, "notifications/resources/updated", map[string]any{"uri": uri})
				break
			}
		}
	}
	return r
}

// noteSubscription records resources/subscribe and resources/unsubscribe
// of an initialize-era session.
func (s *Server) noteSubscription(c *call) {
	uri, ok := str(c.in.params, "uri")
	if c.sess == nil || !ok {
		return
	}
	s.notify.mu.Lock()
	defer s.notify.mu.Unlock()
	if s.notify.subs == nil {
		s.notify.subs = map[*session]map[string]bool{}
	}
	set := s.notify.subs[c.sess]
	if set == nil {
		set = map[string]bool{}
		s.notify.subs[c.sess] = set
	}
	switch {
	case c.in.method == "resources/subscribe":
		set[uri] = true
	case !s.has("resources/unsubscribe-stops"):
		delete(set, uri)
	}
}

func (s *Server) subscribed(sess *session, uri string) bool {
	s.notify.mu.Lock()
	defer s.notify.mu.Unlock()
	for sub := range s.notify.subs[sess] {
		if covers(sub, uri) {
			return true
		}
	}
	return false
}

// serveListen answers a listen request on Streamable HTTP: an event stream
// that stays open until the client closes it.
func serveListen(w http.ResponseWriter, r *http.Request, msgs [][]byte, listen listenFunc) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	var mu sync.Mutex
	open := true
	emit := func(m []byte) bool {
		mu.Lock()
		defer mu.Unlock()
		if !open {
			return false
		}
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
		w.(http.Flusher).Flush()
		return true
	}
	for _, m := range msgs {
		emit(m)
	}
	w.(http.Flusher).Flush()
	listen(r.Context(), emit)
	mu.Lock()
	open = false
	mu.Unlock()
}
