// Package depcheck holds a test that enforces the dependency rules of DESIGN.md with
// go list -deps: jsonrpc/ and transport/... import the standard library only (and
// jsonrpc/); mcp/ adds nothing outside the module either (DESIGN.md would allow
// github.com/santhosh-tekuri/jsonschema/v6; mcp validates with its own
// mcp/internal/jschema); go-cmp is for tests.
package depcheck
