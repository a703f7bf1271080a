// Server timeouts: never serve untrusted clients with zero timeouts.
package main

import (
	"fmt"
	"net/http"
	"time"
)

func newServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

func main() {
	srv := newServer("127.0.0.1:8080", http.NotFoundHandler())
	fmt.Println(srv.ReadHeaderTimeout, srv.IdleTimeout)
	// In a real program: log.Fatal(srv.ListenAndServe())
}
