package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// The input of the typed tool of the argument-case tests: constraints on members at
// every kind of depth the check walks.
type caseFilter struct {
	Min int `json:"min" mcp:"minimum=0"`
	Max int `json:"max,omitempty" mcp:"maximum=9"`
}

type caseRow struct {
	Name string `json:"name" mcp:"minLength=1"`
}

type CaseRegion struct {
	Region string `json:"region,omitempty" mcp:"enum=eu|us"`
}

type caseIn struct {
	CaseRegion
	RowLimit int                   `json:"rowLimit,omitempty" mcp:"minimum=1"`
	Sort     string                `json:"sort,omitempty" mcp:"enum=asc|desc"`
	Filter   *caseFilter           `json:"filter,omitempty"`
	Rows     []caseRow             `json:"rows,omitempty"`
	ByName   map[string]caseFilter `json:"byName,omitempty"`
	Pair     [1]caseRow            `json:"pair,omitzero"`
	Raw      json.RawMessage       `json:"raw,omitempty"`
	Any      any                   `json:"any,omitempty"`
}

// TestTypedToolArgumentCase: a member whose name equals an argument's name except
// for case passes the schema as an unknown member, and encoding/json would fill the
// field from it; AddTool refuses it, at every depth where the arguments decode into
// a struct, with the isError result of invalid arguments, before the tool runs.
// Exact names, unknown members, map keys and what an interface or json.RawMessage
// holds are not affected.
func TestTypedToolArgumentCase(t *testing.T) {
	s := NewServer(Implementation{Name: "t", Version: "1"}, nil)
	var ran []caseIn
	AddTool(s, &Tool{Name: "query"}, func(ctx context.Context, req *CallToolRequest, in caseIn) (*CallToolResult, any, error) {
		ran = append(ran, in)
		return TextResult("ran"), nil, nil
	})
	cs, _ := pair(t, s, nil)
	ctx := testCtx(t)

	for _, c := range []struct{ name, args, member, exact string }{
		{"top level", `{"RowLimit":-5}`, "RowLimit", "rowLimit"},
		{"upper case", `{"ROWLIMIT":-5}`, "ROWLIMIT", "rowLimit"},
		{"lower case", `{"rowlimit":-5}`, "rowlimit", "rowLimit"},
		{"after the exact name", `{"rowLimit":5,"RowLimit":-5}`, "RowLimit", "rowLimit"},
		{"before the exact name", `{"RowLimit":-5,"rowLimit":5}`, "RowLimit", "rowLimit"},
		{"escaped", `{"\u0052owLimit":-5}`, "RowLimit", "rowLimit"},
		{"unicode folding", `{"ſort":"sideways"}`, "ſort", "sort"}, // U+017F folds to s
		{"embedded struct", `{"Region":"mars"}`, "Region", "region"},
		{"a container's own name", `{"Filter":{"min":-1}}`, "Filter", "filter"},
		{"nested struct", `{"filter":{"min":1,"Min":-1}}`, "filter.Min", "filter.min"},
		{"nested, second member", `{"filter":{"min":1,"MAX":99}}`, "filter.MAX", "filter.max"},
		{"slice of structs", `{"rows":[{"name":"a"},{"name":"b","NAME":""}]}`, "rows[1].NAME", "rows[1].name"},
		{"array of structs", `{"pair":[{"Name":"","name":"p"}]}`, "pair[0].Name", "pair[0].name"},
		{"map of structs", `{"byName":{"k":{"min":1},"x":{"min":1,"MIN":-1}}}`, "byName[x].MIN", "byName[x].min"},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := len(ran)
			res, err := cs.CallTool(ctx, &CallToolParams{Name: "query", Arguments: json.RawMessage(c.args)})
			if err != nil {
				t.Fatalf("want an isError result, got protocol error %v", err)
			}
			if !res.IsError || len(ran) != n {
				t.Fatalf("%s reached the tool: %+v", c.args, ran[n:])
			}
			want := `invalid arguments for tool "query": member "` + c.member +
				`": member names are case-sensitive (the argument is "` + c.exact + `")`
			diff(t, []Content{&TextContent{Text: want}}, res.Content)
		})
	}

	for _, c := range []struct {
		name, args string
		want       caseIn
	}{
		{"exact names", `{"rowLimit":5,"sort":"asc","region":"eu","filter":{"min":0,"max":3},"rows":[{"name":"a"}],"byName":{"K":{"min":1}},"pair":[{"name":"p"}]}`,
			caseIn{CaseRegion: CaseRegion{"eu"}, RowLimit: 5, Sort: "asc", Filter: &caseFilter{0, 3}, Rows: []caseRow{{"a"}},
				ByName: map[string]caseFilter{"K": {Min: 1}}, Pair: [1]caseRow{{"p"}}}},
		{"unknown members", `{"rowLimit":2,"other":1,"RowLimitX":-3,"filter":{"min":0,"extra":true},"rows":[{"name":"a","Names":1}]}`,
			caseIn{RowLimit: 2, Filter: &caseFilter{}, Rows: []caseRow{{"a"}}}},
		{"map keys are free", `{"byName":{"Min":{"min":1},"min":{"min":2}}}`,
			caseIn{ByName: map[string]caseFilter{"Min": {Min: 1}, "min": {Min: 2}}}},
		{"json.RawMessage and any", `{"raw":{"RowLimit":-5,"Min":1},"any":{"RowLimit":-5}}`,
			caseIn{Raw: json.RawMessage(`{"RowLimit":-5,"Min":1}`), Any: map[string]any{"RowLimit": -5.0}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := len(ran)
			res, err := cs.CallTool(ctx, &CallToolParams{Name: "query", Arguments: json.RawMessage(c.args)})
			if err != nil || res.IsError || len(ran) != n+1 {
				t.Fatalf("%s refused: %v %+v", c.args, err, res)
			}
			diff(t, c.want, ran[n])
		})
	}
}

