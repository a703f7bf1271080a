package main

import (
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestAnswerErrorKinds: a query process's answer larger than the server reads
// is the query's to change (invalid, ask for less); one that does not read as
// an answer is the server's (unavailable, call again). Both were "the process
// ended before it answered" before.
func TestAnswerErrorKinds(t *testing.T) {
	if te := classify(&engine.AnswerError{TooLarge: true, Limit: 16 << 20, Part: "rows", Detail: "x"}); te.Kind != "invalid" || te.Hint == "" {
		t.Errorf("too large: %+v", te)
	}
	if te := classify(&engine.AnswerError{Detail: "x"}); te.Kind != "unavailable" || te.Hint == "" {
		t.Errorf("not an answer: %+v", te)
	}
}
