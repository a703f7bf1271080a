package conformance

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Change notifications: list-changed and resource updates in the initialize
// era (on the session: stdio output, the legacy event stream, or the
// Streamable HTTP GET stream) and subscriptions/listen in 2026-07-28.
//
// The suite makes a change happen through trigger tools, the fixture
// convention of the official suite: test_trigger_tool_change and
// test_trigger_prompt_change, plus test_trigger_resource_list_change and
// test_trigger_resource_update {uri?} (this suite's convention). A trigger
// need not be listed; a server without it answers the call with an error
// and the check is not applicable.

// Trigger tools.
const (
	triggerResourceUpdate = "test_trigger_resource_update"
	watchedResource       = "test://watched-resource"
	metaSubscriptionID    = "io.modelcontextprotocol/subscriptionId"
)

// changeKinds are the lists whose changes are announced: capability, the
// SubscriptionFilter flag, the trigger tool and the notification.
var changeKinds = []struct{ cap, flag, trigger, method string }{
	{"tools", "toolsListChanged", "test_trigger_tool_change", "notifications/tools/list_changed"},
	{"prompts", "promptsListChanged", "test_trigger_prompt_change", "notifications/prompts/list_changed"},
	{"resources", "resourcesListChanged", "test_trigger_resource_list_change", "notifications/resources/list_changed"},
}

// quietWindow is how long a check keeps listening, after a round trip, for a
// notification that must not come.
const quietWindow = 300 * time.Millisecond

