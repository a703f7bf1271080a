package catalog_test

import (
	"fmt"

	"github.com/wiremcp/wiremcp/examples/patterns-server/catalog"
)

func ExampleCatalog_Search() {
	cat, err := catalog.Default()
	if err != nil {
		panic(err)
	}
	for _, m := range cat.Search(catalog.Query{Text: "worker pool", Category: catalog.Concurrency}) {
		fmt.Println(m.Pattern.ID, m.Pattern.Difficulty)
	}
	fmt.Println(cat.Suggest("retyr-backof", 1))
	// Output:
	// worker-pool intermediate
	// [retry-backoff]
}
