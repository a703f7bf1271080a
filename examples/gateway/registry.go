package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/wiremcp/wiremcp/mcp"
)

// toolEntry is a tool a part offers, under its own (upstream) name.
type toolEntry struct {
	Tool    *mcp.Tool
	Handler mcp.ToolHandler
}

// resourceEntry is a resource (Resource set) or a resource template (Template set).
type resourceEntry struct {
	Resource *mcp.Resource
	Template *mcp.ResourceTemplate
	Handler  mcp.ResourceHandler
}

func (e *resourceEntry) key() string {
	if e.Template != nil {
		return "template:" + e.Template.URITemplate
	}
	return e.Resource.URI
}

// promptEntry is a prompt a part offers.
type promptEntry struct {
	Prompt  *mcp.Prompt
	Handler mcp.PromptHandler
}

// entries is what one part of a server offers.
type entries struct {
	Tools     []*toolEntry
	Resources []*resourceEntry
	Prompts   []*promptEntry
}

// registry holds what a server's parts offer, applies the server's tool filter and
// renames, and keeps the server's mcp.Server registrations in step (adding, replacing
// and removing only what changed, so clients are told about real changes only).
// Its methods are safe for concurrent use.
type registry struct {
	srv      *mcp.Server
	cfg      *ServerConfig
	errs     *lineRing
	onChange func() // called (without locks held) after a change, for /mcp/all

	mu        sync.Mutex
	parts     map[string]*entries
	order     []string // part ids in registration order
	tools     map[string]*toolEntry
	toolJSON  map[string]string
	toolFrom  map[string]string // final name -> upstream name
	resources map[string]*resourceEntry
	resJSON   map[string]string
	prompts   map[string]*promptEntry
	prJSON    map[string]string
}

func newRegistry(srv *mcp.Server, cfg *ServerConfig, errs *lineRing, onChange func()) *registry {
	return &registry{
		srv: srv, cfg: cfg, errs: errs, onChange: onChange,
		parts: map[string]*entries{},
		tools: map[string]*toolEntry{}, toolJSON: map[string]string{}, toolFrom: map[string]string{},
		resources: map[string]*resourceEntry{}, resJSON: map[string]string{},
		prompts: map[string]*promptEntry{}, prJSON: map[string]string{},
	}
}

// set replaces what part id offers.
func (r *registry) set(id string, e *entries) {
	r.mu.Lock()
	if _, ok := r.parts[id]; !ok {
		r.order = append(r.order, id)
	}
	r.parts[id] = e
	changed := r.apply()
	r.mu.Unlock()
	if changed && r.onChange != nil {
		r.onChange()
	}
}

// touch makes the server tell its clients that a list changed (kind "tools",
// "prompts" or "resources") by registering one of its items again; a list with no
// items stays silent.
func (r *registry) touch(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch kind {
	case "tools":
		for _, name := range sortedKeys(r.tools) {
			_ = addTool(r.srv, r.tools[name])
			return
		}
	case "prompts":
		for _, name := range sortedKeys(r.prompts) {
			r.srv.AddPrompt(r.prompts[name].Prompt, r.prompts[name].Handler)
			return
		}
	case "resources":
		for _, k := range sortedKeys(r.resources) {
			_ = addResource(r.srv, r.resources[k])
			return
		}
	}
}

// allowed reports whether the filter keeps the tool named name.
func (r *registry) allowed(name string) bool {
	if len(r.cfg.AllowTools) > 0 && !slices.Contains(r.cfg.AllowTools, name) {
		return false
	}
	return !slices.Contains(r.cfg.DenyTools, name)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("!%v", err)
	}
	return string(b)
}