func init() {
	legacy := func(ch *Check) *Check { ch.Until = Rev20251125; return ch }
	modern := func(ch *Check) *Check { ch.Area, ch.Since = AreaModern, Rev20260728; return ch }
	register(
		legacy(&Check{ID: "utilities/list-changed", Serial: true, Area: AreaUtilities, Severity: SHOULD,
			Requirement: "When a list whose listChanged is declared changes (a test_trigger_*_change tool), the session gets the matching notifications/*/list_changed",
			Run: func(c *C) {
				s := c.Session()
				c.needSessionChannel(s)
				c.openNotifyStream(s)
				tried := 0
				for _, k := range changeKinds {
					if !c.listChangedDeclared(k.cap) {
						continue
					}
					mark := s.Mark()
					if why := c.trigger(s, k.trigger, map[string]any{}); why != "" {
						c.Logf("%s: %s", k.trigger, why)
						continue
					}
					tried++
					m, ok := c.waitNote(s, mark, func(m Msg) bool { return m.Method() == k.method })
					if !ok {
						c.Fatalf("%s ran but no %s arrived within %v", k.trigger, k.method, c.noteWindow())
					}
					checkNotificationShape(c, m)
				}
				if tried == 0 {
					c.NA("no declared listChanged has a trigger tool (test_trigger_tool_change, test_trigger_prompt_change, test_trigger_resource_list_change)")
				}
			}}),
		legacy(&Check{ID: "resources/updated", Serial: true, Area: AreaResources, Severity: MUST,
			Requirement: "After resources/subscribe, an update of the resource (test_trigger_resource_update) sends notifications/resources/updated with that uri (or one under it)",
			Run: func(c *C) {
				s, uri := c.subscribedSession()
				mark := s.Mark()
				if why := c.trigger(s, triggerResourceUpdate, map[string]any{"uri": uri}); why != "" {
					c.NA("no way to cause a resource update: %s: %s", triggerResourceUpdate, why)
				}
				m, ok := c.waitNote(s, mark, isUpdateOf(uri))
				if !ok {
					c.Fatalf("subscribed to %s and updated it, but no notifications/resources/updated for it arrived within %v", uri, c.noteWindow())
				}
				checkNotificationShape(c, m)
			}}),
		legacy(&Check{ID: "resources/unsubscribe-stops", Serial: true, Area: AreaResources, Severity: MUST,
			Requirement: "After resources/unsubscribe, updates of the resource are no longer sent",
			Run: func(c *C) {
				s, uri := c.subscribedSession()
				mark := s.Mark()
				if why := c.trigger(s, triggerResourceUpdate, map[string]any{"uri": uri}); why != "" {
					c.NA("no way to cause a resource update: %s: %s", triggerResourceUpdate, why)
				}
				if _, ok := c.waitNote(s, mark, isUpdateOf(uri)); !ok {
					c.NA("no update arrived while subscribed (see resources/updated), so stopping cannot be observed")
				}
				c.checkEmptyResult("resources/unsubscribe", c.Result(s, "resources/unsubscribe", map[string]any{"uri": uri}))
				mark = s.Mark()
				if why := c.trigger(s, triggerResourceUpdate, map[string]any{"uri": uri}); why != "" {
					c.Fatalf("%s failed the second time: %s", triggerResourceUpdate, why)
				}
				c.Ping(s, "the update")
				if m, ok := c.waitFor(s, mark, quietWindow, isUpdateOf(uri)); ok {
					c.Failf("an update arrived after resources/unsubscribe: %s", short(m.Raw))
				}
			}}),
		modern(&Check{ID: "stateless/listen-ack", Serial: true, Severity: MUST,
			Requirement: "subscriptions/listen opens a stream that stays open, whose first message is notifications/subscriptions/acknowledged with the honoured subset of the filter, and every notification on it carries _meta subscriptionId equal to the listen id (same JSON type)",
			Run: func(c *C) {
				filter, _ := c.listenFilter()
				s := c.Session()
				l := c.openListen(s, `"4711"`, filter)
				ack := l.requireAck()
				honoured, ok := ack.Params().Obj("notifications")
				if !ok {
					c.Fatalf("acknowledgement params.notifications is not an object: %s", short(ack.Raw))
				}
				checkHonoured(c, filter, honoured)
				// A change on the stream must be tagged too.
				for _, k := range changeKinds {
					if filter[k.flag] != true {
						continue
					}
					if why := c.trigger(s, k.trigger, map[string]any{}); why != "" {
						continue
					}
					if _, ok := l.waitFor(c.noteWindow(), func(m Msg) bool { return m.Method() == k.method }); !ok {
						c.Logf("%s sent no %s (see stateless/listen-delivery)", k.trigger, k.method)
					}
					break
				}
				if l.reply != nil && l.reply.Stream != nil {
					select {
					case <-l.reply.Stream.Done():
						c.Failf("the listen stream ended on its own: %v", l.reply.Stream.Err())
					default:
					}
				}
			}}),
		modern(&Check{ID: "stateless/listen-filter", Serial: true, Severity: MUST,
			Requirement: "A listen stream gets no notification type it did not ask for: a prompts-only listen sees no tools/list_changed after test_trigger_tool_change",
			Run: func(c *C) {
				if !c.listChangedDeclared("tools") {
					c.NA("the server does not declare tools.listChanged")
				}
				s := c.Session()
				tools := c.openListen(s, `"4712"`, map[string]any{"toolsListChanged": true})
				tools.requireAck()
				prompts := c.openListen(s, `"4713"`, map[string]any{"promptsListChanged": true})
				prompts.requireAck()
				k := changeKinds[0]
				if why := c.trigger(s, k.trigger, map[string]any{}); why != "" {
					c.NA("no way to change the tool list: %s: %s", k.trigger, why)
				}
				if _, ok := tools.waitFor(c.noteWindow(), func(m Msg) bool { return m.Method() == k.method }); !ok {
					c.NA("%s sent no %s even to the listen that asked for it (see stateless/listen-delivery)", k.trigger, k.method)
				}
				c.Ping(s, "the trigger")
				if m, ok := prompts.waitFor(quietWindow, func(m Msg) bool { return m.Method() == k.method }); ok {
					c.Failf("a listen for promptsListChanged only got %s", short(m.Raw))
				}
			}}),
		modern(&Check{ID: "stateless/listen-delivery", Serial: true, Severity: SHOULD,
			Requirement: "After a trigger, tools/prompts/resources list_changed and resources/updated (for resourceSubscriptions) arrive on a listen stream that asked for them",
			Run: func(c *C) {
				filter, uri := c.listenFilter()
				s := c.Session()
				l := c.openListen(s, `"4714"`, filter)
				l.requireAck()
				tried := 0
				for _, k := range changeKinds {
					if filter[k.flag] != true {
						continue
					}
					if why := c.trigger(s, k.trigger, map[string]any{}); why != "" {
						c.Logf("%s: %s", k.trigger, why)
						continue
					}
					tried++
					if _, ok := l.waitFor(c.noteWindow(), func(m Msg) bool { return m.Method() == k.method }); !ok {
						c.Fatalf("%s ran but no %s arrived on the listen stream within %v", k.trigger, k.method, c.noteWindow())
					}
				}
				if uri != "" {
					if why := c.trigger(s, triggerResourceUpdate, map[string]any{"uri": uri}); why != "" {
						c.Logf("%s: %s", triggerResourceUpdate, why)
					} else {
						tried++
						if _, ok := l.waitFor(c.noteWindow(), isUpdateOf(uri)); !ok {
							c.Fatalf("%s ran for %s but no notifications/resources/updated for it arrived on the listen stream within %v", triggerResourceUpdate, uri, c.noteWindow())
						}
					}
				}
				if tried == 0 {
					c.NA("no declared change has a trigger tool (test_trigger_tool_change, test_trigger_prompt_change, test_trigger_resource_list_change, test_trigger_resource_update)")
				}
			}}),
	)
}

