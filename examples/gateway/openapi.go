package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// This file turns an OpenAPI 3.0/3.1 JSON document into the operations of a REST
// part (rest.go): one tool per selected operation, its input schema built from the
// operation's path, query and header parameters (and a JSON request body for the
// non-GET operations a writable server names), its output schema from the 200
// response, with every local $ref inlined.

// restParam is one parameter of an operation: where it goes in the request and the
// tool argument that carries it.
type restParam struct {
	Name     string // as the HTTP API knows it
	In       string // path, query or header
	Arg      string // the tool argument's name
	Required bool
	Schema   map[string]any // JSON Schema (2020-12) of the argument
	Desc     string
}

// restOp is one operation offered as a tool.
type restOp struct {
	ID          string // operationId or the config's tool name
	Name        string // the tool name (valid MCP name)
	Method      string
	Path        string // template, {name} for path parameters
	Title       string
	Description string
	Params      []*restParam
	Body        map[string]any // JSON Schema of a JSON request body, nil for none
	BodyReq     bool
	Output      map[string]any // JSON Schema of the 200 response, nil when unknown
	Wrapped     bool           // the 200 response is not an object: wrapped under "items"
}

// toolNameMCP is what the bridge's tool names match: what clients accept most widely.
var toolNameMCP = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// mcpToolName makes s a valid tool name: characters outside [A-Za-z0-9_-] become
// "_", and a name past 64 characters is cut to 55 and ends with "_" and 8 hex digits
// of the SHA-256 of s, so that two long names sharing a prefix stay apart.
func mcpToolName(s string) string {
	n := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			return c
		}
		return '_'
	}, s)
	if n == "" {
		n = "_"
	}
	if len(n) > 64 {
		sum := sha256.Sum256([]byte(s))
		n = n[:55] + "_" + hex.EncodeToString(sum[:4])
	}
	return n
}

// methodsInOrder are the HTTP methods of an OpenAPI path item, in the order tools
// are listed.
var methodsInOrder = []string{"get", "head", "options", "post", "put", "patch", "delete", "trace"}

// openAPIDoc is a decoded document (json.Number for numbers).
type openAPIDoc struct {
	root  map[string]any
	order []string // the keys of "paths" in the document's order
	nodes int      // schema objects produced for the current operation
}

// maxInlinedNodes bounds the schema objects one operation's schemas may expand to
// when their $refs are inlined: a document whose schemas refer to one another many
// times over would otherwise grow exponentially.
const maxInlinedNodes = 100000

var errTooLarge = fmt.Errorf("schemas expand to more than %d objects once their $refs are inlined", maxInlinedNodes)

// parseOpenAPI decodes and checks the outline of an OpenAPI 3.0/3.1 JSON document.
func parseOpenAPI(data []byte) (*openAPIDoc, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not a JSON document: %v", err)
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	ver, _ := root["openapi"].(string)
	if !strings.HasPrefix(ver, "3.0") && !strings.HasPrefix(ver, "3.1") {
		if sw, ok := root["swagger"].(string); ok {
			return nil, fmt.Errorf("Swagger %s documents are not supported: give an OpenAPI 3.0 or 3.1 document", sw)
		}
		return nil, fmt.Errorf(`"openapi" must name version 3.0.x or 3.1.x (got %q)`, ver)
	}
	if _, ok := root["paths"].(map[string]any); !ok {
		return nil, errors.New(`"paths" must be an object`)
	}
	return &openAPIDoc{root: root, order: pathsOrder(data)}, nil
}

// pathsOrder returns the members of the document's "paths" object in the order they
// are written (a decoded map has none), or nil if the document cannot be read so.
func pathsOrder(data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	// skip reads one value whose first token is t.
	skip := func(t json.Token) error {
		depth := 0
		for {
			if d, ok := t.(json.Delim); ok {
				if d == '{' || d == '[' {
					depth++
				} else {
					depth--
				}
			}
			if depth == 0 {
				return nil
			}
			var err error
			if t, err = dec.Token(); err != nil {
				return err
			}
		}
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		if k != "paths" {
			if skip(t) != nil {
				return nil
			}
			continue
		}
		if t != json.Delim('{') {
			return nil
		}
		var keys []string
		for dec.More() {
			pk, err := dec.Token()
			if err != nil {
				return nil
			}
			keys = append(keys, pk.(string))
			v, err := dec.Token()
			if err != nil || skip(v) != nil {
				return nil
			}
		}
		return keys
	}
	return nil
}

// pointer resolves a local reference ("#/components/schemas/Pet").
func (d *openAPIDoc) pointer(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, fmt.Errorf("$ref %q: only local references (#/...) are supported", ref)
	}
	var cur any = d.root
	p := strings.TrimPrefix(ref, "#")
	if p == "" {
		return cur, nil
	}
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
	}
	return cur, nil
}

