package httpbody

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

type failReader struct{}

func (failReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		body    io.Reader
		length  int64 // -1: unknown (chunked)
		max     int64
		want    string
		status  int
		message string
	}{
		{name: "known length", body: strings.NewReader("hello"), length: 5, max: 5, want: "hello"},
		{name: "unknown length", body: strings.NewReader("hello"), length: -1, max: 5, want: "hello"},
		{name: "empty", body: strings.NewReader(""), length: 0, max: 5, want: ""},
		{name: "declared too large", body: strings.NewReader("hello!"), length: 6, max: 5,
			status: 413, message: "Request body too large: at most 5 bytes"},
		{name: "sent too large", body: strings.NewReader("hello!"), length: -1, max: 5,
			status: 413, message: "Request body too large: at most 5 bytes"},
		{name: "shorter than declared", body: strings.NewReader("hel"), length: 5, max: 5,
			status: 400, message: "Cannot read the request body"},
		{name: "read fails", body: failReader{}, length: -1, max: 5,
			status: 400, message: "Cannot read the request body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/", tt.body)
			r.ContentLength = tt.length
			got, status, msg := Read(httptest.NewRecorder(), r, tt.max, time.Second)
			if status != tt.status || msg != tt.message {
				t.Fatalf("status %d %q, want %d %q", status, msg, tt.status, tt.message)
			}
			if status == 0 && string(got) != tt.want {
				t.Fatalf("body %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReadDeadline: a client that stops sending is cut off after the read timeout,
// however much time the whole body would be allowed otherwise.
func TestReadDeadline(t *testing.T) {
	got := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, status, _ := Read(w, r, 1<<20, 100*time.Millisecond)
		got <- status
	}))
	defer srv.Close()
	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ := http.NewRequest("POST", srv.URL, pr)
	req.ContentLength = 10
	go func() {
		pw.Write([]byte("12345")) // half the body, then nothing
	}()
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case s := <-got:
		if s != http.StatusBadRequest {
			t.Fatalf("status %d, want 400", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the read did not time out")
	}
}
