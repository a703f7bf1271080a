// Package uritemplate implements RFC 6570 URI templates: parsing and expansion at
// all four levels, and matching a concrete URI back to variable values for the
// simple templates MCP resource templates use.
//
//	t, err := uritemplate.Parse("users/{user}/posts{?page,limit}")
//	if err != nil { … }
//	uri, _ := t.Expand(map[string]any{"user": "ada lovelace", "page": 2})
//	// uri == "users/ada%20lovelace/posts?page=2"
//	vars, ok := t.Match("users/bob/posts?limit=10&page=3")
//	// ok, vars == {"user": "bob", "limit": "10", "page": "3"}
//
// Expansion follows RFC 6570 section 3 and appendix A exactly: the operators "",
// '+', '#', '.', '/', ';', '?' and '&', prefix (:N) and explode (*) modifiers,
// string, list and associative-array values, and pct-encoding of everything outside
// the unreserved set (or the unreserved and reserved sets, for '+' and '#').
//
// Matching is the inverse for templates without modifiers; see Template.Match for
// the exact rules and what it does not support. Templates are immutable after
// Parse and safe for concurrent use.
package uritemplate
