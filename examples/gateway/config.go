package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"
	"time"
)

// Config is the gateway's configuration file.
type Config struct {
	// Title names the gateway on its pages ("wiremcp gateway" when empty).
	Title string `json:"title,omitempty"`
	// All serves every enabled server's tools, resources and prompts at /mcp/all.
	All bool `json:"all,omitempty"`
	// CORS lists the browser origins allowed to call the MCP endpoints from other sites.
	CORS *CORSConfig `json:"cors,omitempty"`
	// Servers maps a server name (the {server} of /mcp/{server}) to its definition.
	Servers map[string]*ServerConfig `json:"servers"`

	dir string // directory of the config file, for relative paths
}

// CORSConfig is the CORS allow-list.
type CORSConfig struct {
	AllowedOrigins []string `json:"allowedOrigins"`
}

// ServerConfig defines one server. It has one or more parts: an upstream MCP server
// (MCP), a command run as a tool (Command), declared command tools (Tools), static
// resources and templated prompts.
type ServerConfig struct {
	Description string                     `json:"description,omitempty"`
	Enabled     *bool                      `json:"enabled,omitempty"`
	MCP         *MCPConfig                 `json:"mcp,omitempty"`
	Command     *CommandConfig             `json:"command,omitempty"`
	Tools       map[string]*ToolConfig     `json:"tools,omitempty"`
	Resources   map[string]*ResourceConfig `json:"resources,omitempty"`
	Prompts     map[string]*PromptConfig   `json:"prompts,omitempty"`
	// REST is an HTTP API whose operations are offered as tools (restconfig.go).
	REST *RESTConfig `json:"rest,omitempty"`
	// AllowTools, when set, keeps only these tools (by their upstream name).
	AllowTools []string `json:"allowTools,omitempty"`
	// DenyTools hides these tools (by their upstream name).
	DenyTools []string `json:"denyTools,omitempty"`
	// Rename renames or re-describes tools, keyed by their upstream name.
	Rename map[string]*RenameConfig `json:"rename,omitempty"`
	// Timeout bounds every tool call, resource read and prompt get ("60s" when empty).
	Timeout string `json:"timeout,omitempty"`
	// Env is added to the environment of every process the server starts.
	Env map[string]string `json:"env,omitempty"`
	// Root is the directory file resources must stay under (the config file's
	// directory when empty).
	Root string `json:"root,omitempty"`
}

// MCPConfig is an upstream MCP server: a command spoken to over stdio, or a URL.
type MCPConfig struct {
	Command []string          `json:"command,omitempty"`
	Dir     string            `json:"dir,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Sessions is "per-client" (the default: each client session gets its own
	// upstream session, a child process of its own for a command, started with the
	// session's first forwarded request and ended with the session) or "shared" (one
	// upstream session serves every client: only for upstreams known to keep no
	// per-session state). 2026-07-28 clients, which have no sessions, always use the
	// shared one.
	Sessions string `json:"sessions,omitempty"`
	// MaxSessions caps the client sessions that have an upstream session of their
	// own (per-client mode); a request of a client beyond it is refused with an
	// error until one of them ends. Zero means defaultMaxClientUpstreams.
	MaxSessions int `json:"maxSessions,omitempty"`
	// Start is "boot" (default: start and discover at once) or "lazy" (on the first
	// client).
	Start string `json:"start,omitempty"`
	// ProtocolVersion is the revision asked of the upstream ("2025-11-25" when empty).
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

// CommandConfig runs a program for a tool call.
type CommandConfig struct {
	// Argv is the program and its arguments; each may hold text/template actions
	// over the tool's validated arguments ({{.path}}).
	Argv []string `json:"argv"`
	// Stdin is "none" (default) or "json": the arguments as one JSON object.
	Stdin   string            `json:"stdin,omitempty"`
	Timeout string            `json:"timeout,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Dir     string            `json:"dir,omitempty"`
}

// ToolConfig declares a tool backed by a command.
type ToolConfig struct {
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Command     *CommandConfig  `json:"command"`
}

