package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"time"
)

// lineRing keeps the last lines written to it (a child's stderr, a server's recent
// errors). It is an io.Writer safe for concurrent use; a line longer than maxLine is
// cut. It holds at most max lines.
type lineRing struct {
	mu      sync.Mutex
	max     int
	redact  func(string) string // applied to every line kept (nil: none)
	lines   []string
	partial []byte
}

const maxLine = 2048

func newLineRing(max int) *lineRing { return &lineRing{max: max} }

func (r *lineRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.write(&r.partial, p)
}

// ringWriter writes to a lineRing with a partial line of its own, so that what
// several writers (the children of per-client sessions) write never runs together
// into one line.
type ringWriter struct {
	r       *lineRing
	partial []byte
}

func (r *lineRing) writer() *ringWriter { return &ringWriter{r: r} }

func (w *ringWriter) Write(p []byte) (int, error) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return w.r.write(&w.partial, p)
}

// write adds the complete lines of p, the first one continuing *partial, and keeps
// the rest in *partial. r.mu is held.
func (r *lineRing) write(partial *[]byte, p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := maxLine - len(*partial)
			if room > 0 {
				*partial = append(*partial, p[:min(room, len(p))]...)
			}
			break
		}
		room := maxLine - len(*partial)
		if room > 0 {
			*partial = append(*partial, p[:min(room, i)]...)
		}
		r.push(strings.TrimRight(string(*partial), "\r"))
		*partial = (*partial)[:0]
		p = p[i+1:]
	}
	return n, nil
}

// Addf adds one timestamped line.
func (r *lineRing) Add(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(line) > maxLine {
		line = line[:maxLine]
	}
	r.push(time.Now().UTC().Format("15:04:05 ") + line)
}

func (r *lineRing) push(line string) {
	if r.redact != nil {
		line = r.redact(line)
	}
	if len(r.lines) == r.max {
		copy(r.lines, r.lines[1:])
		r.lines = r.lines[:r.max-1]
	}
	r.lines = append(r.lines, line)
}

// Lines returns a copy of the kept lines, oldest first (with an unfinished last line).
func (r *lineRing) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := append([]string(nil), r.lines...)
	if len(r.partial) > 0 {
		p := string(r.partial)
		if r.redact != nil {
			p = r.redact(p)
		}
		out = append(out, p)
	}
	return out
}

// Tail returns the last n lines joined by newlines.
func (r *lineRing) Tail(n int) string {
	l := r.Lines()
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// redactor returns a function that replaces the values of the environment variables
// cfg refers to (${NAME}) with their references, so that what the gateway keeps and
// shows (errors, a child's stderr, states) never holds them. Values shorter than 4
// characters are left alone (they would mangle ordinary text and hide little).
func redactor(cfg *ServerConfig) func(string) string {
	b, _ := json.Marshal(cfg)
	names := envRefs(string(b))
	if len(names) == 0 {
		return nil
	}
	return func(s string) string {
		for _, n := range names {
			if v := os.Getenv(n); len(v) >= 4 {
				s = strings.ReplaceAll(s, v, "${"+n+"}")
			}
		}
		return s
	}
}
