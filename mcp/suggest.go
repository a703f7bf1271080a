package mcp

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// maxSuggestions is how many closest names an unknown tool or resource is
// answered with at most.
const maxSuggestions = 3

// maxSuggestInput is the longest name or URI (in bytes) that closest names are
// looked for: the comparison's cost grows with its length, and the peer chose
// it.
const maxSuggestInput = 512

// maxSuggestTemplates is how many URI templates a resource-not-found error
// lists in its data at most.
const maxSuggestTemplates = 10

// maxEcho is the most of a peer's name or URI (in bytes) that an error about
// it repeats: past it, the start is kept and echo says how much was left out.
// A peer chooses what it sends (a 3 MB URI), and an error repeating it whole
// would cost the answer as much again.
const maxEcho = 1024

// echo returns s, or its first maxEcho bytes (whole characters) and how many
// bytes were left out.
func echo(s string) string {
	if len(s) <= maxEcho {
		return s
	}
	n := maxEcho
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("… (%d more bytes not shown)", len(s)-n)
}

// unknownTool is the error for a tools/call naming no tool: the message and
// data name the listed tools closest to name, when some are close.
func unknownTool(s *Server, name string) *jsonrpc.Error {
	var names []string
	for _, t := range s.sortedTools() {
		names = append(names, t.tool.Name)
	}
	closest := closestNames(name, names, maxSuggestions)
	data := map[string]any{"tool": echo(name)}
	msg := fmt.Sprintf("unknown tool %q", echo(name))
	if len(closest) > 0 {
		data["closest"] = closest
		q := make([]string, len(closest))
		for i, c := range closest {
			q[i] = fmt.Sprintf("%q", c)
		}
		msg += "; did you mean " + strings.Join(q, " or ") + "?"
	}
	return jsonrpc.NewError(jsonrpc.CodeInvalidParams, msg, data)
}

// resourceNotFound is the error for a resources/read of uri that found nothing:
// the standard message (which peers match: IsResourceNotFound), and in data the
// URI (its first maxEcho bytes), the handler's explanation when it gave one
// (detail), the listed URIs
// closest to uri (closest) and the server's URI templates (templates).
func resourceNotFound(s *Server, rev *revision, uri, detail string) *jsonrpc.Error {
	data := map[string]any{"uri": echo(uri)}
	if detail != "" {
		data["detail"] = detail
	}
	if s != nil {
		if c := closestURIs(s.resourcesByURI(), uri, maxSuggestions); len(c) > 0 {
			data["closest"] = c
		}
		var tmpls []string
		for _, t := range s.sortedTemplates() {
			if len(tmpls) == maxSuggestTemplates {
				break
			}
			tmpls = append(tmpls, t.tmpl.URITemplate)
		}
		if len(tmpls) > 0 {
			data["templates"] = tmpls
		}
	}
	return jsonrpc.NewError(rev.resourceNotFound, "Resource not found", data)
}

// maxSuggestCompare is how many listed URIs a resources/read miss is compared
// with at most: those that sort nearest to the URI asked for.
const maxSuggestCompare = 256

// closestURIs returns up to n of the listed URIs (sorted by URI) closest to uri,
// other than uri itself (a listed resource whose handler found nothing): those
// that start with it (uri cut short) and those within a small edit distance,
// best first. The work is bounded whatever the number of resources: uri is
// compared with at most maxSuggestCompare URIs (uriWindow), each in
// O(len(uri)·limit) with buffers reused, so on a server listing more than that,
// a misspelling near the start of a URI may get no suggestion.
func closestURIs(sorted []*serverResource, uri string, n int) []string {
	if len(uri) > maxSuggestInput || len(sorted) == 0 {
		return nil
	}
	type cand struct {
		uri string
		d   int
	}
	var cs []cand
	seen := map[string]bool{}
	// URIs that continue uri sit together where uri would be inserted.
	window, at := uriWindow(sorted, uri)
	for i := at; i < len(window) && len(cs) < n && strings.HasPrefix(window[i].res.URI, uri); i++ {
		if window[i].res.URI == uri {
			continue
		}
		cs = append(cs, cand{window[i].res.URI, 1})
		seen[window[i].res.URI] = true
	}
	limit := max(2, len(uri)/5)
	var dist distancer
	for _, r := range window {
		if seen[r.res.URI] || r.res.URI == uri {
			continue
		}
		if d, ok := dist.bounded(uri, r.res.URI, limit); ok {
			cs = append(cs, cand{r.res.URI, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.uri)
	}
	return out
}

// uriWindow returns the at most maxSuggestCompare URIs of sorted (by URI) that a
// miss of uri is compared with — all of them when there are no more, else those
// around the place uri would be inserted — and that place's index in the window.
func uriWindow(sorted []*serverResource, uri string) (window []*serverResource, at int) {
	i := sort.Search(len(sorted), func(i int) bool { return sorted[i].res.URI >= uri })
	if len(sorted) <= maxSuggestCompare {
		return sorted, i
	}
	lo := min(max(0, i-maxSuggestCompare/2), len(sorted)-maxSuggestCompare)
	return sorted[lo : lo+maxSuggestCompare], i - lo
}

// closestNames returns up to n of names closest to name, best first: those equal
// to it but for case and the separators '_', '-', '.' and ' ' ("executeQuery" for
// "execute_query"), then those it is a prefix of or that are a prefix of it (of
// three characters or more), then
// those within a small edit distance (compared without case).
func closestNames(name string, names []string, n int) []string {
	if len(name) > maxSuggestInput || name == "" {
		return nil
	}
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch r {
			case '_', '-', '.', ' ':
				return -1
			}
			return r
		}, strings.ToLower(s))
	}
	want, lname := norm(name), strings.ToLower(name)
	limit := max(1, len(name)/3)
	var dist distancer
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, c := range names {
		got := norm(c)
		switch {
		case got == want:
			cs = append(cs, cand{c, 0})
		case min(len(got), len(want)) >= 3 && (strings.HasPrefix(got, want) || strings.HasPrefix(want, got)):
			cs = append(cs, cand{c, 1})
		default:
			if d, ok := dist.bounded(lname, strings.ToLower(c), limit); ok {
				cs = append(cs, cand{c, 1 + d})
			}
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// distancer computes bounded edit distances, reusing its two rows from one
// call to the next. Its zero value is ready; it is not safe for concurrent use.
type distancer struct {
	prev, cur []int
}

// bounded returns the edit distance (Levenshtein, in bytes) between a and b
// when it is at most limit; ok is false when it is more. Only the cells within
// limit of the diagonal are computed (the others are past limit), and it gives
// up as soon as a whole row is past limit: O(len(a)·limit).
func (dd *distancer) bounded(a, b string, limit int) (d int, ok bool) {
	if abs(len(a)-len(b)) > limit {
		return 0, false
	}
	far := limit + 1
	if cap(dd.prev) < len(b)+1 {
		dd.prev, dd.cur = make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev, cur := dd.prev[:len(b)+1], dd.cur[:len(b)+1]
	for j := range prev {
		prev[j] = min(j, far)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		cur[0] = min(i, far)
		if lo > 1 {
			cur[lo-1] = far
		}
		low := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, far)
			low = min(low, cur[j])
		}
		if hi < len(b) {
			cur[hi+1] = far
		}
		if low > limit {
			return 0, false
		}
		prev, cur = cur, prev
	}
	if prev[len(b)] > limit {
		return 0, false
	}
	return prev[len(b)], true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