// ResourceConfig is a static resource: Text, a File under the server's root, or a URL.
type ResourceConfig struct {
	URI         string `json:"uri"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Text        string `json:"text,omitempty"`
	File        string `json:"file,omitempty"`
	URL         string `json:"url,omitempty"`
}

// PromptConfig is a templated prompt.
type PromptConfig struct {
	Title       string               `json:"title,omitempty"`
	Description string               `json:"description,omitempty"`
	Arguments   []*PromptArgConfig   `json:"arguments,omitempty"`
	Messages    []*PromptMessageConf `json:"messages"`
}

// PromptArgConfig is one argument of a prompt.
type PromptArgConfig struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptMessageConf is one message of a prompt; Text may hold {{.arg}} actions.
type PromptMessageConf struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// RenameConfig renames or re-describes one tool.
type RenameConfig struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
}

// enabled reports whether the server is on (the default).
func (s *ServerConfig) enabled() bool { return s.Enabled == nil || *s.Enabled }

// timeout returns the server's call timeout.
func (s *ServerConfig) timeout() time.Duration {
	if d, err := time.ParseDuration(s.Timeout); err == nil && d > 0 {
		return d
	}
	return 60 * time.Second
}

// fingerprint identifies a server's definition together with the values of the
// environment variables it uses, so that a reload restarts exactly the servers whose
// definition or environment changed.
func (s *ServerConfig) fingerprint(dir string) string {
	b, _ := json.Marshal(s)
	h := sha256.New()
	h.Write(b)
	h.Write([]byte{0})
	h.Write([]byte(dir))
	for _, name := range envRefs(string(b)) {
		v, ok := os.LookupEnv(name)
		fmt.Fprintf(h, "\x00%s=%t:%s", name, ok, v)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// ConfigError is one problem of a configuration, at a JSON path.
type ConfigError struct {
	Path string
	Msg  string
}

func (e ConfigError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// ConfigErrors is every problem found in a configuration.
type ConfigErrors []ConfigError

func (es ConfigErrors) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d configuration error(s):", len(es))
	for _, e := range es {
		b.WriteString("\n  ")
		b.WriteString(e.Error())
	}
	return b.String()
}

var (
	serverNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	toolNameRE   = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,128}$`)
	envRefRE     = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
)

// reservedNames cannot be server names: they are routes of their own.
var reservedNames = map[string]bool{"meta": true, "all": true}

// LoadConfigFile reads and validates a configuration file.
func LoadConfigFile(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(data, filepath.Dir(abs))
}

// ParseConfig validates data and returns the configuration, or ConfigErrors listing
// every problem with its JSON path. dir resolves relative paths.
func ParseConfig(data []byte, dir string) (*Config, error) {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, ConfigErrors{{Msg: "not valid JSON: " + err.Error()}}
	}
	if dec.More() {
		return nil, ConfigErrors{{Msg: "not valid JSON: more than one value"}}
	}
	v := &validator{}
	v.config(raw)
	if len(v.errs) > 0 {
		return nil, v.errs
	}
	var c Config
	if err := json.Unmarshal(data, &c); err != nil {
		// The structural pass accepted it, so this is a bug of the validator.
		return nil, ConfigErrors{{Msg: "internal: " + err.Error()}}
	}
	if c.Servers == nil {
		c.Servers = map[string]*ServerConfig{}
	}
	c.dir = dir
	v.semantic(&c)
	if len(v.errs) > 0 {
		return nil, v.errs
	}
	return &c, nil
}

type validator struct{ errs ConfigErrors }

