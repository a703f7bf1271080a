// Package ssetest holds what the tests of the HTTP+SSE transport's users share.
package ssetest

import (
	"bufio"
	"strings"
	"testing"
)

// Endpoint reads an HTTP+SSE event stream up to its first data line (the endpoint
// event a server sends first) and returns that data: where to POST messages. It
// fails the test when the stream ends or breaks first.
func Endpoint(tb testing.TB, br *bufio.Reader) string {
	tb.Helper()
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			tb.Fatalf("reading the SSE endpoint event: %v", err)
			return ""
		}
		if data, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok {
			return data
		}
	}
}
