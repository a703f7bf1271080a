package mcp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// The 2026-07-28 ("stateless") era: no handshake; every request carries its revision,
// the client's capabilities and identity in params._meta; results carry resultType;
// server-to-client requests become input_required results (multi round-trip
// requests, MRTR). A Server answers both eras on the same connection: a request is
// modern when its _meta names a protocol version, or when it arrived over HTTP with an
// MCP-Protocol-Version header that is not an initialize-era revision.

// Reserved _meta keys of 2026-07-28.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// modernMeta is the per-request metadata of a 2026-07-28 request.
type modernMeta struct {
	present      bool
	versionKey   bool // the protocolVersion member is there (even as null)
	version      *string
	capabilities json.RawMessage
	clientInfo   json.RawMessage
	logLevel     *string
}

func parseModernMeta(params json.RawMessage) modernMeta {
	var p struct {
		Meta *struct {
			Version      json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
			Capabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
			ClientInfo   json.RawMessage `json:"io.modelcontextprotocol/clientInfo"`
			LogLevel     json.RawMessage `json:"io.modelcontextprotocol/logLevel"`
		} `json:"_meta"`
	}
	var m modernMeta
	if len(params) == 0 || json.Unmarshal(params, &p) != nil || p.Meta == nil {
		return m
	}
	m.present = true
	m.versionKey = len(p.Meta.Version) > 0
	m.version = jsonStringOrRaw(p.Meta.Version)
	if len(p.Meta.Capabilities) > 0 && string(p.Meta.Capabilities) != "null" {
		m.capabilities = p.Meta.Capabilities
	}
	m.clientInfo = p.Meta.ClientInfo
	m.logLevel = jsonStringOrRaw(p.Meta.LogLevel)
	return m
}

// jsonStringOrRaw returns the string a JSON string holds, the raw text of any other
// value, or nil for an absent member or null.
func jsonStringOrRaw(raw json.RawMessage) *string {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		v = string(raw)
	}
	return &v
}

// headerValue returns an HTTP header of the request (case-insensitive name), trimmed.
func headerValue(req *jsonrpc.Request, name string) (string, bool) {
	// net/http stores names in canonical form, which is how callers spell them.
	if v := req.Header[name]; len(v) > 0 {
		return strings.TrimSpace(v[0]), true
	}
	for k, v := range req.Header {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return strings.TrimSpace(v[0]), true
		}
	}
	return "", false
}

// classify tells whether a request is modern (digest 2026-07-28 §15.2) and returns
// its parsed _meta.
func classify(req *jsonrpc.Request) (modernMeta, bool) {
	var m modernMeta
	if bytes.Contains(req.Params, []byte(MetaProtocolVersion)) {
		if m = parseModernMeta(req.Params); m.versionKey {
			return m, true
		}
	}
	// An empty header names no revision: it does not make a request modern (an
	// initialize-era session's request keeps its session's answers).
	if v, ok := headerValue(req, "Mcp-Protocol-Version"); ok && v != "" {
		r := lookupRevision(v)
		if r == nil || r.stateless {
			if !m.present {
				m = parseModernMeta(req.Params)
			}
			return m, true
		}
	}
	return m, false
}

// modernRevisions lists the revisions served without a handshake.
func modernRevisions() []string {
	var out []string
	for _, r := range revisionTable {
		if r.stateless {
			out = append(out, r.name)
		}
	}
	return out
}

var modernMethods = buildModernMethods()

