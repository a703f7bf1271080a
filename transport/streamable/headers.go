package streamable

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// Error codes of revision 2026-07-28 that the transport emits or maps to HTTP status.
const (
	codeHeaderMismatch     int64 = -32020
	codeMissingCapability  int64 = -32021
	codeUnsupportedVersion int64 = -32022
)

const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
)

// serveModern serves a 2026-07-28 request: always on a connection of its own (no
// session, whatever the handler mode), after the header checks that need no MCP
// knowledge.
func (h *Handler) serveModern(w http.ResponseWriter, r *http.Request, msg jsonrpc.Message, pv string) {
	switch m := msg.(type) {
	case *jsonrpc.Request:
		if code, text := h.checkModernHeaders(r.Header, m, pv); code != 0 {
			writeRPCError(w, http.StatusBadRequest, m.ID, code, text)
			return
		}
		m.Header = r.Header
	case jsonrpc.Batch:
		writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
			"Invalid Request: batches are not allowed in protocol revision "+pv)
		return
	default:
		writeRPCError(w, http.StatusBadRequest, jsonrpc.ID{}, jsonrpc.CodeInvalidRequest,
			"Invalid Request: the body must be a request or a notification")
		return
	}
	if h.closing.Load() {
		writeHTTPError(w, http.StatusServiceUnavailable, "Service Unavailable: shutting down")
		return
	}
	h.serveStateless(w, r, msg, pv, true)
}

// checkModernHeaders compares the standard request headers with the body. It returns
// 0 when the request may proceed; checks that need the MCP layer (supported versions,
// missing _meta fields, Mcp-Param-*) are left to it, in the order the suite expects:
// missing header, missing _meta (MCP), header ≠ _meta, unsupported version (MCP),
// Mcp-Method / Mcp-Name.
func (h *Handler) checkModernHeaders(hdr http.Header, req *jsonrpc.Request, pv string) (int64, string) {
	m, hasMethod := first(hdr, hdrMethod)
	if req.IsNotification() {
		// Header rules for notifications are unspecified: only refuse a contradiction.
		if hasMethod && m != req.Method {
			return codeHeaderMismatch, "Mcp-Method header does not match the body method"
		}
		return 0, ""
	}
	info, err := scanParams(req.Params)
	if err != nil {
		return jsonrpc.CodeInvalidRequest, "Invalid Request: " + err.Error()
	}
	if pv == "" {
		return codeHeaderMismatch, "MCP-Protocol-Version header is required"
	}
	if !info.hasPV || !info.hasCaps {
		return 0, "" // the MCP layer answers -32602
	}
	if pv != info.pv {
		return codeHeaderMismatch, "MCP-Protocol-Version header does not match _meta protocolVersion"
	}
	if !h.supports(info.pv) {
		return 0, "" // the MCP layer answers -32022
	}
	if !hasMethod {
		return codeHeaderMismatch, "Mcp-Method header is required"
	}
	if m != req.Method {
		return codeHeaderMismatch, "Mcp-Method header does not match the body method"
	}
	var want string
	var has bool
	switch req.Method {
	case "tools/call", "prompts/get":
		want, has = info.name, info.hasName
	case "resources/read":
		want, has = info.uri, info.hasURI
	case "tasks/get", "tasks/update", "tasks/cancel":
		want, has = info.taskID, info.hasTaskID
	default:
		return 0, ""
	}
	raw, ok := first(hdr, hdrName)
	if !ok {
		return codeHeaderMismatch, "Mcp-Name header is required for " + req.Method
	}
	got, ok := DecodeHeaderValue(raw)
	if !ok {
		return codeHeaderMismatch, "Mcp-Name header value is malformed"
	}
	if !has {
		return 0, "" // the body lacks the member: the MCP layer answers -32602
	}
	if got != want {
		return codeHeaderMismatch, "Mcp-Name header does not match the body"
	}
	return 0, ""
}

const (
	b64Prefix = "=?base64?"
	b64Suffix = "?="
)