// deref follows $ref chains of a non-schema object (parameter, response, body).
func (d *openAPIDoc) deref(v any) (map[string]any, error) {
	for i := 0; i < 32; i++ {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, errors.New("expected an object")
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, nil
		}
		var err error
		if v, err = d.pointer(ref); err != nil {
			return nil, err
		}
	}
	return nil, errors.New("$ref chain too long")
}

// schemaKeysOfSchemas are the keywords whose value is a map of schemas.
var schemaKeysOfSchemas = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}

// schemaKeysOfSchema are the keywords whose value is one schema.
var schemaKeysOfSchema = map[string]bool{"items": true, "additionalProperties": true, "not": true, "if": true, "then": true, "else": true,
	"contains": true, "propertyNames": true, "unevaluatedProperties": true, "unevaluatedItems": true, "additionalItems": true}

// schemaKeysOfLists are the keywords whose value is a list of schemas.
var schemaKeysOfLists = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}

// openAPIOnly are OpenAPI keywords that mean nothing to JSON Schema 2020-12.
var openAPIOnly = map[string]bool{"nullable": true, "discriminator": true, "xml": true, "externalDocs": true, "example": true}

// schema converts an OpenAPI schema object to a self-contained JSON Schema 2020-12:
// local $refs inlined (a reference cycle becomes an unconstrained schema), 3.0's
// nullable and boolean exclusiveMinimum/Maximum rewritten, OpenAPI-only keywords
// dropped.
func (d *openAPIDoc) schema(v any, stack []string) (any, error) {
	if len(stack) > 64 {
		return map[string]any{}, nil
	}
	switch s := v.(type) {
	case bool:
		return s, nil
	case map[string]any:
		if d.nodes++; d.nodes > maxInlinedNodes {
			return nil, errTooLarge
		}
		if ref, ok := s["$ref"].(string); ok {
			for _, r := range stack {
				if r == ref {
					// A recursive type: accept anything below this point.
					return map[string]any{"description": "(recursive: " + ref + ")"}, nil
				}
			}
			target, err := d.pointer(ref)
			if err != nil {
				return nil, err
			}
			res, err := d.schema(target, append(stack, ref))
			if err != nil || len(s) == 1 {
				return res, err
			}
			// OpenAPI 3.1 allows keywords beside $ref (a description, examples):
			// they apply on top of the referenced schema.
			rm, ok := res.(map[string]any)
			if !ok {
				return res, nil
			}
			rest := make(map[string]any, len(s)-1)
			for k, v := range s {
				if k != "$ref" {
					rest[k] = v
				}
			}
			over, err := d.schema(rest, stack)
			if err != nil {
				return nil, err
			}
			merged := make(map[string]any, len(rm)+len(rest))
			for k, v := range rm {
				merged[k] = v
			}
			for k, v := range over.(map[string]any) {
				merged[k] = v
			}
			return merged, nil
		}
		out := make(map[string]any, len(s))
		for k, val := range s {
			switch {
			case openAPIOnly[k]:
			case schemaKeysOfSchemas[k]:
				m, ok := val.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%s must be an object", k)
				}
				mo := make(map[string]any, len(m))
				for pk, pv := range m {
					c, err := d.schema(pv, stack)
					if err != nil {
						return nil, err
					}
					mo[pk] = c
				}
				out[k] = mo
			case schemaKeysOfSchema[k]:
				c, err := d.schema(val, stack)
				if err != nil {
					return nil, err
				}
				out[k] = c
			case schemaKeysOfLists[k]:
				a, ok := val.([]any)
				if !ok {
					return nil, fmt.Errorf("%s must be an array", k)
				}
				ao := make([]any, len(a))
				for i, e := range a {
					c, err := d.schema(e, stack)
					if err != nil {
						return nil, err
					}
					ao[i] = c
				}
				out[k] = ao
			default:
				out[k] = val
			}
		}
		// OpenAPI 3.0: nullable: true adds null to the type (and to an enum).
		if nb, _ := s["nullable"].(bool); nb {
			if t, ok := out["type"].(string); ok {
				out["type"] = []any{t, "null"}
			}
			if e, ok := out["enum"].([]any); ok {
				out["enum"] = append(append([]any(nil), e...), nil)
			}
		}
		// OpenAPI 3.0: exclusiveMinimum/Maximum are booleans qualifying minimum/maximum.
		for _, pair := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
			if b, ok := out[pair[0]].(bool); ok {
				delete(out, pair[0])
				if b {
					if lim, ok := out[pair[1]]; ok {
						out[pair[0]] = lim
						delete(out, pair[1])
					}
				}
			}
		}
		// 3.1 "examples" is a list (fine); a 3.0 leftover map is not valid JSON Schema.
		if ex, ok := out["examples"]; ok {
			if _, list := ex.([]any); !list {
				delete(out, "examples")
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("a schema must be an object or a boolean, not %s", kind(v))
}

// jsonMediaSchema returns the schema of the JSON media type of a content map.
func jsonMediaSchema(content any) (any, bool) {
	m, ok := content.(map[string]any)
	if !ok {
		return nil, false
	}
	for _, k := range sortedKeys(m) {
		mt := strings.ToLower(strings.TrimSpace(strings.SplitN(k, ";", 2)[0]))
		if mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "*/*" {
			if media, ok := m[k].(map[string]any); ok {
				if s, ok := media["schema"]; ok {
					return s, true
				}
			}
		}
	}
	return nil, false
}

// operations lists the operations to offer: every GET operation when include is
// empty, otherwise exactly the operationIds (or "METHOD /path") in include, which
// may name any method. Returned in the document's order of paths, then in method
// order.
func (d *openAPIDoc) operations(include []string) ([]*restOp, error) {
	paths := d.root["paths"].(map[string]any)
	want := map[string]bool{}
	for _, n := range include {
		want[n] = true
	}
	found := map[string]bool{}
	var ops []*restOp
	var errs []string
	// The document's order, then (if it could not be read) the rest sorted.
	var order []string
	seen := map[string]bool{}
	for _, p := range append(append([]string(nil), d.order...), sortedKeys(paths)...) {
		if _, ok := paths[p]; ok && !seen[p] {
			seen[p] = true
			order = append(order, p)
		}
	}
	for _, path := range order {
		item, err := d.deref(paths[path])
		if err != nil {
			errs = append(errs, fmt.Sprintf("paths[%q]: %v", path, err))
			continue
		}
		for _, method := range methodsInOrder {
			raw, ok := item[method]
			if !ok {
				continue
			}
			opm, ok := raw.(map[string]any)
			if !ok {
				errs = append(errs, fmt.Sprintf("paths[%q].%s: must be an object", path, method))
				continue
			}
			id, _ := opm["operationId"].(string)
			key := strings.ToUpper(method) + " " + path
			switch {
			case len(want) == 0:
				if method != "get" {
					continue
				}
			case want[id] && id != "":
				found[id] = true
			case want[key]:
				found[key] = true
			default:
				continue
			}
			op, err := d.operation(path, method, id, item, opm)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s (%s): %v", key, firstNonEmpty(id, "no operationId"), err))
				continue
			}
			ops = append(ops, op)
		}
	}
	for _, n := range include {
		if !found[n] {
			errs = append(errs, fmt.Sprintf("operation %q is not in the document (name an operationId or \"METHOD /path\")", n))
		}
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	nameOps(ops)
	return ops, nil
}

// nameOps gives each operation its tool name: its operationId (or method and path)
// made valid; a name two operations would share gets a hash of the original.
func nameOps(ops []*restOp) {
	count := map[string]int{}
	for _, op := range ops {
		op.Name = mcpToolName(op.ID)
		count[op.Name]++
	}
	for _, op := range ops {
		if count[op.Name] > 1 {
			sum := sha256.Sum256([]byte(op.Method + " " + op.Path + " " + op.ID))
			base := op.Name
			if len(base) > 55 {
				base = base[:55]
			}
			op.Name = base + "_" + hex.EncodeToString(sum[:4])
		}
	}
}

// operation converts one operation.
func (d *openAPIDoc) operation(path, method, id string, item, opm map[string]any) (*restOp, error) {
	d.nodes = 0
	op := &restOp{ID: id, Method: strings.ToUpper(method), Path: path}
	if op.ID == "" {
		op.ID = method + strings.NewReplacer("/", "_", "{", "", "}", "").Replace(path)
	}
	summary, _ := opm["summary"].(string)
	desc, _ := opm["description"].(string)
	// The summary is the title; the description says the rest (the summary when
	// there is nothing else).
	op.Title = strings.TrimSpace(summary)
	op.Description = firstNonEmpty(strings.TrimSpace(desc), op.Title)
	if op.Description == "" {
		op.Description = op.Method + " " + path
	}
	// Path-level parameters, overridden by the operation's own (same name and in).
	type pkey struct{ name, in string }
	byKey := map[pkey]map[string]any{}
	var order []pkey
	for _, src := range []any{item["parameters"], opm["parameters"]} {
		list, _ := src.([]any)
		for i, raw := range list {
			p, err := d.deref(raw)
			if err != nil {
				return nil, fmt.Errorf("parameters[%d]: %v", i, err)
			}
			name, _ := p["name"].(string)
			in, _ := p["in"].(string)
			if name == "" || in == "" {
				return nil, fmt.Errorf("parameters[%d]: needs name and in", i)
			}
			k := pkey{name, in}
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
			}
			byKey[k] = p
		}
	}
	args := map[string]bool{}
	for _, k := range order {
		p := byKey[k]
		if k.in == "cookie" {
			continue // cookies are the backend's credentials, never the model's
		}
		if k.in != "path" && k.in != "query" && k.in != "header" {
			return nil, fmt.Errorf("parameter %q: unknown location %q", k.name, k.in)
		}
		rp := &restParam{Name: k.name, In: k.in, Arg: k.name}
		if a, ok := p["x-mcp-argument"].(string); ok && a != "" {
			rp.Arg = a
		}
		rp.Required, _ = p["required"].(bool)
		if k.in == "path" {
			rp.Required = true
		}
		rp.Desc, _ = p["description"].(string)
		var raw any = map[string]any{"type": "string"}
		if s, ok := p["schema"]; ok {
			raw = s
		} else if s, ok := jsonMediaSchema(p["content"]); ok {
			raw = s
		}
		s, err := d.schema(raw, nil)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %v", k.name, err)
		}
		sm, ok := s.(map[string]any)
		if !ok {
			sm = map[string]any{}
		}
		rp.Schema = sm
		if args[rp.Arg] {
			// The same name in two places (a path id and a query id): keep them apart.
			rp.Arg = k.in + "_" + rp.Arg
		}
		args[rp.Arg] = true
		op.Params = append(op.Params, rp)
	}
	if rb, ok := opm["requestBody"]; ok && op.Method != "GET" {
		body, err := d.deref(rb)
		if err != nil {
			return nil, fmt.Errorf("requestBody: %v", err)
		}
		if raw, ok := jsonMediaSchema(body["content"]); ok {
			s, err := d.schema(raw, nil)
			if err != nil {
				return nil, fmt.Errorf("requestBody: %v", err)
			}
			if sm, ok := s.(map[string]any); ok {
				op.Body = sm
			} else {
				op.Body = map[string]any{}
			}
			op.BodyReq, _ = body["required"].(bool)
		}
	}
	if resps, ok := opm["responses"].(map[string]any); ok {
		for _, code := range []string{"200", "2XX", "2xx"} {
			raw, ok := resps[code]
			if !ok {
				continue
			}
			r, err := d.deref(raw)
			if err != nil {
				return nil, fmt.Errorf("responses.%s: %v", code, err)
			}
			if raw, ok := jsonMediaSchema(r["content"]); ok {
				s, err := d.schema(raw, nil)
				if err != nil {
					return nil, fmt.Errorf("responses.%s: %v", code, err)
				}
				op.Output, op.Wrapped = outputSchema(s)
			}
			break
		}
	}
	return op, nil
}

