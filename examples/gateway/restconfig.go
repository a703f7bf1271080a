package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// RESTConfig is an HTTP API whose operations the gateway offers as tools: from an
// OpenAPI 3.0/3.1 JSON document, or declared in Tools.
type RESTConfig struct {
	// BaseURL is where the API is: operation paths are appended to it.
	BaseURL string `json:"baseUrl"`
	// OpenAPI is the OpenAPI document: a file (relative to the config file's folder)
	// or an http(s) URL.
	OpenAPI string `json:"openapi,omitempty"`
	// Operations, when set, offers exactly these operations of the document (by
	// operationId, or "METHOD /path"); by default every GET operation.
	Operations []string `json:"operations,omitempty"`
	// Tools declares tools by hand, keyed by tool name.
	Tools map[string]*RESTToolConfig `json:"tools,omitempty"`
	// Writable allows operations other than GET (each still named in Operations or
	// declared in Tools). Without it the bridge is read-only.
	Writable bool `json:"writable,omitempty"`
	// Headers are sent with every request (credentials, scoping); ${NAME} expanded.
	// A header set here is never taken from a client or the model.
	Headers map[string]string `json:"headers,omitempty"`
	// ForwardHeaders names headers copied from the client's MCP request (when
	// present) to the API. Authorization, Cookie and Proxy-Authorization cannot be
	// named.
	ForwardHeaders []string `json:"forwardHeaders,omitempty"`
	// Timeout bounds each HTTP request ("10s" when empty).
	Timeout string `json:"timeout,omitempty"`
	// Retries is how many times an idempotent request is retried after a 502, 503,
	// 504 or a connection error (2 when absent, at most 5).
	Retries *int `json:"retries,omitempty"`
	// MaxConcurrent caps the requests in flight to the API (8 when zero); callers
	// beyond it wait, bounded by their call's deadline.
	MaxConcurrent int `json:"maxConcurrent,omitempty"`
	// MaxResponseBytes is the byte budget of a tool result (65536 when zero): a
	// larger response is cut, with a marker saying so.
	MaxResponseBytes int `json:"maxResponseBytes,omitempty"`
	// OutputSchemas, when false, declares no output schemas (for an API whose
	// answers do not follow its document: a declared schema is enforced, and an
	// answer that breaks it fails the call). Default true.
	OutputSchemas *bool `json:"outputSchemas,omitempty"`
}