func buildModernMethods() map[string]*method {
	modernMethods := map[string]*method{
		"server/discover":      {func(*ServerCapabilities) bool { return true }, handleDiscover},
		"subscriptions/listen": {func(*ServerCapabilities) bool { return true }, handleListen},
	}
	for _, m := range []string{"tools/list", "tools/call", "resources/list", "resources/templates/list",
		"resources/read", "prompts/list", "prompts/get", "completion/complete"} {
		modernMethods[m] = serverMethods[m]
	}
	modernMethods["completion/complete"] = &method{func(c *ServerCapabilities) bool { return c.Completions != nil }, handleComplete}
	// The tasks extension; tasks/result and tasks/list do not exist in this revision.
	tasksExt := func(c *ServerCapabilities) bool { return c.Extensions[ExtensionTasks] != nil }
	modernMethods["tasks/get"] = &method{tasksExt, handleModernTaskGet}
	modernMethods["tasks/update"] = &method{tasksExt, handleModernTaskUpdate}
	modernMethods["tasks/cancel"] = &method{tasksExt, handleModernTaskCancel}
	return modernMethods
}

// mrtrMethods may answer with input_required.
var mrtrMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// cacheableMethods carry ttlMs and cacheScope on their complete results.
var cacheableMethods = map[string]bool{"server/discover": true, "tools/list": true, "prompts/list": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true}

// handleModern serves one 2026-07-28 request, validating its metadata in the order
// the digest gives (§4.1): header present, _meta complete, header equals _meta,
// version supported, method known, capability declared, then params.
func (ss *ServerSession) handleModern(ctx context.Context, req *jsonrpc.Request, meta modernMeta) (any, error) {
	hv, hasHeader := headerValue(req, "Mcp-Protocol-Version")
	if req.Header != nil && !hasHeader {
		return nil, jsonrpc.NewError(CodeHeaderMismatch, "Missing MCP-Protocol-Version header", nil)
	}
	switch {
	case !meta.present:
		return nil, invalidParams("Missing params._meta: a %s request must carry its protocol version and client capabilities", Revision20260728)
	case meta.version == nil:
		return nil, invalidParams("Missing _meta[%q]", MetaProtocolVersion)
	case meta.capabilities == nil:
		return nil, invalidParams("Missing _meta[%q]", MetaClientCapabilities)
	}
	if hasHeader && hv != *meta.version {
		return nil, jsonrpc.NewError(CodeHeaderMismatch,
			fmt.Sprintf("MCP-Protocol-Version header %q does not match _meta protocol version %q", hv, *meta.version), nil)
	}
	rev := lookupRevision(*meta.version)
	if rev == nil || !rev.stateless {
		return nil, jsonrpc.NewError(CodeUnsupportedProtocolVersion, "Unsupported protocol version",
			map[string]any{"supported": modernRevisions(), "requested": *meta.version})
	}
	m := modernMethods[req.Method]
	if m == nil {
		return nil, methodNotFound("method %q not found (protocol revision %s)", req.Method, rev.name)
	}
	caps := ss.server.capabilities(rev)
	if !m.gate(caps) {
		return nil, methodNotFound("method %q is not supported: the server did not declare its capability", req.Method)
	}
	var clientCaps ClientCapabilities
	if err := json.Unmarshal(meta.capabilities, &clientCaps); err != nil {
		return nil, invalidParams("_meta[%q] is not a capabilities object: %v", MetaClientCapabilities, err)
	}
	ri := &requestInfo{ss: ss, req: req, rev: rev, clientCaps: &clientCaps}
	if meta.logLevel != nil {
		if LoggingLevel(*meta.logLevel).severity() < 0 {
			return nil, invalidParams("unknown log level %q in _meta[%q]", *meta.logLevel, MetaLogLevel)
		}
		ri.logLevel = LoggingLevel(*meta.logLevel)
	}
	ri.modernLogging = true
	ri.progressToken = progressTokenOf(req.Params)
	if mrtrMethods[req.Method] {
		st, err := ss.server.newMRTR(req)
		if err != nil {
			return nil, err
		}
		ri.mrtr = st
	}
	if req.Method == "tools/call" && req.Header != nil {
		if err := ss.server.checkParamHeaders(req); err != nil {
			return nil, err
		}
	}
	ctx = ri.context(ctx)
	res, err := m.handle(ctx, ss, ri)
	ri.done.Store(true)
	if err != nil {
		var ire *inputRequiredError
		if errors.As(err, &ire) && ri.mrtr != nil {
			return ss.server.inputRequiredResult(ri.mrtr, ire)
		}
		if errors.As(err, &ire) {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "%s cannot ask the client for input", req.Method)
		}
		return nil, err
	}
	// A tool whose handler turned an input-required error into an isError result
	// would hide the request; look for it.
	if ri.mrtr != nil && ri.mrtr.pending != nil {
		return ss.server.inputRequiredResult(ri.mrtr, ri.mrtr.pending)
	}
	return ss.server.completeResult(req.Method, res)
}

