module github.com/wiremcp/wiremcp

go 1.25