// DecodeHeaderValue decodes an Mcp-Name or Mcp-Param-* header value (2026-07-28): a
// value wrapped as =?base64?…?= is the standard base64 of the UTF-8 text (strictly
// decoded); any other value is literal and must be printable ASCII. Surrounding spaces
// and tabs are not part of the value. It reports false for a malformed value.
func DecodeHeaderValue(v string) (string, bool) {
	v = strings.Trim(v, " \t")
	if len(v) >= len(b64Prefix)+len(b64Suffix) && strings.HasPrefix(v, b64Prefix) && strings.HasSuffix(v, b64Suffix) {
		b, err := base64.StdEncoding.Strict().DecodeString(v[len(b64Prefix) : len(v)-len(b64Suffix)])
		if err != nil {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e {
			return "", false
		}
	}
	return v, true
}

// EncodeHeaderValue is the client side of DecodeHeaderValue: plain printable ASCII
// without surrounding whitespace is sent as is, anything else base64-wrapped.
func EncodeHeaderValue(s string) string {
	plain := s != "" && s[0] != ' ' && s[0] != '\t' && s[len(s)-1] != ' ' && s[len(s)-1] != '\t' &&
		!(strings.HasPrefix(s, b64Prefix) && strings.HasSuffix(s, b64Suffix))
	for i := 0; plain && i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			plain = false
		}
	}
	if plain || s == "" {
		return s
	}
	return b64Prefix + base64.StdEncoding.EncodeToString([]byte(s)) + b64Suffix
}

// paramInfo is what the transport needs from a request's params.
type paramInfo struct {
	hasMeta, hasPV, hasCaps       bool
	pv                            string
	name, uri, taskID             string
	hasName, hasURI, hasTaskID    bool
	nameSeen, uriSeen, taskIDSeen bool
	pvSeen, capsSeen              bool
}

var errMalformedParams = errors.New("params are not a well-formed object (a member name repeated, or bad JSON)")

// hasModernMeta reports whether params._meta names a protocol version, which marks a
// 2026-07-28 request.
func hasModernMeta(params json.RawMessage) bool {
	if !bytes.Contains(params, []byte(`"`+metaProtocolVersion+`"`)) {
		return false
	}
	info, err := scanParams(params)
	return err == nil && info.pvSeen
}

func hasMetaVersion(msg jsonrpc.Message) bool {
	req, ok := msg.(*jsonrpc.Request)
	return ok && hasModernMeta(req.Params)
}

// scanParams reads the members the transport checks, matching member names exactly
// (encoding/json's case-insensitive matching would let a body disagree with itself),
// in one pass of the jsonrpc scanner, which also refuses a member name repeated in
// any object.
func scanParams(p json.RawMessage) (paramInfo, error) {
	var info paramInfo
	p = bytes.TrimSpace(p)
	if len(p) == 0 || p[0] != '{' {
		return info, nil
	}
	ok := jsonrpc.Members(p, func(name, value []byte) bool {
		switch string(name) {
		case "_meta":
			info.hasMeta = true
			if len(value) > 0 && value[0] == '{' {
				jsonrpc.Members(value, func(name, value []byte) bool {
					switch string(name) {
					case metaProtocolVersion:
						info.pvSeen = true
						info.pv, info.hasPV = jsonString(value)
					case metaClientCaps:
						info.capsSeen = true
						info.hasCaps = string(value) != "null"
					}
					return true
				})
			}
		case "name":
			info.nameSeen = true
			info.name, info.hasName = jsonString(value)
		case "uri":
			info.uriSeen = true
			info.uri, info.hasURI = jsonString(value)
		case "taskId":
			info.taskIDSeen = true
			info.taskID, info.hasTaskID = jsonString(value)
		}
		return true
	})
	if !ok {
		return info, errMalformedParams
	}
	return info, nil
}

// jsonString returns the string a JSON value holds, and false when it is not a string.
func jsonString(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