type caseCustom struct {
	Name string `json:"name"`
}

// UnmarshalJSON reads any object its own way: what it holds is not the check's.
func (c *caseCustom) UnmarshalJSON(b []byte) error {
	c.Name = string(b)
	return nil
}

type caseTree struct {
	Name string     `json:"name"`
	Kids []caseTree `json:"kids,omitempty"`
}

type caseLoop []caseLoop

type caseA struct {
	*caseB
	A int `json:"a"`
}

type caseB struct {
	*caseA
	B int `json:"b"`
}

// TestCheckArgumentCase: the walk alongside the Go type, case by case.
func TestCheckArgumentCase(t *testing.T) {
	deep := strings.Repeat("[", 70) + strings.Repeat("]", 70)
	for _, c := range []struct {
		name string
		typ  reflect.Type
		args string
		want string // "" for accepted
	}{
		{"pointer to pointer", reflect.TypeFor[**caseFilter](), `{"MIN":1}`, `member "MIN": member names are case-sensitive (the argument is "min")`},
		{"pointer to pointer, exact", reflect.TypeFor[**caseFilter](), `{"min":1}`, ``},
		{"recursive type", reflect.TypeFor[caseTree](), `{"name":"r","kids":[{"name":"a"},{"name":"b","kids":[{"Name":"c"}]}]}`,
			`member "kids[1].kids[0].Name": member names are case-sensitive (the argument is "kids[1].kids[0].name")`},
		{"recursive type, exact", reflect.TypeFor[caseTree](), `{"name":"r","kids":[{"name":"a","kids":[{"name":"c"}]}]}`, ``},
		{"cyclic embedding", reflect.TypeFor[caseA](), `{"a":1,"B":2}`, `member "B": member names are case-sensitive (the argument is "b")`},
		{"slice of maps of slices", reflect.TypeFor[[]map[string][]caseRow](), `[{},{"k":[{"name":"x"},{"nAme":"y"}]}]`,
			`member "[1][k][1].nAme": member names are case-sensitive (the argument is "[1][k][1].name")`},
		{"array elements beyond its length are not decoded", reflect.TypeFor[[1]caseRow](), `[{"name":"a"},{"NAME":"b"}]`, ``},
		{"a json.Unmarshaler decodes itself", reflect.TypeFor[struct {
			C caseCustom `json:"c"`
		}](), `{"c":{"NAME":1}}`, ``},
		{"another JSON type is encoding/json's", reflect.TypeFor[caseIn](), `{"filter":"x","rows":{"Name":1},"byName":[{"MIN":1}]}`, ``},
		{"null containers", reflect.TypeFor[caseIn](), `{"filter":null,"rows":null,"byName":null,"pair":null}`, ``},
		{"not an object at all", reflect.TypeFor[caseIn](), `[{"RowLimit":1}]`, ``},
		{"whitespace", reflect.TypeFor[caseIn](), " \n{ \"filter\" : { \"Min\" : 1 } } ", `member "filter.Min": member names are case-sensitive (the argument is "filter.min")`},
		{"too deep to check", reflect.TypeFor[caseIn](), `{"any":` + deep + `,"RowLimit":-5}`,
			`member names of the arguments cannot be checked: not well-formed JSON, a member repeated, or nested deeper than 64 levels`},
		{"too deep to check, inside a walked value", reflect.TypeFor[caseIn](), `{"rows":[{"x":` + deep + `}]}`,
			`member names of the arguments cannot be checked: not well-formed JSON, a member repeated, or nested deeper than 64 levels`},
		{"deep below an unchecked value", reflect.TypeFor[caseIn](), `{"rows":[{"name":"a"}],"any":{"a":` + strings.Repeat("[", 60) + strings.Repeat("]", 60) + `}}`, ``},
		{"repeated member", reflect.TypeFor[caseIn](), `{"rowLimit":1,"rowLimit":2}`,
			`member names of the arguments cannot be checked: not well-formed JSON, a member repeated, or nested deeper than 64 levels`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ct := checkedType(c.typ)
			if ct == nil {
				t.Fatalf("checkedType(%v) is nil", c.typ)
			}
			err := checkArgumentCase([]byte(c.args), ct)
			got := ""
			if err != nil {
				got = err.Error()
			}
			diff(t, c.want, got)
		})
	}
}