// RESTToolConfig declares one tool over an HTTP API.
type RESTToolConfig struct {
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Method is the HTTP method ("GET" when empty; anything else needs writable).
	Method string `json:"method,omitempty"`
	// Path is a template appended to baseUrl: {name} is a path parameter.
	Path       string             `json:"path"`
	Parameters []*RESTParamConfig `json:"parameters,omitempty"`
	// Body is the JSON Schema of a JSON request body, given as the "body" argument.
	Body json.RawMessage `json:"body,omitempty"`
	// OutputSchema is the JSON Schema of the 200 response.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// RESTParamConfig is one parameter of a declared tool.
type RESTParamConfig struct {
	Name string `json:"name"`
	// In is path, query or header.
	In string `json:"in"`
	// Argument is the tool argument's name (Name when empty).
	Argument    string          `json:"argument,omitempty"`
	Required    bool            `json:"required,omitempty"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
}

const (
	defaultRESTTimeout  = 10 * time.Second
	defaultRESTRetries  = 2
	maxRESTRetries      = 5
	defaultRESTInFlight = 8
	defaultRESTBudget   = 65536
)

func (c *RESTConfig) timeout() time.Duration {
	if d, err := time.ParseDuration(c.Timeout); err == nil && d > 0 {
		return d
	}
	return defaultRESTTimeout
}

func (c *RESTConfig) retries() int {
	if c.Retries == nil {
		return defaultRESTRetries
	}
	return *c.Retries
}

func (c *RESTConfig) maxConcurrent() int {
	if c.MaxConcurrent > 0 {
		return c.MaxConcurrent
	}
	return defaultRESTInFlight
}

func (c *RESTConfig) budget() int {
	if c.MaxResponseBytes > 0 {
		return c.MaxResponseBytes
	}
	return defaultRESTBudget
}

// neverForwarded are the client's credentials: no configuration may copy them.
var neverForwarded = map[string]bool{"authorization": true, "cookie": true, "proxy-authorization": true}

// hopHeaders belong to one HTTP connection or to a message's framing, not to the
// request: they cannot be forwarded.
var hopHeaders = map[string]bool{"connection": true, "keep-alive": true, "proxy-connection": true, "te": true, "trailer": true,
	"transfer-encoding": true, "upgrade": true, "host": true, "content-length": true, "content-type": true, "accept": true}

func (v *validator) intRange(lo, hi int) field {
	return func(path string, val any) {
		n, ok := val.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil {
			v.add(path, "must be an integer, not %s", kind(val))
			return
		}
		if i < int64(lo) || i > int64(hi) {
			v.add(path, "must be between %d and %d (got %d)", lo, hi, i)
		}
	}
}

func (v *validator) schemaObject(path string, val any) {
	if _, ok := val.(map[string]any); !ok {
		v.add(path, "must be a JSON Schema object, not %s", kind(val))
	}
}

// rest is the structural check of a server's "rest" member.
func (v *validator) rest(path string, val any) {
	v.object(path, val, map[string]field{
		"baseUrl":    v.str,
		"openapi":    v.str,
		"operations": v.strList(false),
		"tools": v.mapOf(func(p string, val any) {
			v.object(p, val, map[string]field{
				"title": v.str, "description": v.str,
				"method": v.oneOf("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"),
				"path":   v.str,
				"parameters": v.arrayOf(func(p string, val any) {
					v.object(p, val, map[string]field{
						"name": v.str, "in": v.oneOf("path", "query", "header"), "argument": v.str,
						"required": v.boolean, "description": v.str, "schema": v.schemaObject,
					}, "name", "in")
				}),
				"body":         v.schemaObject,
				"outputSchema": v.schemaObject,
			}, "path")
		}),
		"writable":         v.boolean,
		"headers":          v.strMap,
		"forwardHeaders":   v.strList(false),
		"timeout":          v.duration,
		"retries":          v.intRange(0, maxRESTRetries),
		"maxConcurrent":    v.intRange(1, 1024),
		"maxResponseBytes": v.intRange(256, 64<<20),
		"outputSchemas":    v.boolean,
	}, "baseUrl")
}

// restSem checks a "rest" member beyond its structure; a document given as a file
// is read and imported now, so that its problems are configuration errors.
func (v *validator) restSem(p string, c *RESTConfig, dir string) {
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		if !strings.Contains(c.BaseURL, "${") {
			v.add(p+".baseUrl", "must be an http or https URL (got %q)", c.BaseURL)
		}
	}
	v.envRefs(p+".baseUrl", c.BaseURL)
	v.envMap(p+".headers", c.Headers)
	for _, k := range sortedKeys(c.Headers) {
		if !validHeaderName(k) {
			v.add(join(p+".headers", k), "is not a valid header name")
		}
	}
	for i, h := range c.ForwardHeaders {
		hp := fmt.Sprintf("%s.forwardHeaders[%d]", p, i)
		switch {
		case !validHeaderName(h):
			v.add(hp, "is not a valid header name")
		case neverForwarded[strings.ToLower(h)]:
			v.add(hp, "%s is a client credential and is never forwarded; set the backend's credentials under headers", h)
		case hopHeaders[strings.ToLower(h)]:
			v.add(hp, "%s belongs to the client's own connection or message and cannot be forwarded", h)
		}
	}
	if (c.OpenAPI == "") == (len(c.Tools) == 0) {
		v.add(p, "needs exactly one of openapi or tools")
	}
	if len(c.Operations) > 0 && c.OpenAPI == "" {
		v.add(p+".operations", "only applies with openapi")
	}
	if c.OpenAPI != "" && !isURL(c.OpenAPI) {
		file := c.OpenAPI
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			v.add(p+".openapi", "cannot read the document: %v", err)
		} else if _, err := restOps(c, data); err != nil {
			v.add(p+".openapi", "%v", err)
		}
	}
	if len(c.Tools) > 0 {
		if _, err := restOps(c, nil); err != nil {
			v.add(p+".tools", "%v", err)
		}
	}
}

func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

func validHeaderName(h string) bool {
	if h == "" {
		return false
	}
	for _, c := range h {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", c)) {
			return false
		}
	}
	return true
}

// restOps returns the operations a REST server offers: from the OpenAPI document
// (doc) or from the declared tools. Operations other than GET need writable.
func restOps(c *RESTConfig, doc []byte) ([]*restOp, error) {
	var ops []*restOp
	if c.OpenAPI != "" {
		d, err := parseOpenAPI(doc)
		if err != nil {
			return nil, err
		}
		if ops, err = d.operations(c.Operations); err != nil {
			return nil, err
		}
	} else {
		var err error
		if ops, err = declaredOps(c.Tools); err != nil {
			return nil, err
		}
	}
	var errs []string
	for _, op := range ops {
		if op.Method != http.MethodGet && !c.Writable {
			errs = append(errs, fmt.Sprintf("%s is %s: a server offers operations other than GET only when marked writable", op.ID, op.Method))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return ops, nil
}

// declaredOps converts the tools declared in a configuration.
func declaredOps(tools map[string]*RESTToolConfig) ([]*restOp, error) {
	// The declared tools reuse the OpenAPI conversion: each is an operation of a
	// small document of its own, so $refs are not available but everything else is.
	empty := &openAPIDoc{root: map[string]any{}}
	var ops []*restOp
	var errs []string
	for _, name := range sortedKeys(tools) {
		t := tools[name]
		if t == nil {
			continue
		}
		if !toolNameMCP.MatchString(name) {
			errs = append(errs, fmt.Sprintf("%s: tool names are 1-64 characters of A-Z a-z 0-9 _ -", name))
			continue
		}
		if !strings.HasPrefix(t.Path, "/") {
			errs = append(errs, fmt.Sprintf("%s: path must start with /", name))
			continue
		}
		op := &restOp{ID: name, Name: name, Method: firstNonEmpty(t.Method, "GET"), Path: t.Path, Title: t.Title,
			Description: firstNonEmpty(t.Description, firstNonEmpty(t.Method, "GET")+" "+t.Path)}
		seen := map[string]bool{}
		for i, pc := range t.Parameters {
			rp := &restParam{Name: pc.Name, In: pc.In, Arg: firstNonEmpty(pc.Argument, pc.Name), Required: pc.Required || pc.In == "path", Desc: pc.Description}
			var raw any = map[string]any{"type": "string"}
			if len(pc.Schema) > 0 {
				if err := decodeNumbers(pc.Schema, &raw); err != nil {
					errs = append(errs, fmt.Sprintf("%s.parameters[%d].schema: %v", name, i, err))
					continue
				}
			}
			s, err := empty.schema(raw, nil)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s.parameters[%d].schema: %v", name, i, err))
				continue
			}
			rp.Schema, _ = s.(map[string]any)
			if seen[rp.Arg] {
				errs = append(errs, fmt.Sprintf("%s.parameters[%d]: argument %q given twice", name, i, rp.Arg))
			}
			seen[rp.Arg] = true
			op.Params = append(op.Params, rp)
		}
		for _, name2 := range pathVars(t.Path) {
			ok := false
			for _, rp := range op.Params {
				ok = ok || (rp.In == "path" && rp.Name == name2)
			}
			if !ok {
				errs = append(errs, fmt.Sprintf("%s: path uses {%s} but no path parameter declares it", name, name2))
			}
		}
		if len(t.Body) > 0 {
			var raw any
			if err := decodeNumbers(t.Body, &raw); err == nil {
				if s, err := empty.schema(raw, nil); err == nil {
					op.Body, _ = s.(map[string]any)
					op.BodyReq = true
				}
			}
		}
		if len(t.OutputSchema) > 0 {
			var raw any
			if err := decodeNumbers(t.OutputSchema, &raw); err == nil {
				if s, err := empty.schema(raw, nil); err == nil {
					op.Output, op.Wrapped = outputSchema(s)
				}
			}
		}
		ops = append(ops, op)
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return ops, nil
}

// pathVars returns the {name}s of a path template.
func pathVars(path string) []string {
	var out []string
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(path[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, path[i+1:i+j])
		path = path[i+j+1:]
	}
}

func decodeNumbers(data []byte, v *any) error {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.UseNumber()
	return dec.Decode(v)
}
