// Handlers as methods on a struct that owns their dependencies.
package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
)

type server struct {
	greeting string
	mux      *http.ServeMux
}

func newServer(greeting string) *server {
	s := &server{greeting: greeting, mux: http.NewServeMux()}
	s.mux.HandleFunc("/hello", s.handleHello)
	return s
}

func (s *server) handleHello(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "%s, %s", s.greeting, r.URL.Query().Get("name"))
}

func main() {
	rec := httptest.NewRecorder()
	newServer("hello").mux.ServeHTTP(rec, httptest.NewRequest("GET", "/hello?name=gopher", nil))
	fmt.Println(rec.Code, rec.Body.String())
}
