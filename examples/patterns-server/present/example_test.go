package present_test

import (
	"fmt"
	"strings"

	"github.com/wiremcp/wiremcp/examples/patterns-server/catalog"
	"github.com/wiremcp/wiremcp/examples/patterns-server/present"
)

func ExampleEngine_Search() {
	cat, err := catalog.Default()
	if err != nil {
		panic(err)
	}
	eng := present.NewEngine(cat, nil)
	reply := eng.Search(present.SearchArgs{Q: present.Ptr("pipeline"), Format: present.Ptr("both"), LimitCards: present.Ptr(1)})
	blocks, err := reply.Blocks()
	if err != nil {
		panic(err)
	}
	for _, b := range blocks {
		fmt.Println(b.MIMEType, strings.Count(b.Text, present.CardMarker))
	}
	res := reply.Payload.(*present.SearchResults)
	fmt.Println(res.Kind, res.Metadata.RenderedCardIDs, res.Metadata.ContractMarkers.Cards)

	// A blank query is not an error: it asks for input.
	ask := eng.Search(present.SearchArgs{Q: present.Ptr("  ")})
	fmt.Println(ask.Kind, ask.Payload.(*present.NeedsInput).NeedsInput.Fields)
	// Output:
	// text/markdown 0
	// text/markdown 1
	// application/json 0
	// patternSearchResults:v1 [pipeline] 1
	// needsInput:v1 [q]
}
