// httptest: test handlers with a recorder and clients with a loopback server.
package httptesting

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func hello(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, "hello "+r.URL.Query().Get("name"))
}

func TestHelloRecorder(t *testing.T) {
	rec := httptest.NewRecorder()
	hello(rec, httptest.NewRequest(http.MethodGet, "/?name=gopher", nil))
	if rec.Code != http.StatusOK || rec.Body.String() != "hello gopher" {
		t.Fatalf("got %d %q", rec.Code, rec.Body.String())
	}
}

func TestHelloServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(hello))
	t.Cleanup(srv.Close)
	resp, err := srv.Client().Get(srv.URL + "/?name=net")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if string(b) != "hello net" {
		t.Fatalf("body %q", b)
	}
}
