package main

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"strings"

	"github.com/wiremcp/wiremcp/mcp"
)

//go:embed web/*.html
var webFS embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"json": func(v any) string {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err.Error()
		}
		return string(b)
	},
	"schema": func(raw json.RawMessage) string {
		var b bytes.Buffer
		if json.Indent(&b, raw, "", "  ") != nil {
			return string(raw)
		}
		return b.String()
	},
}).ParseFS(webFS, "web/*.html"))

// baseURL is the gateway's URL as the browser reached it.
func (g *Gateway) baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + g.opts.Prefix
}

// servePage renders a page. Every value is escaped by html/template; the pages load
// nothing from elsewhere (the policy header says so to the browser too).
func (g *Gateway) servePage(w http.ResponseWriter, r *http.Request, status int, name string, data map[string]any) {
	g.mu.RLock()
	title := "wiremcp gateway"
	if g.cfg != nil && g.cfg.Title != "" {
		title = g.cfg.Title
	}
	g.mu.RUnlock()
	data["Title"] = title
	data["Base"] = g.baseURL(r)
	data["Prefix"] = g.opts.Prefix
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name+".html", data); err != nil {
		http.Error(w, "page error: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

// indexRow is one server on the index page.
type indexRow struct {
	Name, Description, State string
	Enabled, Healthy         bool
	Tools                    int
}

func (g *Gateway) serveIndex(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	g.mu.RLock()
	cfg := g.cfg
	all := g.all != nil
	g.mu.RUnlock()
	h := g.health()
	var rows []indexRow
	for _, name := range sortedKeys(cfg.Servers) {
		sc := cfg.Servers[name]
		row := indexRow{Name: name, Description: sc.Description, Enabled: sc.enabled(), State: "disabled"}
		if s := h.Servers[name]; s != nil && s.Enabled {
			row.State, row.Healthy, row.Tools = s.State, s.Healthy, s.Tools
		}
		rows = append(rows, row)
	}
	g.servePage(w, r, http.StatusOK, "index", map[string]any{"Servers": rows, "All": all})
}

// serveInfo answers a browser's GET of an MCP endpoint.
func (g *Gateway) serveInfo(w http.ResponseWriter, r *http.Request, name string) {
	g.servePage(w, r, http.StatusOK, "info", map[string]any{"Server": name})
}

// metaTool is a tool as the meta page shows it.
type metaTool struct {
	Name, Upstream, Title, Description string
	InputSchema                        json.RawMessage
}

func (g *Gateway) serveMeta(w http.ResponseWriter, r *http.Request, name string) {
	g.mu.RLock()
	rt := g.servers[name]
	all := g.all
	var sc *ServerConfig
	if g.cfg != nil {
		sc = g.cfg.Servers[name]
	}
	g.mu.RUnlock()
	if rt == nil {
		if sc != nil && !sc.enabled() {
			g.servePage(w, r, http.StatusNotFound, "notfound", map[string]any{"Server": name, "Disabled": true})
			return
		}
		g.notFound(w, r, name)
		return
	}
	snap := rt.reg.snapshot()
	var tools []metaTool
	for _, t := range snap.Tools {
		mt := metaTool{Name: t.Tool.Name, Title: t.Tool.Title, Description: t.Tool.Description, InputSchema: t.Tool.InputSchema}
		if from := snap.ToolFrom[t.Tool.Name]; from != t.Tool.Name {
			mt.Upstream = from
		}
		tools = append(tools, mt)
	}
	var resources []*mcp.Resource
	var templates []*mcp.ResourceTemplate
	for _, e := range snap.Resources {
		if e.Template != nil {
			templates = append(templates, e.Template)
		} else {
			resources = append(resources, e.Resource)
		}
	}
	var prompts []*mcp.Prompt
	for _, p := range snap.Prompts {
		prompts = append(prompts, p.Prompt)
	}
	hl := rt.health()
	var stderr []string
	for _, p := range hl.Parts {
		stderr = append(stderr, p.Stderr...)
	}
	if len(stderr) > 50 {
		stderr = stderr[len(stderr)-50:]
	}
	endpoint := g.baseURL(r) + "/mcp/" + name
	desktop, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		name: map[string]any{"type": "http", "url": endpoint},
	}}, "", "  ")
	var mapping []allMapping
	if all != nil {
		mapping = all.mappingFor(name)
	}
	g.servePage(w, r, http.StatusOK, "meta", map[string]any{
		"Server":      name,
		"Description": rt.cfg.Description,
		"Endpoint":    endpoint,
		"Health":      hl,
		"Tools":       tools,
		"Resources":   resources,
		"Templates":   templates,
		"Prompts":     prompts,
		"Stderr":      strings.Join(stderr, "\n"),
		"Mapping":     mapping,
		"Desktop":     string(desktop),
		"Inspector":   "npx @modelcontextprotocol/inspector --cli " + endpoint + " --transport http --method tools/list",
		"GoSnippet":   goSnippet(endpoint),
	})
}

func goSnippet(endpoint string) string {
	return `t, _ := streamable.NewClient("` + endpoint + `", nil)
c := mcp.NewClient(mcp.Implementation{Name: "me", Version: "1.0"}, nil)
cs, err := c.Connect(ctx, t)
if err != nil { log.Fatal(err) }
defer cs.Close()
for tool, err := range cs.Tools(ctx) {
	if err != nil { log.Fatal(err) }
	fmt.Println(tool.Name)
}`
}
