// ServeMux patterns with methods and path values (Go 1.22+).
package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
)

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "item %s", r.PathValue("id"))
	})
	mux.HandleFunc("POST /items", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
	})

	for _, req := range []*http.Request{
		httptest.NewRequest("GET", "/items/42", nil),
		httptest.NewRequest("DELETE", "/items/42", nil),
	} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		fmt.Println(req.Method, rec.Code, rec.Body.String())
	}
}
