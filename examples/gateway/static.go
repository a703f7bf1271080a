package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
)

// maxResourceBytes caps a file or URL resource.
const maxResourceBytes = 8 << 20

// staticPart offers a server's declared command tools, resources and prompts.
type staticPart struct {
	name string
	cfg  *ServerConfig
	dir  string
	errs *lineRing
}

func (p *staticPart) close() {}

func (p *staticPart) status() partStatus {
	return partStatus{Kind: "static", State: "ready", Healthy: true}
}

func (p *staticPart) start(ctx context.Context, reg *registry) error {
	e := &entries{}
	slots := make(chan struct{}, maxConcurrentCommands)
	if p.cfg.Command != nil {
		ct, err := newCommandTool(p.cfg.Command, p.cfg, p.dir, true, p.errs, slots)
		if err != nil {
			return err
		}
		e.Tools = append(e.Tools, &toolEntry{
			Tool: &mcp.Tool{
				Name:        p.name,
				Description: firstNonEmpty(p.cfg.Description, "Runs "+p.cfg.Command.Argv[0]) + " (command_args are appended to the command line)",
				InputSchema: []byte(commandArgsSchema),
			},
			Handler: ct.handle,
		})
	}
	for _, name := range sortedKeys(p.cfg.Tools) {
		t := p.cfg.Tools[name]
		ct, err := newCommandTool(t.Command, p.cfg, p.dir, false, p.errs, slots)
		if err != nil {
			return err
		}
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = []byte(`{"type":"object"}`)
		}
		e.Tools = append(e.Tools, &toolEntry{
			Tool:    &mcp.Tool{Name: name, Title: t.Title, Description: t.Description, InputSchema: schema},
			Handler: ct.handle,
		})
	}
	root := p.root()
	for _, key := range sortedKeys(p.cfg.Resources) {
		r := p.cfg.Resources[key]
		res := &mcp.Resource{URI: r.URI, Name: firstNonEmpty(r.Name, key), Description: r.Description, MIMEType: r.MIMEType}
		e.Resources = append(e.Resources, &resourceEntry{Resource: res, Handler: p.readHandler(r, root)})
	}
	for _, name := range sortedKeys(p.cfg.Prompts) {
		pc := p.cfg.Prompts[name]
		h, err := promptHandler(pc)
		if err != nil {
			return err
		}
		pr := &mcp.Prompt{Name: name, Title: pc.Title, Description: pc.Description}
		for _, a := range pc.Arguments {
			pr.Arguments = append(pr.Arguments, &mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		e.Prompts = append(e.Prompts, &promptEntry{Prompt: pr, Handler: h})
	}
	reg.set("static", e)
	return nil
}

func (p *staticPart) root() string {
	root := p.cfg.Root
	if root == "" {
		return p.dir
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join(p.dir, root)
	}
	return root
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// readHandler reads one static resource.
func (p *staticPart) readHandler(r *ResourceConfig, root string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		var data []byte
		var err error
		switch {
		case r.File != "":
			data, err = readUnder(root, r.File)
		case r.URL != "":
			data, err = fetchURL(ctx, r.URL)
		default:
			data = []byte(r.Text)
		}
		if err != nil {
			p.errs.Add(fmt.Sprintf("resource %s: %v", r.URI, err))
			return nil, fmt.Errorf("reading %s: %w", r.URI, err)
		}
		c := &mcp.ResourceContents{URI: r.URI, MIMEType: r.MIMEType}
		if isText(r.MIMEType, data) {
			c.Text = string(data)
		} else {
			c.Blob = data
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}, nil
	}
}

func isText(mime string, data []byte) bool {
	if strings.HasPrefix(mime, "text/") || strings.HasSuffix(mime, "json") || strings.HasSuffix(mime, "xml") || strings.Contains(mime, "markdown") {
		return true
	}
	if mime == "" {
		return strings.HasPrefix(http.DetectContentType(data), "text/")
	}
	return false
}

// readUnder reads name (relative to root, or absolute) only when the file it
// resolves to, symbolic links followed, lies inside root.
func readUnder(root, name string) ([]byte, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, name)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil, errors.New("file is outside the server's root")
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxResourceBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxResourceBytes {
		return nil, fmt.Errorf("file is larger than %d bytes", maxResourceBytes)
	}
	return data, nil
}

var resourceClient = &http.Client{Timeout: 30 * time.Second}

func fetchURL(ctx context.Context, u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, expandEnv(u), nil)
	if err != nil {
		return nil, err
	}
	resp, err := resourceClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET answered %s", resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResourceBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxResourceBytes {
		return nil, fmt.Errorf("body is larger than %d bytes", maxResourceBytes)
	}
	return data, nil
}

// promptHandler renders a templated prompt; required arguments are checked by the
// library before it runs.
func promptHandler(pc *PromptConfig) (mcp.PromptHandler, error) {
	type msg struct {
		role mcp.Role
		t    *template.Template
	}
	var msgs []msg
	for _, m := range pc.Messages {
		t, err := template.New("").Option("missingkey=zero").Parse(m.Text)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, msg{mcp.Role(m.Role), t})
	}
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		args := map[string]string{}
		for _, a := range pc.Arguments {
			args[a.Name] = ""
		}
		for k, v := range req.Params.Arguments {
			args[k] = v
		}
		res := &mcp.GetPromptResult{Description: pc.Description}
		for _, m := range msgs {
			var b strings.Builder
			if err := m.t.Execute(&b, args); err != nil {
				return nil, err
			}
			res.Messages = append(res.Messages, &mcp.PromptMessage{Role: m.role, Content: &mcp.TextContent{Text: b.String()}})
		}
		return res, nil
	}, nil
}
