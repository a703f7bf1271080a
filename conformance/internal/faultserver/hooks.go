package faultserver

import "encoding/json"

// Extensions register themselves here from their own files (init
// functions), so that each feature area keeps its tools, methods and
// notification handling together.

// extraTool is a tool contributed by an extension.
type extraTool struct {
	// def returns the tool definition for the revision, or nil to leave the
	// tool out (for example before the revision that introduced it).
	def func(s *Server, rev string) map[string]any
	// call serves tools/call for the tool.
	call func(s *Server, c *call, args map[string]json.RawMessage) reply
}

var (
	// extraTools are listed after the built-in tools, in registration order
	// by name.
	extraTools     = map[string]extraTool{}
	extraToolOrder []string
	// extraMethods serve requests the built-in dispatcher does not know,
	// in both eras (c.modern tells which).
	extraMethods = map[string]func(s *Server, c *call) reply{}
	// extraNotifications handle client notifications in the initialize
	// era; they run after the built-in handling.
	extraNotifications = map[string]func(s *Server, sess *session, in *incoming) reply{}
	// extraCaps adjust the declared capabilities (both eras).
	extraCaps []func(s *Server, rev string, caps map[string]any)
)

func registerTool(name string, t extraTool) {
	if _, dup := extraTools[name]; dup {
		panic("faultserver: duplicate tool " + name)
	}
	extraTools[name] = t
	extraToolOrder = append(extraToolOrder, name)
}

func registerNotification(method string, h func(s *Server, sess *session, in *incoming) reply) {
	if _, dup := extraNotifications[method]; dup {
		panic("faultserver: duplicate notification handler " + method)
	}
	extraNotifications[method] = h
}

func (s *Server) extraToolDefs(rev string) []map[string]any {
	var out []map[string]any
	for _, name := range extraToolOrder {
		if d := extraTools[name].def(s, rev); d != nil {
			out = append(out, d)
		}
	}
	return out
}