func TestCheckedType(t *testing.T) {
	for _, c := range []struct {
		typ     reflect.Type
		checked bool
	}{
		{reflect.TypeFor[caseIn](), true},
		{reflect.TypeFor[*caseIn](), true},
		{reflect.TypeFor[[]*caseRow](), true},
		{reflect.TypeFor[map[string][2]caseRow](), true},
		{reflect.TypeFor[caseTree](), true},
		{reflect.TypeFor[any](), false},
		{reflect.TypeFor[map[string]any](), false},
		{reflect.TypeFor[json.RawMessage](), false},
		{reflect.TypeFor[[]byte](), false},
		{reflect.TypeFor[[]string](), false},
		{reflect.TypeFor[caseCustom](), false},
		{reflect.TypeFor[[]caseCustom](), false},
		{reflect.TypeFor[caseLoop](), false}, // type L []L: no struct, and it ends
	} {
		if got := checkedType(c.typ) != nil; got != c.checked {
			t.Errorf("checkedType(%v) != nil is %v, want %v", c.typ, got, c.checked)
		}
	}
}

// TestCheckArgumentCaseAllocations: exact names cost no allocation (and nor do
// unknown members of short names).
func TestCheckArgumentCaseAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under -race")
	}
	args := []byte(`{"rowLimit":5,"sort":"asc","region":"eu","filter":{"min":0,"max":3},"rows":[{"name":"a"},{"name":"b"}],` +
		`"byName":{"K":{"min":1}},"pair":[{"name":"p"}],"raw":{"RowLimit":1},"any":[1,{"x":2}],"other":{"Filter":1}}`)
	ct := checkedType(reflect.TypeFor[caseIn]())
	if err := checkArgumentCase(args, ct); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() {
		if checkArgumentCase(args, ct) != nil {
			t.Fatal("refused")
		}
	}); n != 0 {
		t.Errorf("%v allocations a check, want 0", n)
	}
}

// TestMemberCaseUnicodeFolding: names are folded as encoding/json folds them, so a
// params member that encoding/json would read through a Unicode case folding (the
// Kelvin sign K, U+212A, for k) is refused like any other case variant.
func TestMemberCaseUnicodeFolding(t *testing.T) {
	var p struct {
		Kind string `json:"kind"`
	}
	data := []byte(`{"\u212aind":"x"}`)
	if err := json.Unmarshal(data, &p); err != nil || p.Kind != "x" {
		t.Fatalf("encoding/json no longer reads U+212A as k (%v, %q): the test needs another rune", err, p.Kind)
	}
	err := checkMemberCase(data, &p)
	if err == nil || !strings.Contains(err.Error(), `(the field is "kind")`) {
		t.Errorf("checkMemberCase: %v", err)
	}
}

// Types of FuzzCheckArgumentCase: short names with letters of special foldings
// (s: ſ, k: K), and each kind of value the walk follows or stops at.
type fuzzCaseInner struct {
	SK int            `json:"sk"`
	N  *fuzzCaseInner `json:"n"`
}

