package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/gateway/kbapi"
)

// FuzzOpenAPIImport feeds documents to the importer: it returns operations or an
// error, never panics, and every operation it returns has a valid tool name and an
// input schema that marshals.
//
//	go test -run '^$' -fuzz FuzzOpenAPIImport -fuzztime 30s ./examples/gateway
func FuzzOpenAPIImport(f *testing.F) {
	f.Add(kbapi.OpenAPI())
	if b, err := os.ReadFile(filepath.Join("testdata", "petstore-3.0.json")); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"openapi": "3.0.0", "paths": {"/x/{a}": {"parameters": [{"$ref": "#/components/parameters/A"}], "get": {"responses": {"200": {"$ref": "#/r"}}}}}, "components": {"parameters": {"A": {"name": "a", "in": "path", "schema": {"$ref": "#/components/parameters/A"}}}}, "r": {"content": {"application/json": {"schema": {"type": "array", "items": true}}}}}`))
	f.Add([]byte(`{"openapi": "3.1.0", "paths": {"/": {"get": {"parameters": [{"name": "q", "in": "query", "content": {"application/json": {"schema": {"type": "object", "nullable": true, "exclusiveMinimum": true}}}}]}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseOpenAPI(data)
		if err != nil {
			return
		}
		ops, err := d.operations(nil)
		if err != nil {
			return
		}
		for _, op := range ops {
			if !toolNameMCP.MatchString(op.Name) {
				t.Fatalf("invalid tool name %q", op.Name)
			}
			if _, err := json.Marshal(op.inputSchema(neverForwarded)); err != nil {
				t.Fatalf("input schema of %s: %v", op.Name, err)
			}
		}
	})
}

// TestOpenAPIRefExplosion: schemas that refer to one another many times over are
// refused instead of expanding exponentially.
func TestOpenAPIRefExplosion(t *testing.T) {
	var schemas []string
	for i := 0; i < 40; i++ {
		schemas = append(schemas, fmt.Sprintf(`"S%d": {"type": "object", "properties": {"a": {"$ref": "#/components/schemas/S%d"}, "b": {"$ref": "#/components/schemas/S%d"}}}`, i, i+1, i+1))
	}
	schemas = append(schemas, `"S40": {"type": "string"}`)
	doc := `{"openapi": "3.0.3", "paths": {"/x": {"get": {"operationId": "x", "responses": {"200": {"description": "ok",
		"content": {"application/json": {"schema": {"$ref": "#/components/schemas/S0"}}}}}}}},
		"components": {"schemas": {` + strings.Join(schemas, ",") + `}}}`
	d, err := parseOpenAPI([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.operations(nil); err == nil || !strings.Contains(err.Error(), "expand to more than") {
		t.Errorf("error %v", err)
	}
}
