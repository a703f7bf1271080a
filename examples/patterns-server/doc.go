// Command patterns-server is an example MCP server that serves both people and
// programs: it searches a catalog of Go programming patterns and answers with
// readable Markdown, a machine-checkable JSON contract (with a JSON Schema per
// payload kind), or both, and asks for missing input through elicitation.
//
//	patterns-server -stdio                    serve one client on stdin/stdout
//	patterns-server -http 127.0.0.1:PORT      serve Streamable HTTP at /mcp
//
// Tools: search_patterns {q, category, difficulty, limit, format, limitCards}
// and get_pattern {id, format}. See packages catalog and present.
//
// # Contract
//
// Every result carries structuredContent with a "kind" (patternSearchResults:v1,
// patternDetails:v1, needsInput:v1 or toolError:v1); the JSON Schemas live in
// present/schemas and make up each tool's outputSchema. format "markdown"
// (default) sends Markdown blocks, "json" one JSON text block, "both" the
// Markdown and then the JSON block last. The Markdown of a search holds
// <!-- kind:pattern-index:v1 --> once and <!-- kind:pattern-card:v1 --> once per
// card, as counted in metadata.contractMarkers.
//
// # Missing input
//
// An empty q, a search with more than 20 matches and neither category nor
// difficulty, and an unknown or empty id need more input. When the client
// declared elicitation, the server asks with a form (elicitation/create) and
// carries on with the answer; otherwise, or when the user declines or cancels,
// the result is a needsInput:v1 payload listing the fields and suggestions.
package main
