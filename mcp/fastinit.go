package mcp

import (
	"encoding/json"
)

// Hand-written decoding and encoding for initialize, which every session starts
// with. As in fastjson.go, the results are exactly encoding/json's; the fast paths
// take only the plain shapes most clients send and serve, and report false (or fall
// back to encoding/json) for anything else.

// decodeInitializeParamsFast decodes params when every member is one it knows,
// spelled exactly, with a plain value: protocolVersion a string without escapes;
// capabilities an object whose members are roots ({} or {"listChanged": bool}),
// sampling ({}) or elicitation ({}); clientInfo an object of name, title and
// version strings without escapes. It reports false, having set nothing the
// caller keeps, for anything else, which unmarshalParams then decodes and judges.
// params has passed the jsonrpc decoder: valid JSON without duplicate members.
func decodeInitializeParamsFast(params []byte, p *InitializeParams) bool {
	if d := skipSpace(params, 0); d >= len(params) || params[d] != '{' {
		return false
	}
	ok := true
	eachMember(params, func(key, value []byte) bool {
		switch string(key) {
		case "protocolVersion":
			s, plain := plainStringValue(value)
			p.ProtocolVersion, ok = s, plain
		case "capabilities":
			p.Capabilities, ok = decodeClientCapsFast(value)
		case "clientInfo":
			p.ClientInfo, ok = decodeImplementationFast(value)
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// plainStringValue returns the JSON string value as a Go string when it has no
// escapes (the jsonrpc decoder has checked its bytes).
func plainStringValue(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' || value[len(value)-1] != '"' || !plainString(value[1:len(value)-1]) {
		return "", false
	}
	return string(value[1 : len(value)-1]), true
}

// emptyObject reports whether value is {} (whitespace allowed inside).
func emptyObject(value []byte) bool {
	return len(value) >= 2 && value[0] == '{' && skipSpace(value, 1) == len(value)-1
}

func decodeClientCapsFast(value []byte) (*ClientCapabilities, bool) {
	if len(value) == 0 || value[0] != '{' {
		return nil, false
	}
	caps := &ClientCapabilities{}
	ok := true
	eachMember(value, func(key, v []byte) bool {
		switch string(key) {
		case "roots":
			// {} or {"listChanged": true|false}
			caps.Roots = &RootsCapability{}
			n := 0
			eachMember(v, func(k, b []byte) bool {
				n++
				ok = string(k) == "listChanged" && (string(b) == "true" || string(b) == "false")
				caps.Roots.ListChanged = string(b) == "true"
				return ok
			})
			ok = emptyObject(v) || (ok && n == 1)
		case "sampling":
			caps.Sampling = &SamplingCapability{}
			ok = emptyObject(v)
		case "elicitation":
			caps.Elicitation = &ElicitationCapability{}
			ok = emptyObject(v)
		default:
			ok = false
		}
		return ok
	})
	return caps, ok
}

func decodeImplementationFast(value []byte) (*Implementation, bool) {
	if len(value) == 0 || value[0] != '{' {
		return nil, false
	}
	impl := &Implementation{}
	ok := true
	eachMember(value, func(key, v []byte) bool {
		var s string
		s, ok = plainStringValue(v)
		switch string(key) {
		case "name":
			impl.Name = s
		case "title":
			impl.Title = s
		case "version":
			impl.Version = s
		default:
			ok = false
		}
		return ok
	})
	return impl, ok
}

// encodeInitializeResult writes r as encoding/json would; results with experimental
// or extension capabilities, tasks, icons or _meta go through encoding/json.
func encodeInitializeResult(r *InitializeResult) (json.RawMessage, error) {
	c, info := r.Capabilities, r.ServerInfo
	if r.Meta != nil || (c != nil && (len(c.Tasks) > 0 || len(c.Experimental) > 0 || len(c.Extensions) > 0)) ||
		(info != nil && len(info.Icons) > 0) {
		return json.Marshal(r)
	}
	b := make([]byte, 0, 256+len(r.Instructions))
	b = append(b, `{"protocolVersion":`...)
	b = appendString(b, r.ProtocolVersion)
	b = append(b, `,"capabilities":`...)
	if c == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '{')
		n := len(b)
		sep := func() {
			if len(b) > n {
				b = append(b, ',')
			}
		}
		if c.Prompts != nil {
			sep()
			b = appendListChanged(append(b, `"prompts":`...), c.Prompts.ListChanged)
		}
		if c.Resources != nil {
			sep()
			b = append(b, `"resources":{`...)
			switch {
			case c.Resources.Subscribe && c.Resources.ListChanged:
				b = append(b, `"subscribe":true,"listChanged":true`...)
			case c.Resources.Subscribe:
				b = append(b, `"subscribe":true`...)
			case c.Resources.ListChanged:
				b = append(b, `"listChanged":true`...)
			}
			b = append(b, '}')
		}
		if c.Tools != nil {
			sep()
			b = appendListChanged(append(b, `"tools":`...), c.Tools.ListChanged)
		}
		if c.Logging != nil {
			sep()
			b = append(b, `"logging":{}`...)
		}
		if c.Completions != nil {
			sep()
			b = append(b, `"completions":{}`...)
		}
		b = append(b, '}')
	}
	b = append(b, `,"serverInfo":`...)
	if info == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"name":`...)
		b = appendString(b, info.Name)
		if info.Title != "" {
			b = appendString(append(b, `,"title":`...), info.Title)
		}
		b = appendString(append(b, `,"version":`...), info.Version)
		if info.Description != "" {
			b = appendString(append(b, `,"description":`...), info.Description)
		}
		if info.WebsiteURL != "" {
			b = appendString(append(b, `,"websiteUrl":`...), info.WebsiteURL)
		}
		b = append(b, '}')
	}
	if r.Instructions != "" {
		b = appendString(append(b, `,"instructions":`...), r.Instructions)
	}
	return append(b, '}'), nil
}

func appendListChanged(b []byte, listChanged bool) []byte {
	if listChanged {
		return append(b, `{"listChanged":true}`...)
	}
	return append(b, "{}"...)
}