// noteWindow bounds the wait for a notification that must come.
func (c *C) noteWindow() time.Duration { return min(c.timeout(), 2*time.Second) }

// listChangedDeclared reports whether capability name declares listChanged.
func (c *C) listChangedDeclared(name string) bool {
	o, _ := c.Caps().Obj(name)
	return string(o["listChanged"]) == "true"
}

// subscribeDeclared reports whether resources.subscribe is declared.
func (c *C) subscribeDeclared() bool {
	o, _ := c.Caps().Obj("resources")
	return string(o["subscribe"]) == "true"
}

// needSessionChannel stops the check as not applicable on a Streamable HTTP
// server that issued no session: it has no channel for messages outside a
// request and keeps no state (subscriptions) between requests.
func (c *C) needSessionChannel(s *Session) {
	if s.kind == HTTP && s.sessionID == "" {
		c.NA("the server issued no Mcp-Session-Id (stateless): there is no channel for notifications outside a request")
	}
}

// openNotifyStream opens the GET stream of a Streamable HTTP session, where
// a server sends what belongs to no request. Elsewhere the session itself is
// that channel.
func (c *C) openNotifyStream(s *Session) {
	if s.kind != HTTP {
		return
	}
	h := s.headers("", nil)
	h.Set("Accept", "text/event-stream")
	r := c.HTTPDo(s, http.MethodGet, nil, h)
	if r.Stream == nil {
		c.Logf("no GET stream (HTTP %d): notifications can only come on response streams", r.Status)
	}
}

// trigger calls a trigger tool and returns "" when it ran, else why not.
func (c *C) trigger(s *Session, name string, args map[string]any) string {
	if c.run.opts.toolPolicy() == CallNone {
		c.NA("tool calls are off (-call-tools none)")
	}
	ex := c.Call(s, "tools/call", map[string]any{"name": name, "arguments": args})
	if e := ex.Response.Error(); e != nil {
		return "error " + string(e.Code) + " " + e.Message
	}
	r := ex.Response.Result()
	if r == nil {
		return "result is not an object"
	}
	if string(r["isError"]) == "true" {
		return "the tool reported an error: " + short(r["content"])
	}
	return ""
}

// waitNote waits up to the notification window for a message after mark.
func (c *C) waitNote(s *Session, mark int, pred func(Msg) bool) (Msg, bool) {
	return c.waitFor(s, mark, c.noteWindow(), pred)
}

// waitFor waits up to d for a message after mark satisfying pred.
func (c *C) waitFor(s *Session, mark int, d time.Duration, pred func(Msg) bool) (Msg, bool) {
	ctx, cancel := context.WithTimeout(c.ctx, d)
	defer cancel()
	m, err := s.WaitFrom(ctx, mark, pred)
	return m, err == nil
}

// isUpdateOf matches notifications/resources/updated for uri or a resource
// under it.
func isUpdateOf(uri string) func(Msg) bool {
	return func(m Msg) bool {
		got, _ := m.Params().Str("uri")
		return m.Method() == "notifications/resources/updated" && underURI(uri, got)
	}
}

