package main

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/wiremcp/wiremcp/examples/gateway/kbapi"
)

// The built-in demo bridges the knowledge-base API of package kbapi. The gateway
// binary serves that API itself, on a loopback port of its own chosen at start, for
// as long as the process runs (it is the demo's backend, not part of the gateway:
// a real configuration points "rest" at an API that runs elsewhere).
var demoAPI struct {
	once sync.Once
	url  string
	err  error
}

// demoAPIURL starts the demo API on 127.0.0.1 (once per process) and returns its
// base URL.
func demoAPIURL() (string, error) {
	demoAPI.once.Do(func() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			demoAPI.err = err
			return
		}
		srv := &http.Server{Handler: kbapi.New(nil), ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
		go srv.Serve(ln) // lives as long as the process
		demoAPI.url = "http://" + ln.Addr().String()
	})
	return demoAPI.url, demoAPI.err
}

// demoRESTServer is the demo configuration's "kb" server.
func demoRESTServer() (map[string]any, error) {
	base, err := demoAPIURL()
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"description": "An HTTP API bridged as read-only tools: the demo knowledge-base API (examples/gateway/kbapi), its tools imported from its OpenAPI document. Project-scoped tools take the project as projectId (sent as the x-project-id header); try list_projects first.",
		"rest": map[string]any{
			"baseUrl":          base,
			"openapi":          base + "/openapi.json",
			"maxResponseBytes": 65536,
		},
	}, nil
}