// outputSchema turns a response schema into a tool's output schema: an object schema
// as it is; anything else (an array, say) under "items" of an object, which is how the
// bridge wraps such a response. wrapped reports the latter; nil means no usable schema.
func outputSchema(s any) (out map[string]any, wrapped bool) {
	m, ok := s.(map[string]any)
	if !ok {
		return nil, false
	}
	t := m["type"]
	_, hasProps := m["properties"]
	if t == "object" || (t == nil && hasProps) {
		c := make(map[string]any, len(m)+1)
		for k, v := range m {
			c[k] = v
		}
		c["type"] = "object"
		return c, false
	}
	if t == nil && len(m) == 0 {
		return nil, false
	}
	return map[string]any{"type": "object", "properties": map[string]any{"items": m}, "required": []any{"items"}}, true
}

// inputSchema builds the tool's input schema from its parameters (leaving out those
// in skip, by lower-case header name) and body.
func (op *restOp) inputSchema(skipHeader map[string]bool) map[string]any {
	props := map[string]any{}
	var req []any
	for _, p := range op.Params {
		if p.In == "header" && skipHeader[strings.ToLower(p.Name)] {
			continue
		}
		s := make(map[string]any, len(p.Schema)+1)
		for k, v := range p.Schema {
			s[k] = v
		}
		if p.Desc != "" {
			if _, ok := s["description"]; !ok {
				s["description"] = p.Desc
			}
		}
		props[p.Arg] = s
		if p.Required {
			req = append(req, p.Arg)
		}
	}
	if op.Body != nil {
		props["body"] = op.Body
		if op.BodyReq {
			req = append(req, "body")
		}
	}
	sort.Slice(req, func(i, j int) bool { return req[i].(string) < req[j].(string) })
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(req) > 0 {
		out["required"] = req
	}
	return out
}