// underURI reports whether got is sub or a sub-resource of it.
func underURI(sub, got string) bool {
	return got == sub || strings.HasPrefix(got, strings.TrimSuffix(sub, "/")+"/")
}

// checkNotificationShape requires a notification: no id, params absent or
// an object.
func checkNotificationShape(c *C, m Msg) {
	if m.Has("id") {
		c.Failf("%s carries an id (a notification has none): %s", m.Method(), short(m.Raw))
	}
	if p, ok := m.Members["params"]; ok && jsonKind(p) != "object" {
		c.Failf("%s params is %s, not an object", m.Method(), jsonKind(p))
	}
}

// watchedURI picks the resource to subscribe to: test://watched-resource
// when listed, else the first listed resource.
func (c *C) watchedURI() string {
	uri := ""
	for _, r := range c.Resources() {
		u, _ := r.Str("uri")
		if u == watchedResource {
			return u
		}
		if uri == "" {
			uri = u
		}
	}
	return uri
}

// subscribedSession opens a session with a notification channel and
// subscribes to a resource.
func (c *C) subscribedSession() (*Session, string) {
	if !c.subscribeDeclared() {
		c.NA("the server does not declare resources.subscribe")
	}
	uri := c.watchedURI()
	if uri == "" {
		c.NA("the server lists no resource to subscribe to")
	}
	s := c.Session()
	c.needSessionChannel(s)
	c.openNotifyStream(s)
	c.checkEmptyResult("resources/subscribe", c.Result(s, "resources/subscribe", map[string]any{"uri": uri}))
	return s, uri
}

// listenFilter is the SubscriptionFilter for everything the server declares
// (resourceSubscriptions with one resource when subscribe is declared), and
// that resource's URI ("" when none). It stops the check as not applicable
// when nothing is declared.
func (c *C) listenFilter() (map[string]any, string) {
	f := map[string]any{}
	for _, k := range changeKinds {
		if c.listChangedDeclared(k.cap) {
			f[k.flag] = true
		}
	}
	uri := ""
	if c.subscribeDeclared() {
		if uri = c.watchedURI(); uri != "" {
			f["resourceSubscriptions"] = []string{uri}
		}
	}
	if len(f) == 0 {
		c.NA("the server declares no listChanged and no resources.subscribe")
	}
	return f, uri
}

// checkHonoured requires the acknowledged filter to be a subset of the
// requested one.
func checkHonoured(c *C, asked map[string]any, honoured Obj) {
	for k, v := range honoured {
		switch k {
		case "resourceSubscriptions":
			var uris []string
			if json.Unmarshal(v, &uris) != nil {
				c.Failf("acknowledged resourceSubscriptions is not an array of strings: %s", short(v))
				continue
			}
			want, _ := asked[k].([]string)
			for _, u := range uris {
				found := false
				for _, w := range want {
					found = found || w == u
				}
				if !found {
					c.Failf("acknowledged resourceSubscriptions lists %q, which was not asked for", u)
				}
			}
		case "_meta":
		default:
			if jsonKind(v) != "boolean" {
				c.Failf("acknowledged %s is %s, not a boolean", k, jsonKind(v))
			} else if string(v) == "true" && asked[k] != true {
				c.Failf("acknowledged %s, which was not asked for", k)
			}
		}
	}
}

// listenSub is one subscriptions/listen request the check keeps open. On
// Streamable HTTP its messages are the events of its own response stream;
// elsewhere they are the notifications tagged with its id (or with no id at
// all, which the tag check then reports) and its response.
type listenSub struct {
	c     *C
	s     *Session
	id    string     // raw JSON id of the listen request
	reply *HTTPReply // HTTP: the listen response
	next  int        // HTTP: next event index; else next inbox index
}