type fuzzCaseIn struct {
	SK       int                      `json:"sk"`
	Inner    fuzzCaseInner            `json:"in"`
	P        *fuzzCaseInner           `json:"p"`
	List     []fuzzCaseInner          `json:"l"`
	Arr      [2]fuzzCaseInner         `json:"a"`
	Map      map[string]fuzzCaseInner `json:"m"`
	Any      any                      `json:"any"`
	Raw      json.RawMessage          `json:"raw"`
	Untagged string
}

// FuzzCheckArgumentCase: checkArgumentCase accepts readable arguments exactly when
// no member that decodes into a struct differs from a field's json name only in case
// (by strings.EqualFold, as encoding/json matches), and for accepted arguments
// encoding/json decodes the value a case-sensitive decode would: the same as for the
// arguments without their members of unknown names.
func FuzzCheckArgumentCase(f *testing.F) {
	for _, s := range []string{
		`{"sk":1}`, `{"SK":1}`, `{"ſk":1}`, `{"s\u212a":1}`, `{"in":{"sk":1,"n":{"Sk":2}}}`,
		`{"l":[{"sk":1},{"N":null}],"a":[{},{},{"SK":3}],"m":{"SK":{"sk":1}}}`,
		`{"any":{"SK":1},"raw":{"SK":1},"untagged":"x","Untagged":"y"}`, `{"p":null,"x":1}`, `[]`, `{"sk":"x"}`,
	} {
		f.Add([]byte(s))
	}
	typ := reflect.TypeFor[fuzzCaseIn]()
	ct := checkedType(typ)
	f.Fuzz(func(t *testing.T, data []byte) {
		if !jsonrpc.Members(data, func(_, _ []byte) bool { return true }) {
			return // not an object the jsonrpc decoder would pass on
		}
		err := checkArgumentCase(data, ct)
		var ce *argCaseError
		if err != nil && (!errors.As(err, &ce) || ce.exact == "") {
			t.Fatalf("%s: %v", data, err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var tree any
		if err := dec.Decode(&tree); err != nil {
			t.Fatalf("%s: Members reads it, encoding/json does not: %v", data, err)
		}
		pruned, variant := pruneByType(tree, typ)
		if variant != (err != nil) {
			t.Fatalf("%s: a case variant in it is %v, but checkArgumentCase says %v", data, variant, err)
		}
		if err != nil {
			return
		}
		prunedJSON, perr := json.Marshal(pruned)
		if perr != nil {
			t.Fatal(perr)
		}
		var got, want fuzzCaseIn
		gotErr, wantErr := json.Unmarshal(data, &got), json.Unmarshal(prunedJSON, &want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("%s: encoding/json says %v, and for %s %v", data, gotErr, prunedJSON, wantErr)
		}
		if gotErr != nil {
			return
		}
		got.Raw, want.Raw = canonicalJSON(t, got.Raw), canonicalJSON(t, want.Raw)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s decodes to %+v; a case-sensitive decode (%s) to %+v", data, got, prunedJSON, want)
		}
	})
}

// pruneByType is the fuzz test's own case-sensitive reading of a decoded JSON value
// v as type t: it drops the members of objects that decode into a struct whose names
// are not exactly a field's json name, and reports whether one of them matched a
// name by strings.EqualFold. It knows only the fuzz test's types (no embedding).
func pruneByType(v any, t reflect.Type) (any, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return v, false
		}
		fields := map[string]reflect.Type{}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			fields[name] = f.Type
		}
		out, variant := map[string]any{}, false
		for k, mv := range obj {
			if ft, ok := fields[k]; ok {
				pv, vv := pruneByType(mv, ft)
				out[k], variant = pv, variant || vv
				continue
			}
			for name := range fields {
				if strings.EqualFold(k, name) {
					variant = true
				}
			}
		}
		return out, variant
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return v, false
		}
		out, variant := map[string]any{}, false
		for k, mv := range obj {
			pv, vv := pruneByType(mv, t.Elem())
			out[k], variant = pv, variant || vv
		}
		return out, variant
	case reflect.Slice, reflect.Array:
		arr, ok := v.([]any)
		if !ok || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return v, false
		}
		out, variant := make([]any, len(arr)), false
		for i, ev := range arr {
			if t.Kind() == reflect.Array && i >= t.Len() {
				out[i] = ev // not decoded
				continue
			}
			pv, vv := pruneByType(ev, t.Elem())
			out[i], variant = pv, variant || vv
		}
		return out, variant
	}
	return v, false // interfaces, json.RawMessage, scalars
}

// canonicalJSON rewrites raw with sorted keys and no spaces (nil stays nil).
func canonicalJSON(t *testing.T, raw json.RawMessage) json.RawMessage {
	if raw == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
