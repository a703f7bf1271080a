package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
	"text/template/parse"
	"time"

	"github.com/wiremcp/wiremcp/mcp"
)

// maxCommandOutput caps what a command's stdout may produce for one call; stderr is
// kept in a ring of its last lines.
const maxCommandOutput = 4 << 20

// maxConcurrentCommands caps the programs one server runs at once for tool calls; a
// call beyond it waits for a slot within its timeout.
const maxConcurrentCommands = 32

// commandArgsSchema is the input of the tool a command server without declared tools
// gets: words appended to the configured argv.
const commandArgsSchema = `{"type":"object","properties":{"command_args":{"type":"string","description":"Arguments appended to the command, split into words as a POSIX shell would (quotes group words; nothing is expanded)."}}}`

// commandTool runs a configured program for each call.
type commandTool struct {
	cfg      *CommandConfig
	server   *ServerConfig
	dir      string // config directory
	argv     []*template.Template
	timeout  time.Duration
	freeArgs bool // takes command_args
	errs     *lineRing
	slots    chan struct{} // shared by the server's command tools (maxConcurrentCommands)
}

func newCommandTool(cfg *CommandConfig, server *ServerConfig, dir string, freeArgs bool, errs *lineRing, slots chan struct{}) (*commandTool, error) {
	c := &commandTool{cfg: cfg, server: server, dir: dir, freeArgs: freeArgs, errs: errs, slots: slots, timeout: 30 * time.Second}
	if d, err := time.ParseDuration(cfg.Timeout); err == nil && d > 0 {
		c.timeout = d
	}
	for _, a := range cfg.Argv {
		t, err := template.New("").Option("missingkey=error").Parse(a)
		if err != nil {
			return nil, err
		}
		c.argv = append(c.argv, t)
	}
	return c, nil
}

// handle is the tool handler.
func (c *commandTool) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args map[string]any
	if len(req.Params.Arguments) > 0 {
		dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return mcp.ErrorResult("arguments: %v", err), nil
		}
	}
	if args == nil {
		args = map[string]any{}
	}
	argv := make([]string, 0, len(c.argv))
	for i, t := range c.argv {
		if i == 0 {
			argv = append(argv, expandEnv(c.cfg.Argv[0]))
			continue
		}
		var b strings.Builder
		if err := t.Execute(&b, args); err != nil {
			return mcp.ErrorResult("argument %d: %v", i, err), nil
		}
		argv = append(argv, expandEnv(b.String()))
	}
	if c.freeArgs {
		if s, ok := args["command_args"].(string); ok && s != "" {
			words, err := splitWords(s)
			if err != nil {
				return mcp.ErrorResult("command_args: %v", err), nil
			}
			argv = append(argv, words...)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	select {
	case c.slots <- struct{}{}:
		defer func() { <-c.slots }()
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return mcp.ErrorResult("%s: no free slot within %v (%d commands of this server are running)", argv[0], c.timeout, maxConcurrentCommands), nil
		}
		return nil, ctx.Err()
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = processEnv(c.server.Env, c.cfg.Env)
	cmd.Dir = c.dir
	if c.cfg.Dir != "" {
		cmd.Dir = c.cfg.Dir
		if !filepath.IsAbs(cmd.Dir) {
			cmd.Dir = filepath.Join(c.dir, c.cfg.Dir)
		}
	}
	if c.cfg.Stdin == "json" {
		in := req.Params.Arguments
		if len(in) == 0 {
			in = json.RawMessage("{}")
		}
		cmd.Stdin = bytes.NewReader(append(append([]byte(nil), in...), '\n'))
	}
	stdout := &capped{max: maxCommandOutput}
	stderr := newLineRing(40)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		c.errs.Add(fmt.Sprintf("%s: %v", argv[0], err))
		return mcp.ErrorResult("cannot start %s: %v", argv[0], err), nil
	}
	pid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
		// The child is gone; stop anything it left behind in its group.
		killGroup(pid)
	case <-ctx.Done():
		killGroup(pid)
		<-done
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			c.errs.Add(fmt.Sprintf("%s: timed out after %v", argv[0], c.timeout))
			return mcp.ErrorResult("%s timed out after %v\n%s", argv[0], c.timeout, stderr.Tail(20)), nil
		}
		return nil, ctx.Err()
	}
	out := stdout.String()
	if stdout.cut {
		out += fmt.Sprintf("\n[output cut at %d bytes]", maxCommandOutput)
	}
	if err != nil {
		c.errs.Add(fmt.Sprintf("%s: %v", argv[0], err))
		msg := fmt.Sprintf("%s failed: %v", argv[0], err)
		if tail := stderr.Tail(20); tail != "" {
			msg += "\nstderr:\n" + tail
		}
		res := mcp.ErrorResult("%s", msg)
		if out != "" {
			res.Content = append(res.Content, &mcp.TextContent{Text: out})
		}
		return res, nil
	}
	return mcp.TextResult(out), nil
}

// capped is a writer that keeps at most max bytes. The buffer is a field, not
// embedded: an embedded bytes.Buffer would lend it ReadFrom, which io.Copy (and so
// os/exec) would use instead of Write, and the cap with it.
type capped struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if room := c.max - c.buf.Len(); room < len(p) {
		c.cut = true
		p = p[:max(room, 0)]
	}
	c.buf.Write(p)
	return n, nil
}

func (c *capped) String() string { return c.buf.String() }

// splitWords splits s into words the way a POSIX shell does for quoting (single and
// double quotes, backslash), without expanding anything.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case ch == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case ch == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
			inWord = true
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// templateFields lists the top-level fields a template reads ({{.name}}).
func templateFields(t *template.Template) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.ActionNode:
			walk(n.Pipe)
		case *parse.PipeNode:
			if n != nil {
				for _, c := range n.Cmds {
					walk(c)
				}
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(a)
			}
		case *parse.FieldNode:
			if len(n.Ident) > 0 && !seen[n.Ident[0]] {
				seen[n.Ident[0]] = true
				out = append(out, n.Ident[0])
			}
		case *parse.IfNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		}
	}
	if t.Tree != nil {
		walk(t.Tree.Root)
	}
	return out
}
