package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestWholeNumber(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"10.0", "10", true},
		{"1e3", "1000", true},
		{"1E+3", "1000", true},
		{"2.50e1", "25", true},
		{"-7.000", "-7", true},
		{"-0.0", "0", true},
		{"0e5", "0", true},
		{"100e-2", "1", true},
		{"12345678901234567890.0", "12345678901234567890", true},
		{"1e19", "10000000000000000000", true},
		{"1e20", "", false},  // 21 digits: past any Go integer, left for Go's error
		{"1e400", "", false}, // and not expanded
		{"1e999999999999999999999", "", false},
		{"10.5", "", false},
		{"5e-1", "", false},
		{"0.001e2", "", false},
		{"0.001e3", "1", true},
		{"1e-400", "", false},
	} {
		got, ok := wholeNumber(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("wholeNumber(%s) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestWholeNumbersRewritesOnlyNumbers(t *testing.T) {
	in := `{"a": 10.0, "s": "10.0 and 1e3", "l": [1e3, 2.5, {"n": -4.0}], "k": 7}`
	got, changed := wholeNumbers([]byte(in))
	want := `{"a": 10, "s": "10.0 and 1e3", "l": [1000, 2.5, {"n": -4}], "k": 7}`
	if !changed || string(got) != want {
		t.Fatalf("got %s (%v), want %s", got, changed, want)
	}
	if _, changed := wholeNumbers([]byte(`{"a": 10, "b": 2.5}`)); changed {
		t.Fatal("changed arguments with no whole number written with a fraction")
	}
}

type wholeIn struct {
	RowLimit int             `json:"rowLimit,omitempty" mcp:"minimum=1"`
	Offset   uint8           `json:"offset,omitempty"`
	Ratio    float64         `json:"ratio,omitempty"`
	Raw      json.RawMessage `json:"raw,omitempty"`
}

// TestTypedToolWholeNumbers: JSON Schema's integer admits 10.0 and 1e3, and so
// does a typed tool's integer field; a number with a fraction, or one past the
// field's range, is still refused. (The arguments arrive compacted; a whole
// number elsewhere in them, here inside a json.RawMessage, is rewritten too.)
func TestTypedToolWholeNumbers(t *testing.T) {
	s := NewServer(Implementation{Name: "t", Version: "1"}, nil)
	var got []wholeIn
	AddTool(s, &Tool{Name: "q"}, func(ctx context.Context, req *CallToolRequest, in wholeIn) (*CallToolResult, any, error) {
		got = append(got, in)
		return TextResult("ran"), nil, nil
	})
	cs, _ := pair(t, s, nil)
	ctx := testCtx(t)
	call := func(args string) *CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &CallToolParams{Name: "q", Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatalf("%s: %v", args, err)
		}
		return res
	}
	for _, c := range []struct {
		args string
		want wholeIn
	}{
		{`{"rowLimit": 10.0}`, wholeIn{RowLimit: 10}},
		{`{"rowLimit": 1e3, "offset": 2.0e2}`, wholeIn{RowLimit: 1000, Offset: 200}},
		{`{"rowLimit": 5.0, "ratio": 2.0, "raw": [1.0, "x"]}`, wholeIn{RowLimit: 5, Ratio: 2, Raw: json.RawMessage(`[1,"x"]`)}},
	} {
		n := len(got)
		if res := call(c.args); res.IsError || len(got) != n+1 {
			t.Fatalf("%s: refused: %s", c.args, resultText(res))
		}
		g := got[len(got)-1]
		if g.RowLimit != c.want.RowLimit || g.Offset != c.want.Offset || g.Ratio != c.want.Ratio || string(g.Raw) != string(c.want.Raw) {
			t.Errorf("%s: decoded %+v, want %+v", c.args, g, c.want)
		}
	}
	for _, args := range []string{
		`{"rowLimit": 10.5}`,  // the schema refuses it
		`{"offset": 3e2}`,     // past uint8
		`{"rowLimit": 1e400}`, // past any integer
	} {
		n := len(got)
		res := call(args)
		if !res.IsError || len(got) != n {
			t.Errorf("%s: want an isError result before the tool runs, got %s", args, resultText(res))
		}
	}
	// Without the rewrite, Go's decoding would have refused the first call.
	var plain wholeIn
	if err := json.Unmarshal([]byte(`{"rowLimit": 10.0}`), &plain); err == nil || !strings.Contains(err.Error(), "number 10.0") {
		t.Fatalf("encoding/json now decodes 10.0 into an int (%v): the rewrite may be unneeded", err)
	}
}

// resultText is the text of a result's text blocks, for messages.
func resultText(res *CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
