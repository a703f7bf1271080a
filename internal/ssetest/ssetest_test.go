package ssetest

import (
	"bufio"
	"strings"
	"testing"
)

func TestEndpoint(t *testing.T) {
	br := bufio.NewReader(strings.NewReader(": hello\r\nevent: endpoint\r\ndata: /message?sessionId=abc\r\n\r\nevent: message\ndata: {}\n\n"))
	if got := Endpoint(t, br); got != "/message?sessionId=abc" {
		t.Errorf("Endpoint = %q, want /message?sessionId=abc", got)
	}
	if rest, _ := br.ReadString('\n'); rest != "\r\n" {
		t.Errorf("Endpoint read past the endpoint's data line: next %q", rest)
	}
}
