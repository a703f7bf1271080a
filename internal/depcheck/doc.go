// Package depcheck holds a test that enforces the dependency rules of DESIGN.md with
// go list -deps: jsonrpc/ and transport/... import the standard library only (and
// jsonrpc/, and internal/httpbody and internal/clientaddr, the POST body reader
// they share with auth/); mcp/ adds github.com/santhosh-tekuri/jsonschema/v6, the one schema
// validator of the repository (with golang.org/x/text, which it uses); auth/ imports
// the standard library only (and that body reader), and none of jsonrpc/, transport/ and mcp/ imports it;
// go-cmp is for tests.
package depcheck
