package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// TestUnknownToolClosest: a tools/call of a tool the server does not have is
// still -32602, and names the closest listed tools in its message and data (a
// misspelling, another case or separator, a name cut short); a name close to
// nothing gets none.
func TestUnknownToolClosest(t *testing.T) {
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	for _, name := range []string{"execute_query", "list_catalog", "describe", "search_catalog"} {
		s.AddTool(&Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *CallToolRequest) (*CallToolResult, error) {
			return &CallToolResult{}, nil
		})
	}
	cs, _ := pair(t, s, nil)
	for _, tc := range []struct {
		name    string
		closest []string
	}{
		{"execute_qeury", []string{"execute_query"}},
		{"executeQuery", []string{"execute_query"}},
		{"Describe", []string{"describe"}},
		{"list", []string{"list_catalog"}},
		{"search-catalog", []string{"search_catalog"}},
		{"drop_everything", nil},
		{"x", nil},
	} {
		_, err := cs.CallTool(testCtx(t), &CallToolParams{Name: tc.name})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: err = %v, want -32602", tc.name, err)
			continue
		}
		var data struct {
			Tool    string   `json:"tool"`
			Closest []string `json:"closest"`
		}
		if err := json.Unmarshal(je.Data, &data); err != nil {
			t.Errorf("%s: data %s: %v", tc.name, je.Data, err)
		}
		diff(t, tc.name, data.Tool)
		diff(t, tc.closest, data.Closest)
		if !strings.HasPrefix(je.Message, `unknown tool "`+tc.name+`"`) {
			t.Errorf("%s: message %q", tc.name, je.Message)
		}
		if len(tc.closest) > 0 && !strings.Contains(je.Message, `did you mean "`+tc.closest[0]+`"`) {
			t.Errorf("%s: message %q does not name %q", tc.name, je.Message, tc.closest[0])
		}
		if len(tc.closest) == 0 && strings.Contains(je.Message, "did you mean") {
			t.Errorf("%s: message %q suggests a tool", tc.name, je.Message)
		}
	}
}

