// Package depcheck holds a test that enforces the dependency rules of DESIGN.md with
// go list -deps: jsonrpc/ and transport/... import the standard library only (and
// jsonrpc/); mcp/ adds github.com/santhosh-tekuri/jsonschema/v6, the one schema
// validator of the repository (with golang.org/x/text, which it uses); auth/ imports
// the standard library only (and transport/httpbody, the POST body reader the
// HTTP transports share with it), and none of jsonrpc/, transport/ and mcp/ imports it;
// go-cmp is for tests.
package depcheck