// apply brings the mcp.Server in step with the parts. r.mu is held.
func (r *registry) apply() (changed bool) {
	tools := map[string]*toolEntry{}
	var toolOrder []string // in the parts' order, which is the order clients see
	from := map[string]string{}
	res := map[string]*resourceEntry{}
	prompts := map[string]*promptEntry{}
	var promptOrder []string // like tools: in the parts' (the upstream's) order
	for _, id := range r.order {
		e := r.parts[id]
		for _, t := range e.Tools {
			if !r.allowed(t.Tool.Name) {
				continue
			}
			tool := *t.Tool
			if rn := r.cfg.Rename[t.Tool.Name]; rn != nil {
				if rn.Name != "" {
					tool.Name = rn.Name
				}
				if rn.Description != "" {
					tool.Description = rn.Description
				}
			}
			if _, dup := tools[tool.Name]; dup {
				r.errs.Add(fmt.Sprintf("tool %q (from %s) hidden: another part offers the same name", tool.Name, id))
				continue
			}
			tools[tool.Name] = &toolEntry{Tool: &tool, Handler: t.Handler}
			toolOrder = append(toolOrder, tool.Name)
			from[tool.Name] = t.Tool.Name
		}
		for _, x := range e.Resources {
			if _, dup := res[x.key()]; !dup {
				res[x.key()] = x
			}
		}
		for _, p := range e.Prompts {
			if _, dup := prompts[p.Prompt.Name]; !dup {
				prompts[p.Prompt.Name] = p
				promptOrder = append(promptOrder, p.Prompt.Name)
			}
		}
	}
	// Tools.
	var gone []string
	for name := range r.tools {
		if tools[name] == nil {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		r.srv.RemoveTools(gone...)
		for _, n := range gone {
			delete(r.tools, n)
			delete(r.toolJSON, n)
		}
		changed = true
	}
	for _, name := range toolOrder {
		t := tools[name]
		j := mustJSON(t.Tool)
		if r.toolJSON[name] == j {
			r.tools[name] = t
			continue
		}
		if err := addTool(r.srv, t); err != nil {
			r.errs.Add(fmt.Sprintf("tool %q skipped: %v", name, err))
			if r.tools[name] != nil {
				r.srv.RemoveTools(name)
				delete(r.tools, name)
				delete(r.toolJSON, name)
			}
			continue
		}
		r.tools[name] = t
		r.toolJSON[name] = j
		changed = true
	}
	r.toolFrom = from
	// Resources and templates.
	var goneRes []string
	for k, e := range r.resources {
		if res[k] == nil {
			if e.Template != nil {
				goneRes = append(goneRes, e.Template.URITemplate)
			} else {
				goneRes = append(goneRes, e.Resource.URI)
			}
			delete(r.resources, k)
			delete(r.resJSON, k)
		}
	}
	if len(goneRes) > 0 {
		r.srv.RemoveResources(goneRes...)
		changed = true
	}
	for _, k := range sortedKeys(res) {
		e := res[k]
		var j string
		if e.Template != nil {
			j = mustJSON(e.Template)
		} else {
			j = mustJSON(e.Resource)
		}
		if r.resJSON[k] == j {
			r.resources[k] = e
			continue
		}
		if err := addResource(r.srv, e); err != nil {
			r.errs.Add(fmt.Sprintf("resource %q skipped: %v", k, err))
			continue
		}
		r.resources[k] = e
		r.resJSON[k] = j
		changed = true
	}
	// Prompts.
	var goneP []string
	for name := range r.prompts {
		if prompts[name] == nil {
			goneP = append(goneP, name)
			delete(r.prompts, name)
			delete(r.prJSON, name)
		}
	}
	if len(goneP) > 0 {
		r.srv.RemovePrompts(goneP...)
		changed = true
	}
	for _, name := range promptOrder {
		p := prompts[name]
		j := mustJSON(p.Prompt)
		if r.prJSON[name] == j {
			r.prompts[name] = p
			continue
		}
		r.srv.AddPrompt(p.Prompt, p.Handler)
		r.prompts[name] = p
		r.prJSON[name] = j
		changed = true
	}
	return changed
}

// addTool registers t, turning the registration panic of a schema that does not
// compile (an upstream's schema is data, not a programmer error here) into an error.
func addTool(s *mcp.Server, t *toolEntry) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	s.AddTool(t.Tool, t.Handler)
	return nil
}

// addResource registers a resource or template, turning a template that does not
// parse into an error.
func addResource(s *mcp.Server, e *resourceEntry) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	if e.Template != nil {
		s.AddResourceTemplate(e.Template, e.Handler)
	} else {
		s.AddResource(e.Resource, e.Handler)
	}
	return nil
}

// snapshot is what a server offers right now, sorted, for pages and /mcp/all.
type snapshot struct {
	Tools     []*toolEntry
	ToolFrom  map[string]string
	Resources []*resourceEntry
	Prompts   []*promptEntry
}

func (r *registry) snapshot() *snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := &snapshot{ToolFrom: map[string]string{}}
	for _, n := range sortedKeys(r.tools) {
		s.Tools = append(s.Tools, r.tools[n])
		s.ToolFrom[n] = r.toolFrom[n]
	}
	for _, k := range sortedKeys(r.resources) {
		s.Resources = append(s.Resources, r.resources[k])
	}
	sort.SliceStable(s.Resources, func(i, j int) bool {
		return (s.Resources[i].Template == nil) && (s.Resources[j].Template != nil)
	})
	for _, n := range sortedKeys(r.prompts) {
		s.Prompts = append(s.Prompts, r.prompts[n])
	}
	return s
}