func (v *validator) add(path, format string, args ...any) {
	v.errs = append(v.errs, ConfigError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	if serverNameRE.MatchString(key) {
		return path + "." + key
	}
	b, _ := json.Marshal(key)
	return path + "[" + string(b) + "]"
}

// field is the checker of one member value.
type field func(path string, val any)

// object checks that val is an object whose members are all known.
func (v *validator) object(path string, val any, fields map[string]field, required ...string) bool {
	m, ok := val.(map[string]any)
	if !ok {
		v.add(path, "must be an object, not %s", kind(val))
		return false
	}
	keys := sortedKeys(m)
	for _, k := range keys {
		f, ok := fields[k]
		if !ok {
			known := sortedKeys(fields)
			v.add(join(path, k), "unknown member (known: %s)", strings.Join(known, ", "))
			continue
		}
		f(join(path, k), m[k])
	}
	for _, r := range required {
		if _, ok := m[r]; !ok {
			v.add(join(path, r), "is required")
		}
	}
	return true
}

func sortedKeys[T any](m map[string]T) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func kind(val any) string {
	switch val.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", val)
}

func (v *validator) str(path string, val any) {
	if _, ok := val.(string); !ok {
		v.add(path, "must be a string, not %s", kind(val))
	}
}

func (v *validator) boolean(path string, val any) {
	if _, ok := val.(bool); !ok {
		v.add(path, "must be a boolean, not %s", kind(val))
	}
}

func (v *validator) strList(nonEmpty bool) field {
	return func(path string, val any) {
		a, ok := val.([]any)
		if !ok {
			v.add(path, "must be an array of strings, not %s", kind(val))
			return
		}
		if nonEmpty && len(a) == 0 {
			v.add(path, "must not be empty")
		}
		for i, e := range a {
			p := fmt.Sprintf("%s[%d]", path, i)
			if s, ok := e.(string); !ok {
				v.add(p, "must be a string, not %s", kind(e))
			} else if nonEmpty && i == 0 && s == "" {
				v.add(p, "must not be empty")
			}
		}
	}
}

func (v *validator) strMap(path string, val any) {
	m, ok := val.(map[string]any)
	if !ok {
		v.add(path, "must be an object of strings, not %s", kind(val))
		return
	}
	for _, k := range sortedKeys(m) {
		v.str(join(path, k), m[k])
	}
}

func (v *validator) duration(path string, val any) {
	s, ok := val.(string)
	if !ok {
		v.add(path, "must be a duration string such as \"30s\", not %s", kind(val))
		return
	}
	if d, err := time.ParseDuration(s); err != nil || d <= 0 {
		v.add(path, "must be a positive duration such as \"30s\" (got %q)", s)
	}
}

func (v *validator) oneOf(choices ...string) field {
	return func(path string, val any) {
		s, ok := val.(string)
		if !ok {
			v.add(path, "must be a string, not %s", kind(val))
			return
		}
		for _, c := range choices {
			if s == c {
				return
			}
		}
		v.add(path, "must be one of %s (got %q)", strings.Join(choices, ", "), s)
	}
}

// mapOf checks an object whose members all pass each.
func (v *validator) mapOf(each field) field {
	return func(path string, val any) {
		m, ok := val.(map[string]any)
		if !ok {
			v.add(path, "must be an object, not %s", kind(val))
			return
		}
		for _, k := range sortedKeys(m) {
			each(join(path, k), m[k])
		}
	}
}

func (v *validator) config(raw any) {
	v.object("", raw, map[string]field{
		"title": v.str,
		"all":   v.boolean,
		"cors": func(p string, val any) {
			v.object(p, val, map[string]field{"allowedOrigins": v.strList(false)}, "allowedOrigins")
		},
		"servers": v.mapOf(v.server),
	}, "servers")
}

func (v *validator) server(path string, val any) {
	v.object(path, val, map[string]field{
		"description": v.str,
		"enabled":     v.boolean,
		"mcp":         v.mcp,
		"command":     v.command,
		"rest":        v.rest,
		"tools": v.mapOf(func(p string, val any) {
			v.object(p, val, map[string]field{
				"title":       v.str,
				"description": v.str,
				"inputSchema": func(p string, val any) {
					if m, ok := val.(map[string]any); !ok {
						v.add(p, "must be a JSON Schema object, not %s", kind(val))
					} else if m["type"] != "object" {
						v.add(join(p, "type"), `must be "object"`)
					}
				},
				"command": v.command,
			}, "command")
		}),
		"resources": v.mapOf(func(p string, val any) {
			v.object(p, val, map[string]field{
				"uri": v.str, "name": v.str, "description": v.str, "mimeType": v.str,
				"text": v.str, "file": v.str, "url": v.str,
			}, "uri")
		}),
		"prompts": v.mapOf(func(p string, val any) {
			v.object(p, val, map[string]field{
				"title": v.str, "description": v.str,
				"arguments": v.arrayOf(func(p string, val any) {
					v.object(p, val, map[string]field{"name": v.str, "description": v.str, "required": v.boolean}, "name")
				}),
				"messages": v.arrayOf(func(p string, val any) {
					v.object(p, val, map[string]field{"role": v.oneOf("user", "assistant"), "text": v.str}, "role", "text")
				}),
			}, "messages")
		}),
		"allowTools": v.strList(false),
		"denyTools":  v.strList(false),
		"rename": v.mapOf(func(p string, val any) {
			v.object(p, val, map[string]field{"name": v.str, "description": v.str})
		}),
		"timeout": v.duration,
		"env":     v.strMap,
		"root":    v.str,
	})
}

func (v *validator) arrayOf(each field) field {
	return func(path string, val any) {
		a, ok := val.([]any)
		if !ok {
			v.add(path, "must be an array, not %s", kind(val))
			return
		}
		for i, e := range a {
			each(fmt.Sprintf("%s[%d]", path, i), e)
		}
	}
}

func (v *validator) mcp(path string, val any) {
	v.object(path, val, map[string]field{
		"command":         v.strList(true),
		"dir":             v.str,
		"env":             v.strMap,
		"url":             v.str,
		"headers":         v.strMap,
		"sessions":        v.oneOf("shared", "per-client"),
		"maxSessions":     v.intRange(1, maxMaxClientUpstreams),
		"start":           v.oneOf("boot", "lazy"),
		"protocolVersion": v.oneOf("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
	})
}

func (v *validator) command(path string, val any) {
	v.object(path, val, map[string]field{
		"argv":    v.strList(true),
		"stdin":   v.oneOf("none", "json"),
		"timeout": v.duration,
		"env":     v.strMap,
		"dir":     v.str,
	}, "argv")
}

// semantic checks what the structural pass cannot: names, exclusive members,
// templates and environment references.
func (v *validator) semantic(c *Config) {
	if c.CORS != nil {
		for i, o := range c.CORS.AllowedOrigins {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
				v.add(fmt.Sprintf("cors.allowedOrigins[%d]", i), "must be an origin such as https://app.example.com (got %q)", o)
			}
		}
	}
	for _, name := range sortedKeys(c.Servers) {
		s := c.Servers[name]
		p := join("servers", name)
		if s == nil {
			v.add(p, "must be an object, not null")
			continue
		}
		if !serverNameRE.MatchString(name) {
			v.add(p, "server names are 1-64 characters of A-Z a-z 0-9 _ -")
		} else if reservedNames[name] {
			v.add(p, "%q is reserved (it is a route of its own)", name)
		}
		if s.MCP == nil && s.Command == nil && s.REST == nil && len(s.Tools) == 0 && len(s.Resources) == 0 && len(s.Prompts) == 0 {
			v.add(p, "defines nothing: give it mcp, command, rest, tools, resources or prompts")
		}
		if s.REST != nil {
			v.restSem(p+".rest", s.REST, c.dir)
		}
		if s.MCP != nil {
			mp := p + ".mcp"
			switch {
			case len(s.MCP.Command) > 0 && s.MCP.URL != "":
				v.add(mp, "has both command and url; give one")
			case len(s.MCP.Command) == 0 && s.MCP.URL == "":
				v.add(mp, "needs command or url")
			}
			if s.MCP.URL != "" {
				u, err := url.Parse(s.MCP.URL)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					if !strings.Contains(s.MCP.URL, "${") {
						v.add(mp+".url", "must be an http or https URL")
					}
				}
			}
			if len(s.MCP.Command) > 0 && len(s.MCP.Headers) > 0 {
				v.add(mp+".headers", "only apply to a url")
			}
			v.envRefs(mp+".url", s.MCP.URL)
			v.envMap(mp+".env", s.MCP.Env)
			v.envMap(mp+".headers", s.MCP.Headers)
			for i, a := range s.MCP.Command {
				v.envRefs(fmt.Sprintf("%s.command[%d]", mp, i), a)
			}
		}
		if s.MCP != nil && s.Command != nil {
			v.add(p, "has both mcp and command; give one (add command tools under tools)")
		}
		if s.Command != nil {
			v.commandSem(p+".command", s.Command, nil)
		}
		for _, tn := range sortedKeys(s.Tools) {
			t := s.Tools[tn]
			tp := join(p+".tools", tn)
			if t == nil {
				v.add(tp, "must be an object, not null")
				continue
			}
			if !toolNameRE.MatchString(tn) {
				v.add(tp, "tool names are 1-128 characters of A-Z a-z 0-9 _ - .")
			}
			var props map[string]any
			if len(t.InputSchema) > 0 {
				var sch struct {
					Properties map[string]any `json:"properties"`
				}
				_ = json.Unmarshal(t.InputSchema, &sch)
				props = sch.Properties
			}
			if t.Command != nil {
				v.commandSem(tp+".command", t.Command, props)
			}
		}
		for _, rn := range sortedKeys(s.Resources) {
			r := s.Resources[rn]
			rp := join(p+".resources", rn)
			if r == nil {
				v.add(rp, "must be an object, not null")
				continue
			}
			if u, err := url.Parse(r.URI); err != nil || u.Scheme == "" {
				v.add(rp+".uri", "must be an absolute URI (got %q)", r.URI)
			}
			n := 0
			for _, x := range []string{r.Text, r.File, r.URL} {
				if x != "" {
					n++
				}
			}
			if n != 1 {
				v.add(rp, "needs exactly one of text, file or url")
			}
			if r.File != "" && filepath.IsAbs(r.File) && s.Root == "" {
				v.add(rp+".file", "an absolute path needs the server's root set to a directory holding it")
			}
			if r.URL != "" {
				if u, err := url.Parse(r.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
					v.add(rp+".url", "must be an http or https URL")
				}
			}
		}
		for _, pn := range sortedKeys(s.Prompts) {
			pr := s.Prompts[pn]
			pp := join(p+".prompts", pn)
			if pr == nil {
				v.add(pp, "must be an object, not null")
				continue
			}
			args := map[string]any{}
			for i, a := range pr.Arguments {
				if a.Name == "" {
					v.add(fmt.Sprintf("%s.arguments[%d].name", pp, i), "must not be empty")
				}
				args[a.Name] = true
			}
			if len(pr.Messages) == 0 {
				v.add(pp+".messages", "must not be empty")
			}
			for i, m := range pr.Messages {
				v.template(fmt.Sprintf("%s.messages[%d].text", pp, i), m.Text, args)
			}
		}
		for _, tn := range sortedKeys(s.Rename) {
			r := s.Rename[tn]
			if r != nil && r.Name != "" && !toolNameRE.MatchString(r.Name) {
				v.add(join(p+".rename", tn)+".name", "tool names are 1-128 characters of A-Z a-z 0-9 _ - .")
			}
		}
		v.envMap(p+".env", s.Env)
		if s.Root != "" {
			root := s.Root
			if !filepath.IsAbs(root) {
				root = filepath.Join(c.dir, root)
			}
			if st, err := os.Stat(root); err != nil || !st.IsDir() {
				v.add(p+".root", "must be an existing directory")
			}
		}
	}
}

