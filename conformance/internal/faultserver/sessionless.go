package faultserver

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

var removedMethods = map[string]bool{
	"initialize": true, "ping": true, "logging/setLevel": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
}

// statusFor maps a 2026-07-28 error code to its HTTP status.
func statusFor(code int) int {
	switch code {
	case -32601:
		return 404
	case -32602, -32020, -32021, -32022:
		return 400
	}
	return 200
}

func modernErr(id json.RawMessage, code int, msg string, data any) reply {
	return reply{msgs: [][]byte{errMsg(id, code, msg, data)}, status: statusFor(code)}
}

// modern serves a 2026-07-28 request: validation in the order the digest
// gives, then the feature.
func (s *Server) modern(in *incoming, rc reqCtx) reply {
	m := meta(in.params)
	if in.id == nil {
		// Notifications need no answer; a cancellation may end a listen
		// stream (notify.go).
		s.modernNotification(in)
		return reply{}
	}
	if rc.http {
		hv := strings.TrimSpace(rc.headers["Mcp-Protocol-Version"])
		if !s.has("stateless/header-protocol-version") && hv == "" {
			return modernErr(in.id, -32020, "MCP-Protocol-Version header missing", nil)
		}
	}
	if m == nil && !s.has("stateless/meta-missing") {
		return modernErr(in.id, -32602, "params._meta is required", nil)
	}
	var ver string
	if raw, ok := m["io.modelcontextprotocol/protocolVersion"]; ok {
		_ = json.Unmarshal(raw, &ver)
	} else if !s.has("stateless/meta-no-version") && !s.has("stateless/meta-missing") {
		return modernErr(in.id, -32602, "_meta lacks io.modelcontextprotocol/protocolVersion", nil)
	}
	if ver == "" {
		ver = modernRevision
	}
	if _, ok := m["io.modelcontextprotocol/clientCapabilities"]; !ok && !s.has("stateless/meta-no-capabilities") && !s.has("stateless/meta-missing") {
		return modernErr(in.id, -32602, "_meta lacks io.modelcontextprotocol/clientCapabilities", nil)
	}
	if _, ok := m["io.modelcontextprotocol/clientInfo"]; !ok && s.has("stateless/client-info-optional") {
		return modernErr(in.id, -32602, "_meta lacks io.modelcontextprotocol/clientInfo", nil)
	}
	if rc.http && !s.has("stateless/header-protocol-version") {
		if hv := strings.TrimSpace(rc.headers["Mcp-Protocol-Version"]); hv != ver {
			return modernErr(in.id, -32020, "MCP-Protocol-Version header does not match _meta", nil)
		}
	}
	if ver != modernRevision {
		if s.has("stateless/unsupported-version") {
			return modernErr(in.id, -32602, "unsupported version", nil)
		}
		return modernErr(in.id, -32022, "unsupported protocol version", map[string]any{"supported": allRevisions, "requested": ver})
	}
	if rc.http {
		if r, bad := s.checkHeaders(in, rc); bad {
			return r
		}
	}
	if removedMethods[in.method] && !(in.method == "ping" && s.has("stateless/removed-methods")) {
		return modernErr(in.id, -32601, "method not found", nil)
	}
	c := &call{in: in, rev: modernRevision, modern: true, logMin: -1}
	if raw, ok := m["io.modelcontextprotocol/logLevel"]; ok {
		var l string
		_ = json.Unmarshal(raw, &l)
		if c.logMin = levelIndex(l); c.logMin < 0 {
			return modernErr(in.id, -32602, "bad logLevel", nil)
		}
	}
	var r reply
	switch in.method {
	case "server/discover":
		res := map[string]any{"supportedVersions": allRevisions, "capabilities": s.capabilities(modernRevision),
			"instructions": "A deliberately breakable server.", "cacheScope": "public", "ttlMs": 0}
		if s.has("stateless/discover") {
			delete(res, "ttlMs")
		}
		r = reply{msgs: [][]byte{s.modernResult(in.id, res)}}
	case "ping":
		r = reply{msgs: [][]byte{s.modernResult(in.id, map[string]any{})}}
	default:
		r = s.feature(c)
	}
	if r.status == 0 && len(r.msgs) > 0 {
		if e := lastError(r.msgs[len(r.msgs)-1]); e != 0 {
			r.status = statusFor(e)
		}
	}
	return r
}

// modernResult stamps resultType and serverInfo.
func (s *Server) modernResult(id json.RawMessage, res map[string]any) []byte {
	if _, ok := res["resultType"]; !ok {
		res["resultType"] = "complete"
	}
	if !s.has("stateless/server-info") {
		m, _ := res["_meta"].(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		m["io.modelcontextprotocol/serverInfo"] = map[string]any{"name": "faultserver", "version": "1.0.0"}
		res["_meta"] = m
	}
	return resultMsg(id, res)
}

// checkHeaders validates Mcp-Method and Mcp-Name.
func (s *Server) checkHeaders(in *incoming, rc reqCtx) (reply, bool) {
	if !s.has("stateless/header-method") {
		if m := strings.TrimSpace(rc.headers["Mcp-Method"]); m != in.method {
			return modernErr(in.id, -32020, "Mcp-Method header does not match the body", nil), true
		}
	}
	if r, bad := s.checkParamHeaders(in, rc); bad {
		return r, true
	}
	if s.has("stateless/header-name") {
		return reply{}, false
	}
	key := ""
	switch in.method {
	case "tools/call", "prompts/get":
		key = "name"
	case "resources/read":
		key = "uri"
	default:
		return reply{}, false
	}
	want, _ := str(in.params, key)
	got := strings.TrimSpace(rc.headers["Mcp-Name"])
	if strings.HasPrefix(got, "=?base64?") && strings.HasSuffix(got, "?=") {
		dec, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(got, "=?base64?"), "?="))
		if err != nil {
			return modernErr(in.id, -32020, "Mcp-Name is not valid base64", nil), true
		}
		got = string(dec)
	}
	if got != want {
		return modernErr(in.id, -32020, "Mcp-Name header does not match the body", nil), true
	}
	return reply{}, false
}

// lastError returns the error code of a response message (0 if none).
func lastError(msg []byte) int {
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Error == nil {
		return 0
	}
	return m.Error.Code
}