// TestResourceNotFoundClosest: resources/read of a URI no resource or template
// matches keeps the standard message ("Resource not found", which peers match),
// and its data names the closest listed URIs and the templates; a URI cut short
// gets the URIs that continue it.
func TestResourceNotFoundClosest(t *testing.T) {
	s := resourceServer()
	cs, _ := pair(t, s, nil)
	for _, tc := range []struct {
		uri     string
		closest []string
	}{
		{"test://statc", []string{"test://static"}},
		{"test://Blob", []string{"test://blob"}},
		{"test://s", []string{"test://static"}},
		{"other://zzzzzzzzzzzz", nil},
	} {
		_, err := cs.ReadResource(testCtx(t), &ReadResourceParams{URI: tc.uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || !IsResourceNotFound(err) || je.Message != "Resource not found" {
			t.Errorf("%s: err = %v, want Resource not found", tc.uri, err)
			continue
		}
		var data struct {
			URI       string   `json:"uri"`
			Closest   []string `json:"closest"`
			Templates []string `json:"templates"`
		}
		if err := json.Unmarshal(je.Data, &data); err != nil {
			t.Errorf("%s: data %s: %v", tc.uri, je.Data, err)
		}
		diff(t, tc.uri, data.URI)
		diff(t, tc.closest, data.Closest)
		diff(t, []string{"test://items/{id}"}, data.Templates)
	}
}

func TestClosestNamesBounded(t *testing.T) {
	// A long name is not compared (the cost grows with it), and costs nothing.
	if c := closestNames(strings.Repeat("a", 10000), []string{"a"}, 3); c != nil {
		t.Errorf("closest of a long name: %v", c)
	}
	for _, tc := range []struct {
		a, b  string
		limit int
		d     int
		ok    bool
	}{
		{"kitten", "sitting", 3, 3, true},
		{"kitten", "sitting", 2, 0, false},
		{"", "abc", 3, 3, true},
		{"abc", "abc", 0, 0, true},
		{"abcdefgh", "a", 3, 0, false},
	} {
		d, ok := new(distancer).bounded(tc.a, tc.b, tc.limit)
		if d != tc.d || ok != tc.ok {
			t.Errorf("bounded(%q, %q, %d) = %d, %v; want %d, %v", tc.a, tc.b, tc.limit, d, ok, tc.d, tc.ok)
		}
	}
	// Against the whole table, on short strings of few letters (many near
	// misses): the band gives the same distance whenever it is within limit.
	full := func(a, b string) int {
		prev := make([]int, len(b)+1)
		for j := range prev {
			prev[j] = j
		}
		for i := 1; i <= len(a); i++ {
			cur := make([]int, len(b)+1)
			cur[0] = i
			for j := 1; j <= len(b); j++ {
				cost := 1
				if a[i-1] == b[j-1] {
					cost = 0
				}
				cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			}
			prev = cur
		}
		return prev[len(b)]
	}
	words := func(n int) []string {
		var out []string
		var gen func(prefix string)
		gen = func(prefix string) {
			out = append(out, prefix)
			if len(prefix) < n {
				for _, c := range "ab" {
					gen(prefix + string(c))
				}
			}
		}
		gen("")
		return out
	}
	all := words(5)
	// One distancer for every pair: rows reused from call to call (of other
	// lengths, other limits) give the same answers as fresh ones.
	var reused distancer
	for _, a := range all {
		for _, b := range all {
			want := full(a, b)
			for limit := 0; limit <= 4; limit++ {
				d, ok := new(distancer).bounded(a, b, limit)
				if ok != (want <= limit) || ok && d != want {
					t.Fatalf("bounded(%q, %q, %d) = %d, %v; the distance is %d", a, b, limit, d, ok, want)
				}
				if rd, rok := reused.bounded(a, b, limit); rd != d || rok != ok {
					t.Fatalf("reused distancer: (%q, %q, %d) = %d, %v; fresh: %d, %v", a, b, limit, rd, rok, d, ok)
				}
			}
		}
	}
}

// TestClosestURIsBounded: a resources/read miss on a server listing many
// resources compares the URI with at most maxSuggestCompare of them — those
// sorting nearest to it, so a misspelling near the end still finds its URI —
// and a server listing fewer is compared with all.
func TestClosestURIsBounded(t *testing.T) {
	var sorted []*serverResource
	for i := range 100000 {
		sorted = append(sorted, &serverResource{res: &Resource{URI: fmt.Sprintf("file:///data/item%06d.txt", i)}})
	}
	for _, uri := range []string{"", "a", "file:///data/item050000.tx", "file:///data/item050000.txt", "zzz", "file:///data/item099999.txtx"} {
		w, at := uriWindow(sorted, uri)
		if len(w) > maxSuggestCompare {
			t.Errorf("%q: compared with %d URIs, want at most %d", uri, len(w), maxSuggestCompare)
		}
		if at < 0 || at > len(w) || at < len(w) && w[at].res.URI < uri || at > 0 && w[at-1].res.URI >= uri {
			t.Errorf("%q: insertion place %d in a window of %d is wrong", uri, at, len(w))
		}
	}
	diff(t, []string{"file:///data/item050000.txt"}, closestURIs(sorted, "file:///data/item050000.tx", 1))
	diff(t, []string{"file:///data/item050000.txt"}, closestURIs(sorted, "file:///data/item050000.tct", 1))
	if w, _ := uriWindow(sorted[:10], "zzz"); len(w) != 10 {
		t.Errorf("a server with 10 resources: compared with %d", len(w))
	}
}

// TestResourceNotFoundNotItself: a listed resource whose handler answers
// ErrResourceNotFound is not named as the closest URI to itself.
func TestResourceNotFoundNotItself(t *testing.T) {
	s := NewServer(Implementation{Name: "s", Version: "1"}, nil)
	for _, uri := range []string{"test://gone", "test://gone2", "test://gonee"} {
		s.AddResource(&Resource{URI: uri, Name: uri}, func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error) {
			if req.Params.URI == "test://gone" {
				return nil, ErrResourceNotFound
			}
			return &ReadResourceResult{Contents: []*ResourceContents{{URI: req.Params.URI, Text: "x"}}}, nil
		})
	}
	cs, _ := pair(t, s, nil)
	_, err := cs.ReadResource(testCtx(t), &ReadResourceParams{URI: "test://gone"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || !IsResourceNotFound(err) {
		t.Fatalf("err = %v, want Resource not found", err)
	}
	var data struct {
		Closest []string `json:"closest"`
	}
	if err := json.Unmarshal(je.Data, &data); err != nil {
		t.Fatalf("data %s: %v", je.Data, err)
	}
	diff(t, []string{"test://gone2", "test://gonee"}, data.Closest)
}

// TestSubscribeNotFound: a SubscribeHandler's error wrapping ErrResourceNotFound
// is answered as resources/read answers one: the revision's resource-not-found
// error, the handler's words in its data; other errors pass as they are.
func TestSubscribeNotFound(t *testing.T) {
	s := NewServer(Implementation{Name: "t", Version: "1"}, &ServerOptions{
		SubscribeHandler: func(_ context.Context, _ *ServerSession, uri string) error {
			if uri == "x://gone" {
				return fmt.Errorf("%w: closest: x://here", ErrResourceNotFound)
			}
			return nil
		},
	})
	s.AddResource(&Resource{URI: "x://here", Name: "here"}, func(context.Context, *ReadResourceRequest) (*ReadResourceResult, error) {
		return &ReadResourceResult{}, nil
	})
	cs, _ := pair(t, s, nil)
	ctx := testCtx(t)
	var je *jsonrpc.Error
	err := cs.Subscribe(ctx, &SubscribeParams{URI: "x://gone"})
	if !errors.As(err, &je) || je.Code != CodeResourceNotFound || je.Message != "Resource not found" || !strings.Contains(string(je.Data), "closest: x://here") || !strings.Contains(string(je.Data), `"uri":"x://gone"`) {
		t.Fatalf("subscribe x://gone: %v (%s)", err, je.Data)
	}
	if err := cs.Subscribe(ctx, &SubscribeParams{URI: "x://here"}); err != nil {
		t.Fatal(err)
	}
}

// TestNotFoundEchoCut: an error about a name or URI the peer sent repeats at
// most maxEcho bytes of it, saying how much was left out: a 3 MB URI was
// repeated whole in data.uri, a 3 MB tool name in the message and data.tool.
func TestNotFoundEchoCut(t *testing.T) {
	s := resourceServer()
	s.AddTool(&Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *CallToolRequest) (*CallToolResult, error) {
		return &CallToolResult{}, nil
	})
	cs, _ := pair(t, s, nil)
	long := "other://" + strings.Repeat("é", 1<<20)
	_, err := cs.ReadResource(testCtx(t), &ReadResourceParams{URI: long})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || !IsResourceNotFound(err) {
		t.Fatalf("err = %v, want Resource not found", err)
	}
	if len(je.Data) > 4*maxEcho {
		t.Errorf("resources/read: data of %d bytes", len(je.Data))
	}
	var data struct {
		URI string `json:"uri"`
	}
	json.Unmarshal(je.Data, &data)
	if !strings.HasPrefix(data.URI, long[:maxEcho-1]) || !strings.HasSuffix(data.URI, fmt.Sprintf("… (%d more bytes not shown)", len(long)-maxEcho)) {
		t.Errorf("data.uri = %.100q…%q", data.URI, data.URI[max(len(data.URI)-60, 0):])
	}

	name := strings.Repeat("x", 3<<20)
	_, err = cs.CallTool(testCtx(t), &CallToolParams{Name: name})
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("tools/call: err = %v, want -32602", err)
	}
	if n := len(je.Message) + len(je.Data); n > 4*maxEcho {
		t.Errorf("tools/call: message and data of %d bytes", n)
	}
	if !strings.Contains(je.Message, fmt.Sprintf("… (%d more bytes not shown)", len(name)-maxEcho)) {
		t.Errorf("tools/call: message %.200q", je.Message)
	}
}