func (v *validator) commandSem(path string, c *CommandConfig, props map[string]any) {
	for i, a := range c.Argv {
		p := fmt.Sprintf("%s.argv[%d]", path, i)
		if i == 0 && strings.Contains(a, "{{") {
			v.add(p, "the program itself cannot be templated")
			continue
		}
		v.template(p, a, props)
		v.envRefs(p, a)
	}
	v.envMap(path+".env", c.Env)
}

// template checks that text parses and names only known arguments (props nil: none).
func (v *validator) template(path, text string, props map[string]any) {
	if !strings.Contains(text, "{{") {
		return
	}
	t, err := template.New("").Option("missingkey=error").Parse(text)
	if err != nil {
		v.add(path, "bad template: %v", err)
		return
	}
	for _, name := range templateFields(t) {
		if _, ok := props[name]; !ok {
			v.add(path, "template uses {{.%s}} but the input declares no property %q", name, name)
		}
	}
}

// envMap checks the ${NAME} references of a map's values.
func (v *validator) envMap(path string, m map[string]string) {
	for _, k := range sortedKeys(m) {
		v.envRefs(join(path, k), m[k])
	}
}

// envRefs checks that every ${NAME} in s is set. The message names the variable,
// never its value.
func (v *validator) envRefs(path, s string) {
	for _, name := range envRefs(s) {
		if _, ok := os.LookupEnv(name); !ok {
			v.add(path, "environment variable %s is not set", name)
		}
	}
}

// envRefs returns the names of the ${NAME} references in s.
func envRefs(s string) []string {
	var names []string
	for _, m := range envRefRE.FindAllStringSubmatch(s, -1) {
		names = append(names, m[1])
	}
	return names
}

// expandEnv replaces every ${NAME} in s with the gateway's environment variable NAME.
// Only $-brace forms are expanded, so a literal $ elsewhere stays as written.
func expandEnv(s string) string {
	return envRefRE.ReplaceAllStringFunc(s, func(ref string) string {
		return os.Getenv(ref[2 : len(ref)-1])
	})
}

// processEnv returns the environment of a child: the gateway's own, then the server's
// Env, then the part's own, with ${NAME} expanded.
func processEnv(layers ...map[string]string) []string {
	env := os.Environ()
	for _, l := range layers {
		for _, k := range sortedKeys(l) {
			env = append(env, k+"="+expandEnv(l[k]))
		}
	}
	return env
}