// completeResult adds resultType, serverInfo and (for cacheable methods) ttlMs and
// cacheScope to a result.
func (s *Server) completeResult(method string, res any) (any, error) {
	raw, ok := res.(json.RawMessage)
	if !ok {
		var err error
		if m, isM := res.(json.Marshaler); isM && !isNilPointer(res) {
			// The type's own encoder: json.Marshal would run it and then read its
			// whole output again. The bytes are checked on the way out (see
			// jsonrpc's marshalResult).
			raw, err = m.MarshalJSON()
		} else {
			raw, err = json.Marshal(res)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(raw) >= 2 && raw[0] == '{' && !bytes.Contains(raw, []byte(`"_meta"`)) && !bytes.Contains(raw, []byte(`"resultType"`)) {
		// The common case, without a decode: splice the members in front.
		out := make([]byte, 0, len(raw)+len(s.serverInfoMeta())+64)
		out = append(out, `{"resultType":"complete",`...)
		if cacheableMethods[method] {
			out = append(out, `"ttlMs":`...)
			out = strconv.AppendInt(out, s.opts.CacheTTL.Milliseconds(), 10)
			out = append(out, `,"cacheScope":`...)
			out = strconv.AppendQuote(out, s.cacheScope())
			out = append(out, ',')
		}
		out = append(out, `"_meta":{"`+MetaServerInfo+`":`...)
		out = append(out, s.serverInfoMeta()...)
		out = append(out, '}')
		if rest := bytes.TrimSpace(raw[1:]); len(rest) > 0 && rest[0] != '}' {
			out = append(out, ',')
		}
		out = append(out, raw[1:]...)
		return json.RawMessage(out), nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "result of %s is not an object", method)
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	if _, ok := m["resultType"]; !ok {
		m["resultType"] = json.RawMessage(`"complete"`)
	}
	if cacheableMethods[method] {
		m["ttlMs"] = rawJSON(s.opts.CacheTTL.Milliseconds())
		m["cacheScope"] = rawJSON(s.cacheScope())
	}
	s.stampServerInfo(m)
	return m, nil
}

func (s *Server) cacheScope() string {
	if s.opts.CacheScope == "" {
		return "private"
	}
	return s.opts.CacheScope
}

// serverInfoMeta is the server's Implementation as JSON, computed once.
func (s *Server) serverInfoMeta() []byte {
	s.infoOnce.Do(func() { s.infoJSON = rawJSON(&s.impl) })
	return s.infoJSON
}

func (s *Server) stampServerInfo(m map[string]json.RawMessage) {
	meta := map[string]json.RawMessage{}
	if raw, ok := m["_meta"]; ok {
		_ = json.Unmarshal(raw, &meta)
	}
	meta[MetaServerInfo] = s.serverInfoMeta()
	m["_meta"] = rawJSON(meta)
}

// DiscoverResult is the result of server/discover (2026-07-28).
type DiscoverResult struct {
	SupportedVersions []string            `json:"supportedVersions"`
	Capabilities      *ServerCapabilities `json:"capabilities"`
	Instructions      string              `json:"instructions,omitempty"`
	Meta              Meta                `json:"_meta,omitempty"`
}

func handleDiscover(ctx context.Context, ss *ServerSession, ri *requestInfo) (any, error) {
	return &DiscoverResult{
		SupportedVersions: SupportedRevisions(),
		Capabilities:      ss.server.capabilities(ri.rev),
		Instructions:      ss.server.opts.Instructions,
	}, nil
}

// MissingClientCapabilityError is the 2026-07-28 error (-32021) for a request that
// cannot be served without a client capability it did not declare; required names
// them, e.g. &ClientCapabilities{Sampling: &SamplingCapability{}}.
func MissingClientCapabilityError(required *ClientCapabilities) *jsonrpc.Error {
	return jsonrpc.NewError(CodeMissingRequiredClientCapability, "Missing required client capability",
		map[string]any{"requiredCapabilities": required})
}

// ClientCapabilitiesFor returns the capabilities the client declared for the request
// ctx belongs to: the request's own under 2026-07-28, the session's otherwise.
func (ss *ServerSession) ClientCapabilitiesFor(ctx context.Context) *ClientCapabilities {
	_, caps := ss.revisionFor(ctx)
	if caps == nil {
		return &ClientCapabilities{}
	}
	return caps
}

// ProtocolVersionFor returns the revision the request ctx belongs to is served under.
func (ss *ServerSession) ProtocolVersionFor(ctx context.Context) string {
	rev, _ := ss.revisionFor(ctx)
	if rev == nil {
		return ""
	}
	return rev.name
}

// ---- multi round-trip requests ----

// inputRequiredError stops a handler that needs input the retry did not bring.
type inputRequiredError struct {
	requests map[string]inputRequestWire
}

func (e *inputRequiredError) Error() string {
	keys := make([]string, 0, len(e.requests))
	for k := range e.requests {
		keys = append(keys, k)
	}
	return "input required from the client: " + strings.Join(keys, ", ")
}

// IsInputRequired reports whether err asks for client input (2026-07-28): return it
// from the handler unchanged.
func IsInputRequired(err error) bool {
	var ire *inputRequiredError
	return errors.As(err, &ire)
}

type inputRequestWire struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// mrtrState is what one modern request knows about its input rounds.
type mrtrState struct {
	method    string
	params    json.RawMessage
	name      *string // params.name or params.uri, computed when needed
	round     int
	prior     map[string]json.RawMessage // answers of earlier rounds (from requestState)
	responses map[string]json.RawMessage // this retry's inputResponses
	answered  map[string]json.RawMessage // answers the handler used this run
	pending   *inputRequiredError        // set when the handler asked and was refused
}

// requestStatePayload is what requestState carries, under an HMAC.
type requestStatePayload struct {
	Method  string                     `json:"m"`
	Name    string                     `json:"n"`
	Round   int                        `json:"r"`
	Expires int64                      `json:"x"`
	Answers map[string]json.RawMessage `json:"a,omitempty"`
}

// requestStateTTL bounds how long a requestState stays valid.
const requestStateTTL = time.Hour

func (m *mrtrState) nameOf() string {
	if m.name == nil {
		n := mrtrName(m.method, m.params)
		m.name = &n
	}
	return *m.name
}

func mrtrName(method string, params json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(params, &p)
	if method == "resources/read" {
		return p.URI
	}
	return p.Name
}

func (s *Server) newMRTR(req *jsonrpc.Request) (*mrtrState, error) {
	var p struct {
		InputResponses map[string]json.RawMessage `json:"inputResponses"`
		RequestState   *string                    `json:"requestState"`
	}
	if bytes.Contains(req.Params, []byte(`"inputResponses"`)) || bytes.Contains(req.Params, []byte(`"requestState"`)) {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, invalidParams("invalid params: %v", err)
		}
	}
	st := &mrtrState{method: req.Method, params: req.Params, responses: p.InputResponses}
	if p.RequestState != nil {
		payload, err := s.openRequestState(*p.RequestState)
		if err != nil {
			return nil, invalidParams("requestState integrity check failed: %v", err)
		}
		if payload.Method != st.method || payload.Name != st.nameOf() {
			return nil, invalidParams("requestState integrity check failed: it belongs to another request")
		}
		if time.Now().Unix() > payload.Expires {
			return nil, invalidParams("requestState has expired; start the request again")
		}
		st.round = payload.Round
		st.prior = payload.Answers
	}
	return st, nil
}

// resolve returns the answers for keys, or an input-required error listing what is
// missing (or malformed: a bad answer is asked for again).
func (m *mrtrState) resolve(keys []string, reqs map[string]InputRequest, prepared map[string]any) (*InputResults, error) {
	out := &InputResults{raw: map[string]json.RawMessage{}}
	missing := map[string]inputRequestWire{}
	for _, k := range keys {
		if raw, ok := m.prior[k]; ok {
			out.raw[k] = raw
			if m.answered == nil {
				m.answered = map[string]json.RawMessage{}
			}
			m.answered[k] = raw
			continue
		}
		if raw, ok := m.responses[k]; ok && checkInputAnswer(reqs[k], prepared[k], raw) == nil {
			out.raw[k] = raw
			if m.answered == nil {
				m.answered = map[string]json.RawMessage{}
			}
			m.answered[k] = raw
			continue
		}
		missing[k] = inputRequestWire{Method: reqs[k].Method, Params: prepared[k]}
	}
	if len(missing) > 0 {
		m.pending = &inputRequiredError{requests: missing}
		return nil, m.pending
	}
	return out, nil
}

func (s *Server) inputRequiredResult(m *mrtrState, ire *inputRequiredError) (any, error) {
	state, err := s.sealRequestState(&requestStatePayload{Method: m.method, Name: m.nameOf(), Round: m.round + 1,
		Expires: time.Now().Add(requestStateTTL).Unix(), Answers: m.answered})
	if err != nil {
		return nil, err
	}
	res := map[string]json.RawMessage{
		"resultType":    json.RawMessage(`"input_required"`),
		"inputRequests": rawJSON(ire.requests),
		"requestState":  rawJSON(state),
	}
	s.stampServerInfo(res)
	return res, nil
}

func (s *Server) sealRequestState(p *requestStatePayload) (string, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	mac := hmac.New(sha256.New, s.stateKey[:])
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)), nil
}

