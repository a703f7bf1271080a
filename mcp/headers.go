package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// paramHeader is a tool argument mirrored into an Mcp-Param-{Name} HTTP header
// (2026-07-28: the "x-mcp-header" annotation on an input schema property).
type paramHeader struct {
	name string   // header suffix, as annotated
	path []string // property path from the root, through "properties" only
	typ  string   // "string", "integer" or "boolean"
}

// collectParamHeaders finds the x-mcp-header annotations of an input schema. Only
// properties reachable from the root through "properties" count.
func collectParamHeaders(schema json.RawMessage) []paramHeader {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	var out []paramHeader
	var walk func(node map[string]any, path []string)
	walk = func(node map[string]any, path []string) {
		props, _ := node["properties"].(map[string]any)
		for name, v := range props {
			p, ok := v.(map[string]any)
			if !ok {
				continue
			}
			sub := append(append([]string(nil), path...), name)
			if h, ok := p["x-mcp-header"].(string); ok && h != "" {
				typ, _ := p["type"].(string)
				out = append(out, paramHeader{name: h, path: sub, typ: typ})
			}
			walk(p, sub)
		}
	}
	walk(root, nil)
	return out
}

// checkParamHeaders verifies the Mcp-Param-* headers of a 2026-07-28 tools/call over
// HTTP against the arguments in the body: every annotated argument that is present
// and not null needs its header, with an equal value (-32020 otherwise).
func (s *Server) checkParamHeaders(req *jsonrpc.Request) error {
	// The tool's name first (member names exactly, as the handler reads them): the
	// arguments are decoded only for a tool that declares header parameters.
	var name string
	var args []byte
	jsonrpc.Members(req.Params, func(n, v []byte) bool {
		switch string(n) {
		case "name":
			_ = json.Unmarshal(v, &name)
		case "arguments":
			args = v
		}
		return true
	})
	s.mu.Lock()
	st := s.tools[name]
	s.mu.Unlock()
	if st == nil || len(st.headers) == 0 {
		return nil
	}
	var arguments map[string]any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&arguments) != nil {
		return nil // the handler reports malformed params
	}
	for _, h := range st.headers {
		v, ok := lookupPath(arguments, h.path)
		if !ok || v == nil {
			continue
		}
		hv, present := headerValue(req, "Mcp-Param-"+h.name)
		if !present {
			return jsonrpc.NewError(CodeHeaderMismatch, fmt.Sprintf("Missing Mcp-Param-%s header for argument %q", h.name, strings.Join(h.path, ".")), nil)
		}
		decoded, err := decodeHeaderValue(hv)
		if err != nil {
			return jsonrpc.NewError(CodeHeaderMismatch, fmt.Sprintf("Mcp-Param-%s: %v", h.name, err), nil)
		}
		if !headerMatches(v, decoded) {
			return jsonrpc.NewError(CodeHeaderMismatch, fmt.Sprintf("Mcp-Param-%s does not match argument %q", h.name, strings.Join(h.path, ".")), nil)
		}
	}
	return nil
}

func lookupPath(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, k := range path {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// decodeHeaderValue undoes the =?base64?…?= encoding of non-header-safe values;
// other values are literal.
func decodeHeaderValue(v string) (string, error) {
	if strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
		b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
		if err != nil {
			return "", fmt.Errorf("invalid base64 value")
		}
		return string(b), nil
	}
	for _, c := range v {
		if c < 0x20 || c == 0x7f || c > 0x7e {
			return "", fmt.Errorf("invalid characters in header value")
		}
	}
	return v, nil
}

// headerMatches compares a body value with a header value: strings exactly, numbers
// numerically, booleans as true/false.
func headerMatches(v any, h string) bool {
	switch x := v.(type) {
	case string:
		return x == h
	case bool:
		return (x && h == "true") || (!x && h == "false")
	case json.Number:
		a, ok1 := new(big.Float).SetString(x.String())
		b, ok2 := new(big.Float).SetString(h)
		return ok1 && ok2 && a.Cmp(b) == 0
	}
	return false
}

// validateParamHeaders checks the x-mcp-header annotations of a tool's input schema
// as a 2026-07-28 client must before using the tool over HTTP: each name a non-empty
// HTTP token, unique ignoring case, only on string, integer or boolean properties
// reachable from the root through "properties" alone.
func validateParamHeaders(schema json.RawMessage) error {
	var root any
	if err := json.Unmarshal(schema, &root); err != nil {
		return err
	}
	seen := map[string]bool{}
	var walk func(node any, reachable bool) error
	walk = func(node any, reachable bool) error {
		switch n := node.(type) {
		case map[string]any:
			if h, ok := n["x-mcp-header"]; ok {
				name, _ := h.(string)
				if !reachable {
					return fmt.Errorf("x-mcp-header %q is not reachable through properties", name)
				}
				if name == "" || !isToken(name) {
					return fmt.Errorf("x-mcp-header %q is not an HTTP token", name)
				}
				if seen[strings.ToLower(name)] {
					return fmt.Errorf("x-mcp-header %q is used twice", name)
				}
				seen[strings.ToLower(name)] = true
				switch n["type"] {
				case "string", "integer", "boolean":
				default:
					return fmt.Errorf("x-mcp-header %q is on a property of type %v", name, n["type"])
				}
			}
			for k, v := range n {
				if k == "properties" {
					if props, ok := v.(map[string]any); ok {
						for _, p := range props {
							if err := walk(p, reachable); err != nil {
								return err
							}
						}
					}
					continue
				}
				if err := walk(v, false); err != nil {
					return err
				}
			}
		case []any:
			for _, v := range n {
				if err := walk(v, false); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(root, true)
}

func isToken(s string) bool {
	for _, c := range s {
		if c > 0x7e || c <= 0x20 || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c) {
			return false
		}
	}
	return true
}

// paramHeadersFor computes the Mcp-Param-* headers of a tools/call from its arguments.
func paramHeadersFor(headers []paramHeader, args json.RawMessage) map[string][]string {
	if len(headers) == 0 || len(args) == 0 {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	out := map[string][]string{}
	for _, h := range headers {
		v, ok := lookupPath(m, h.path)
		if !ok || v == nil {
			continue
		}
		var s string
		switch x := v.(type) {
		case string:
			s = encodeHeaderValue(x)
		case bool:
			s = fmt.Sprint(x)
		case json.Number:
			s = x.String()
		default:
			continue
		}
		out["Mcp-Param-"+h.name] = []string{s}
	}
	return out
}

// encodeHeaderValue writes a string that cannot travel as a plain header value
// (non-ASCII, control characters, surrounding white space, or one that looks like
// the encoding itself) as =?base64?…?=.
func encodeHeaderValue(s string) string {
	plain := strings.TrimSpace(s) == s && !(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?="))
	for _, c := range s {
		if c < 0x20 || c > 0x7e {
			plain = false
		}
	}
	if plain {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}
