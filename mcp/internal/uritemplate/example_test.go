package uritemplate_test

import (
	"fmt"

	"github.com/wiremcp/wiremcp/mcp/internal/uritemplate"
)

func Example() {
	t, err := uritemplate.Parse("users/{user}/posts{?page,limit}")
	if err != nil {
		panic(err)
	}
	uri, err := t.Expand(map[string]any{"user": "ada lovelace", "page": 2})
	if err != nil {
		panic(err)
	}
	fmt.Println(uri)

	vars, ok := t.Match("users/bob/posts?limit=10&page=3")
	fmt.Println(ok, vars) // fmt prints maps in key order
	fmt.Println(t.Vars())

	_, ok = t.Match("users/bob/extra/posts")
	fmt.Println(ok)
	// Output:
	// users/ada%20lovelace/posts?page=2
	// true map[limit:10 page:3 user:bob]
	// [user page limit]
	// false
}
