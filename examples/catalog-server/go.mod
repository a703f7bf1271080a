module github.com/wiremcp/wiremcp/examples/catalog-server

go 1.25.0

require github.com/google/go-cmp v0.7.0

replace github.com/wiremcp/wiremcp => ../..