func (s *Server) openRequestState(state string) (*requestStatePayload, error) {
	b64body, b64mac, ok := strings.Cut(state, ".")
	if !ok {
		return nil, errors.New("malformed")
	}
	body, err1 := base64.RawURLEncoding.DecodeString(b64body)
	sum, err2 := base64.RawURLEncoding.DecodeString(b64mac)
	if err1 != nil || err2 != nil {
		return nil, errors.New("malformed")
	}
	mac := hmac.New(sha256.New, s.stateKey[:])
	mac.Write(body)
	if !hmac.Equal(sum, mac.Sum(nil)) {
		return nil, errors.New("signature mismatch")
	}
	var p requestStatePayload
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, errors.New("malformed")
	}
	return &p, nil
}

// autoKey names the input requests made through Elicit, CreateMessage and ListRoots
// in the 2026-07-28 era: prefix-1, prefix-2, … in call order.
func autoKey(ctx context.Context, prefix string) string {
	ri := requestInfoFrom(ctx)
	if ri == nil {
		return prefix
	}
	ri.mu.Lock()
	ri.autoSeq++
	n := ri.autoSeq
	ri.mu.Unlock()
	return fmt.Sprintf("%s-%d", prefix, n)
}

// isNilPointer reports whether v is a nil pointer (whose MarshalJSON may not be
// callable; json.Marshal writes null for it).
func isNilPointer(v any) bool {
	p := reflect.ValueOf(v)
	return p.Kind() == reflect.Pointer && p.IsNil()
}
