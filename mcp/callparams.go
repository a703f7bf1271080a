package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// A specialised path (docs/ARCHITECTURE.md): tools/call params are decoded member by
// member with the jsonrpc decoder's own scanner (jsonrpc.Members, which the
// exact-case check walks anyway), so that the arguments, usually the bulk of the
// message, are passed on as raw bytes without encoding/json going over them twice
// (checkValid, then skip). Small members go through encoding/json. The result and
// errors are the same as unmarshalParams' (TestCallToolParamsMatchesGeneric,
// FuzzCallToolParams); a field added to CallToolParams without a case here fails
// TestCallToolParamsCoversEveryField.

// callToolParamsFields are the json names of CallToolParams that
// decodeCallToolParams handles.
var callToolParamsFields = []string{"name", "arguments", "task", "_meta"}

// decodeCallToolParams decodes tools/call params into p; absent params decode as {}.
func decodeCallToolParams(params json.RawMessage, p *CallToolParams) error {
	params = bytes.TrimSpace(params)
	if len(params) == 0 || string(params) == "null" {
		return nil
	}
	if params[0] != '{' {
		return unmarshalParams(params, p) // encoding/json's error for a non-object
	}
	names := jsonNames(reflect.TypeFor[CallToolParams]())
	var err error
	seen, variant := false, false
	ok := jsonrpc.Members(params, func(key, value []byte) bool {
		seen = true
		switch string(key) {
		case "name":
			err = json.Unmarshal(value, &p.Name)
		case "arguments":
			p.Arguments = json.RawMessage(value)
		case "task":
			err = json.Unmarshal(value, &p.Task)
		case "_meta":
			err = json.Unmarshal(value, &p.Meta)
		default:
			if _, found := names.variant(key); found {
				variant = true // a case variant: unmarshalParams reports it
				return false
			}
			return true
		}
		return err == nil
	})
	if !ok || err != nil || !seen || variant {
		// Anything unusual (malformed, a case variant, a value of the wrong type):
		// the generic path decides, with its own error.
		*p = CallToolParams{}
		return unmarshalParams(params, p)
	}
	return nil
}