// openListen sends subscriptions/listen with a raw id and filter.
func (c *C) openListen(s *Session, id string, filter map[string]any) *listenSub {
	ctx, cancel := c.Ctx()
	defer cancel()
	mark := s.Mark()
	reply, err := s.Send(ctx, s.request(id, "subscriptions/listen", map[string]any{"notifications": filter}), nil)
	if err != nil {
		c.Fatalf("subscriptions/listen: %v", err)
	}
	l := &listenSub{c: c, s: s, id: id, reply: reply, next: mark}
	if s.kind == HTTP {
		l.next = 0
		if reply.Stream == nil {
			m, err := s.WaitFrom(ctx, mark, isResponseTo(id))
			if err != nil {
				c.Fatalf("subscriptions/listen: no event stream and no JSON-RPC answer%s", statusNote(reply))
			}
			c.Fatalf("subscriptions/listen was answered instead of streaming (HTTP %d): %s", reply.Status, short(m.Raw))
		}
	}
	return l
}

// read returns the next message of the subscription, waiting until ctx
// ends.
func (l *listenSub) read(ctx context.Context) (Msg, bool) {
	if l.reply != nil && l.reply.Stream != nil {
		for {
			ev, ok := l.reply.Stream.next(l.next, ctx.Done())
			if !ok {
				return Msg{}, false
			}
			l.next++
			if ev.Data != "" && (ev.Event == "" || ev.Event == "message") {
				return parseMsg([]byte(ev.Data), "listen-sse"), true
			}
		}
	}
	unquoted := strings.Trim(l.id, `"`)
	m, idx, err := l.s.conn.box().wait(ctx, l.next, func(m Msg) bool {
		if m.IsResponse() {
			return m.IDRaw() == l.id
		}
		if !m.IsNotification() || m.Method() == "notifications/progress" || m.Method() == "notifications/message" {
			return false
		}
		meta, _ := m.Params().Obj("_meta")
		sid := strings.TrimSpace(string(meta[metaSubscriptionID]))
		return sid == "" || sid == l.id || strings.Trim(sid, `"`) == unquoted
	})
	if err != nil {
		return Msg{}, false
	}
	l.next = idx + 1
	return m, true
}

// waitFor reads the subscription for up to d until a message satisfies
// pred. Every message read is checked: a notification tagged with the
// listen id, never a progress or log notification, never a response.
func (l *listenSub) waitFor(d time.Duration, pred func(Msg) bool) (Msg, bool) {
	ctx, cancel := context.WithTimeout(l.c.ctx, d)
	defer cancel()
	for {
		m, ok := l.read(ctx)
		if !ok {
			return Msg{}, false
		}
		l.checkMsg(m)
		if pred(m) {
			return m, true
		}
	}
}

// requireAck requires the acknowledgement as the first message.
func (l *listenSub) requireAck() Msg {
	ctx, cancel := context.WithTimeout(l.c.ctx, l.c.noteWindow())
	defer cancel()
	m, ok := l.read(ctx)
	if !ok {
		l.c.Fatalf("listen %s: no message within %v (want notifications/subscriptions/acknowledged first)", l.id, l.c.noteWindow())
	}
	if m.Method() != "notifications/subscriptions/acknowledged" {
		l.c.Fatalf("listen %s: first message is %s, want notifications/subscriptions/acknowledged", l.id, short(m.Raw))
	}
	l.checkMsg(m)
	return m
}

// checkMsg checks one message of the subscription.
func (l *listenSub) checkMsg(m Msg) {
	c := l.c
	switch {
	case m.IsResponse():
		c.Failf("listen %s was answered while open: %s", l.id, short(m.Raw))
		return
	case !m.IsNotification():
		c.Failf("listen %s stream carries a non-notification: %s", l.id, short(m.Raw))
		return
	case m.Method() == "notifications/progress" || m.Method() == "notifications/message":
		c.Failf("listen %s stream carries %s", l.id, m.Method())
	}
	meta, _ := m.Params().Obj("_meta")
	sid, ok := meta[metaSubscriptionID]
	switch {
	case !ok:
		c.Failf("%s on listen %s lacks _meta[%q]", m.Method(), l.id, metaSubscriptionID)
	case jsonKind(sid) != jsonKind(json.RawMessage(l.id)):
		c.Failf("%s: subscriptionId %s is a %s, the listen id %s a %s", m.Method(), sid, jsonKind(sid), l.id, jsonKind(json.RawMessage(l.id)))
	case !jsonEqual(sid, []byte(l.id)):
		c.Failf("%s: subscriptionId %s, want %s", m.Method(), sid, l.id)
	}
}
