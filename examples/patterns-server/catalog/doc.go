// Package catalog holds the patterns-server domain: a fixed catalog of Go
// programming patterns and a scored search over it. It knows nothing of MCP or
// of how results are presented; package present turns catalog answers into
// payloads and Markdown.
//
// Every pattern carries a complete Go source file as its example. The files live
// in testdata/examples/<id>.go (ignored by the go tool, so the many package main
// files do not clash) and are embedded into the binary; a test builds and vets
// all of them.
//
//	cat, err := catalog.Default()
//	if err != nil { ... }
//	for _, m := range cat.Search(catalog.Query{Text: "worker pool"}) {
//		fmt.Println(m.Pattern.ID, m.Score)
//	}
package catalog
