package catalog

func httpPatterns() []Pattern {
	return []Pattern{
		{
			ID: "http-handler-func", Title: "Handlers as functions", Category: HTTP, Difficulty: Beginner,
			Tags:        []string{"http", "handlers", "net-http", "servemux"},
			Description: "Write endpoints as ordinary functions with the http.HandlerFunc signature, or as methods on a struct that holds their dependencies, and register them on an http.ServeMux you own rather than the global DefaultServeMux.",
			UseWhen:     []string{"Serving HTTP with the standard library", "Handlers need shared dependencies such as a database"},
			AvoidWhen:   []string{"Registering on http.DefaultServeMux in library code, where any imported package can add routes"},
			Sections: howAndPitfalls(
				"A server struct holds dependencies; methods like (s *server) handleUsers(w, r) are registered with mux.HandleFunc.",
				"Writing the header after the body has started is ignored; set headers, then WriteHeader, then write."),
			Related: []string{"method-path-routing", "middleware-chain"},
		},
		{
			ID: "method-path-routing", Title: "Method and path patterns in ServeMux", Category: HTTP, Difficulty: Beginner,
			Tags:        []string{"http", "routing", "servemux", "path-values"},
			Description: "Since Go 1.22 ServeMux patterns can name the method and capture path segments, as in GET /items/{id}, and handlers read them with r.PathValue, which removes the need for a third-party router in most services.",
			UseWhen:     []string{"REST-style routes with path parameters", "You want 405 Method Not Allowed answered automatically"},
			AvoidWhen:   []string{"You need regular-expression routes or per-route middleware trees a router provides"},
			Sections: howAndPitfalls(
				"mux.HandleFunc(\"GET /items/{id}\", h) matches GET and HEAD; {path...} captures the rest; more specific patterns win over general ones.",
				"Conflicting patterns that are equally specific panic at registration. Trailing-slash patterns match whole subtrees."),
			Related: []string{"http-handler-func"},
		},
		{
			ID: "middleware-chain", Title: "Middleware chain", Category: HTTP, Difficulty: Intermediate,
			Tags:        []string{"http", "middleware", "decorator", "logging"},
			Description: "Wrap an http.Handler in functions of type func(http.Handler) http.Handler that add behaviour before and after the inner handler, such as logging, authentication, panic recovery or request ids, and compose them in a fixed order.",
			UseWhen:     []string{"Cross-cutting behaviour applies to many routes", "You want each concern testable in isolation"},
			AvoidWhen:   []string{"The behaviour belongs to one handler only"},
			Sections: howAndPitfalls(
				"A middleware returns http.HandlerFunc(func(w, r){ before; next.ServeHTTP(w, r); after }). Apply with a small chain helper, outermost first.",
				"To observe the status code you must wrap the ResponseWriter, which hides optional interfaces like http.Flusher unless you use http.ResponseController."),
			Related: []string{"http-handler-func", "panic-recover-boundary"},
		},
		{
			ID: "graceful-shutdown", Title: "Graceful shutdown", Category: HTTP, Difficulty: Intermediate,
			Tags:        []string{"http", "shutdown", "signals", "context"},
			Description: "Stop an HTTP server on SIGINT or SIGTERM by calling Server.Shutdown with a deadline, so in-flight requests finish while new connections are refused, then exit once ListenAndServe has returned.",
			UseWhen:     []string{"Servers deployed behind load balancers or in containers", "Requests must not be cut off during deploys"},
			AvoidWhen:   []string{"Short-lived tools where killing the process is fine"},
			Sections: howAndPitfalls(
				"signal.NotifyContext gives a context cancelled on the signal; a goroutine waits on it and calls srv.Shutdown(ctxWithTimeout). ListenAndServe then returns http.ErrServerClosed.",
				"Shutdown does not wait for hijacked connections such as WebSockets; track those yourself with RegisterOnShutdown."),
			Related: []string{"context-cancellation", "server-timeouts"},
		},
		{
			ID: "json-api-handler", Title: "JSON request and response handling", Category: HTTP, Difficulty: Beginner,
			Tags:        []string{"http", "json", "validation", "api"},
			Description: "Decode a JSON body into a struct with DisallowUnknownFields, validate it, answer problems with a 400 and a JSON error object, and encode responses with the right Content-Type; keep the body size bounded.",
			UseWhen:     []string{"Building a JSON API with net/http"},
			AvoidWhen:   []string{"Streaming very large bodies: decode incrementally instead"},
			Sections: howAndPitfalls(
				"A small writeJSON(w, status, v) helper sets the header, writes the status and encodes; decode errors become 400 with a message.",
				"json.Decoder accepts trailing data after the first value unless you check dec.More or decode again expecting io.EOF."),
			Related: []string{"request-body-limit", "httptest-server"},
		},
		{
			ID: "server-timeouts", Title: "Server timeouts", Category: HTTP, Difficulty: Intermediate,
			Tags:        []string{"http", "timeouts", "security", "slowloris"},
			Description: "Configure http.Server with ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout instead of using http.ListenAndServe, whose zero timeouts let slow or idle clients hold connections open indefinitely.",
			UseWhen:     []string{"Any server reachable by untrusted clients"},
			AvoidWhen:   []string{"Long-lived streaming responses, where WriteTimeout must be extended per request with http.ResponseController"},
			Sections: howAndPitfalls(
				"Construct &http.Server{Addr, Handler, ReadHeaderTimeout: 5s, ...} and call its ListenAndServe.",
				"WriteTimeout covers the whole handler for HTTP/1; streaming endpoints need SetWriteDeadline per request."),
			Related: []string{"graceful-shutdown", "request-body-limit"},
		},
		{
			ID: "http-client-reuse", Title: "Reusing HTTP clients", Category: HTTP, Difficulty: Beginner,
			Tags:        []string{"http", "client", "connection-pooling", "timeouts"},
			Description: "Create one http.Client with a timeout and share it, because its Transport pools connections; always drain and close response bodies so connections return to the pool, and pass a context per request.",
			UseWhen:     []string{"Calling other HTTP services repeatedly"},
			AvoidWhen:   []string{"Creating a new Client or Transport per request, which defeats pooling"},
			Sections: howAndPitfalls(
				"Build requests with http.NewRequestWithContext, check the status code before reading, and defer resp.Body.Close().",
				"http.DefaultClient has no timeout. An unread body prevents connection reuse."),
			Related: []string{"retry-backoff", "context-cancellation"},
		},
		{
			ID: "request-body-limit", Title: "Limiting request bodies", Category: HTTP, Difficulty: Intermediate,
			Tags:        []string{"http", "security", "limits", "validation"},
			Description: "Wrap r.Body with http.MaxBytesReader before reading so an oversized upload fails fast with *http.MaxBytesError and a 413 instead of exhausting memory.",
			UseWhen:     []string{"Handlers read request bodies from untrusted clients"},
			AvoidWhen:   []string{"The handler never reads the body"},
			Sections: howAndPitfalls(
				"r.Body = http.MaxBytesReader(w, r.Body, 1<<20); any read beyond the limit errors and the server closes the connection after the response.",
				"io.ReadAll on an unbounded body is a memory-exhaustion bug. Check errors.As for *http.MaxBytesError to choose 413."),
			Related: []string{"json-api-handler", "limit-reader"},
		},
	}
}
