// JSON API: strict decoding, validation, and consistent JSON responses.
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
)

type createUser struct {
	Name string `json:"name"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func handleCreate(w http.ResponseWriter, r *http.Request) {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16))
	dec.DisallowUnknownFields()
	var in createUser
	if err := dec.Decode(&in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		return
	}
	if strings.TrimSpace(in.Name) == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "name is required"})
		return
	}
	writeJSON(w, http.StatusCreated, map[string]string{"id": "u1", "name": in.Name})
}

func main() {
	for _, body := range []string{`{"name":"ada"}`, `{"nam":"typo"}`} {
		rec := httptest.NewRecorder()
		handleCreate(rec, httptest.NewRequest("POST", "/users", strings.NewReader(body)))
		fmt.Print(rec.Code, " ", rec.Body.String())
	}
}
