// Limiting request bodies with http.MaxBytesReader.
package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
)

func upload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 16)
	data, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		http.Error(w, fmt.Sprintf("body over %d bytes", tooBig.Limit), http.StatusRequestEntityTooLarge)
		return
	case err != nil:
		http.Error(w, "read error", http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "got %d bytes", len(data))
}

func main() {
	for _, body := range []string{"small", strings.Repeat("x", 100)} {
		rec := httptest.NewRecorder()
		upload(rec, httptest.NewRequest("POST", "/", strings.NewReader(body)))
		fmt.Println(rec.Code)
	}
}
