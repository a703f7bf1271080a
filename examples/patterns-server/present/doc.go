// Package present turns catalog answers into what the patterns-server tools
// return: typed payloads with a kind discriminator (the machine contract), a
// Markdown rendering for people, and structured requests for missing input.
//
// The payload kinds are
//
//   - patternSearchResults:v1 (KindSearchResults, *SearchResults)
//   - patternDetails:v1 (KindDetails, *Details)
//   - needsInput:v1 (KindNeedsInput, *NeedsInput)
//   - toolError:v1 (KindToolError, *ToolError)
//
// and each has a JSON Schema (Schema). The Markdown carries HTML-comment
// contract markers — IndexMarker once before the index table and CardMarker once
// per rendered card — whose counts the search payload repeats in
// metadata.contractMarkers, so a program can check that the prose and the JSON
// describe the same results.
//
// An Engine applies the tool rules (format gating, elicitation rules, limits)
// and knows nothing of MCP: the server wires its Replies into tool results.
//
//	eng := present.NewEngine(cat, nil)
//	reply := eng.Search(present.SearchArgs{Q: present.Ptr("worker pool")})
//	for _, b := range reply.Blocks() {
//		fmt.Println(b.MIMEType, len(b.Text))
//	}
package present
