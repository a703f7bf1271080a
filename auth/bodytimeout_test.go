package auth

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestRequireBearerBodyTimeout: a client holding a valid token that trickles the
// body RequireBearer reads for its method and tool scopes is answered 408 once
// BodyTimeout has passed, instead of holding the handler for as long as it sends;
// a body sent in time still reaches next.
func TestRequireBearerBodyTimeout(t *testing.T) {
	reached := make(chan string, 4)
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		reached <- string(b)
		w.WriteHeader(204)
	})
	srv := httptest.NewServer(RequireBearer(next, &ResourceServerOptions{
		Verifier:     stubVerifier{},
		MethodScopes: map[string][]string{"resources/read": {"files:read"}},
		BodyTimeout:  300 * time.Millisecond,
	}))
	defer srv.Close()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}`
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer tok-mcp\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:10])
	// Trickle one byte every 100 ms: each read is quick, the whole body is not.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 10; i < len(body)-1; i++ {
			time.Sleep(100 * time.Millisecond)
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				return
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a trickled body: %v", err)
	}
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(msg), "300ms") {
		t.Fatalf("trickled body: %d %q, want 408 naming the bound", resp.StatusCode, msg)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("answered after %v, want about the 300ms bound", el)
	}
	conn.Close()
	<-done
	select {
	case b := <-reached:
		t.Fatalf("next ran for the trickled body: %q", b)
	default:
	}

	// A body sent at once is read and passed on whole.
	req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer tok-mcp")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Fatalf("body in time: status %d", resp.StatusCode)
	}
	if got := <-reached; got != body {
		t.Fatalf("next got %q", got)
	}
}
