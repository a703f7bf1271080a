package mcp

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Every json member of CallToolParams has its case in decodeCallToolParams.
func TestCallToolParamsCoversEveryField(t *testing.T) {
	var got []string
	typ := reflect.TypeFor[CallToolParams]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		got = append(got, name)
	}
	slices.Sort(got)
	want := slices.Clone(callToolParamsFields)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("CallToolParams members (-handled by decodeCallToolParams +declared):\n%s", diff)
	}
}

var callToolParamsSeeds = []string{
	``, `null`, `{}`, ` { } `, `[]`, `"x"`, `1`,
	`{"name":"echo","arguments":{"message":"hi"}}`,
	`{"name":"echo","arguments":null}`,
	`{"name":"e\u0063ho","arguments":{"a":[1,2,{"b":"}"}]},"_meta":{"progressToken":7},"task":{"ttl":1000}}`,
	`{"name":"echo","Arguments":{}}`,
	`{"NAME":"echo"}`,
	`{"\u004eame":"echo"}`,
	`{"name":1}`,
	`{"name":"echo","task":"soon"}`,
	`{"name":"echo","_meta":[]}`,
	`{"name":"echo","extra":{"x":1},"arguments":{}}`,
	`{"name":"echo","arguments":"not an object"}`,
	`{"name":null}`,
}

// decodeCallToolParams gives what unmarshalParams gives: the same params, or an
// error with the same message.
func TestCallToolParamsMatchesGeneric(t *testing.T) {
	for _, s := range callToolParamsSeeds {
		compareCallToolParams(t, []byte(s))
	}
}

func FuzzCallToolParams(f *testing.F) {
	for _, s := range callToolParamsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return // the jsonrpc decoder hands on only valid JSON
		}
		compareCallToolParams(t, params)
	})
}

func compareCallToolParams(t *testing.T, params []byte) {
	t.Helper()
	var fast, slow CallToolParams
	errFast := decodeCallToolParams(params, &fast)
	errSlow := unmarshalParams(params, &slow)
	if (errFast == nil) != (errSlow == nil) || (errFast != nil && errFast.Error() != errSlow.Error()) {
		t.Fatalf("%s: error %v, generic path %v", params, errFast, errSlow)
	}
	if errFast != nil {
		return
	}
	if diff := cmp.Diff(slow, fast); diff != "" {
		t.Fatalf("%s (-generic +fast):\n%s", params, diff)
	}
}
