package catalog

func errorPatterns() []Pattern {
	return []Pattern{
		{
			ID: "sentinel-errors", Title: "Sentinel errors", Category: Errors, Difficulty: Beginner,
			Tags:        []string{"errors", "errors-is", "api-design"},
			Description: "Export a package-level error value such as ErrNotFound for a condition callers must detect, and let them test for it with errors.Is so wrapping along the way does not break the check.",
			UseWhen:     []string{"Callers branch on a specific, stable condition", "The condition needs no extra data"},
			AvoidWhen:   []string{"Callers need details such as which key or which field: use an error type", "The condition is an implementation detail you may change"},
			Sections: howAndPitfalls(
				"Declare var ErrX = errors.New(\"pkg: x\") once; return it (possibly wrapped with %w); callers use errors.Is(err, pkg.ErrX).",
				"Comparing with == breaks as soon as anyone wraps the error. Every exported sentinel is API you must keep."),
			Related: []string{"wrap-errors", "custom-error-type"},
		},
		{
			ID: "wrap-errors", Title: "Wrapping errors with context", Category: Errors, Difficulty: Beginner,
			Tags:        []string{"errors", "wrapping", "fmt-errorf", "context"},
			Description: "Add what you were doing when an error happened with fmt.Errorf and the %w verb, so the message reads like a path to the failure while errors.Is and errors.As still see the original cause.",
			UseWhen:     []string{"Returning an error from a lower layer up the call stack", "The caller would not know which operation failed"},
			AvoidWhen:   []string{"The wrapped error would expose an implementation detail you do not want callers to depend on: use %v"},
			Sections: howAndPitfalls(
				"Wrap with a short description of the operation, e.g. fmt.Errorf(\"open config %s: %w\", path, err). Messages compose into open config x: permission denied.",
				"Do not repeat information the inner error already carries (the path from os.Open). Avoid starting messages with 'failed to'."),
			Related: []string{"sentinel-errors", "errors-join"},
		},
		{
			ID: "custom-error-type", Title: "Custom error types", Category: Errors, Difficulty: Intermediate,
			Tags:        []string{"errors", "errors-as", "types", "api-design"},
			Description: "Define a struct type implementing error when callers need structured data about a failure, such as the field that failed validation, and let them extract it with errors.As.",
			UseWhen:     []string{"Callers need data about the failure, not just its kind", "You want to attach an underlying cause through an Unwrap method"},
			AvoidWhen:   []string{"A sentinel is enough", "The data is only for humans: put it in the message"},
			Sections: howAndPitfalls(
				"Implement Error() on a pointer receiver, add Unwrap() error when there is a cause, and return *MyError. Callers declare var e *MyError and call errors.As(err, &e).",
				"Returning a typed nil pointer as error makes err != nil true. Mixing value and pointer receivers makes errors.As miss."),
			Related: []string{"sentinel-errors", "error-behaviour"},
		},
		{
			ID: "errors-join", Title: "Joining multiple errors", Category: Errors, Difficulty: Intermediate,
			Tags:        []string{"errors", "validation", "multi-error", "cleanup"},
			Description: "Collect several independent failures, for example every invalid field of a form or every close error during shutdown, into one error with errors.Join; errors.Is and errors.As search all of them.",
			UseWhen:     []string{"Reporting all validation problems at once", "Cleanup steps can each fail and all must run"},
			AvoidWhen:   []string{"The first error makes the rest meaningless"},
			Sections: howAndPitfalls(
				"errors.Join ignores nil arguments and returns nil when all are nil, so you can accumulate with err = errors.Join(err, next).",
				"The joined message separates errors with newlines; format accordingly in logs."),
			Related: []string{"error-group", "defer-close-errors"},
		},
		{
			ID: "panic-recover-boundary", Title: "Recover at a boundary", Category: Errors, Difficulty: Advanced,
			Tags:        []string{"panic", "recover", "robustness", "errors"},
			Description: "Let panics mean bugs, but stop them at a boundary where one bad request must not take the whole process down: a deferred recover in the request handler or job runner turns the panic into an error and logs the stack.",
			UseWhen:     []string{"A server runs untrusted or third-party handlers", "A library uses panic internally and must return errors at its API"},
			AvoidWhen:   []string{"Using panic/recover as ordinary control flow", "Recovering hides a corrupted invariant that should stop the program"},
			Sections: howAndPitfalls(
				"A deferred function calls recover(); if it returns non-nil, assign to a named error result. recover only works in a function deferred by the panicking goroutine.",
				"A panic in another goroutine is not caught. Re-panic on values you do not understand, such as http.ErrAbortHandler."),
			Related: []string{"custom-error-type"},
		},
		{
			ID: "defer-close-errors", Title: "Checking errors from deferred Close", Category: Errors, Difficulty: Intermediate,
			Tags:        []string{"errors", "defer", "files", "cleanup"},
			Description: "When writing a file, the error from Close can be the one that reports lost data. Capture it in a named result from the deferred call instead of discarding it.",
			UseWhen:     []string{"Closing a writer that buffers (files, gzip, bufio)", "Data loss must be reported to the caller"},
			AvoidWhen:   []string{"Closing a reader, where the Close error rarely matters"},
			Sections: howAndPitfalls(
				"Use a named error result and defer func(){ err = errors.Join(err, f.Close()) }() so both the write and the close errors survive.",
				"A plain defer f.Close() silently drops the error. Calling Close twice returns an error on the second call for *os.File."),
			Related: []string{"errors-join", "atomic-file-write"},
		},
		{
			ID: "error-behaviour", Title: "Asserting error behaviour", Category: Errors, Difficulty: Advanced,
			Tags:        []string{"errors", "interfaces", "errors-as", "decoupling"},
			Description: "Instead of depending on a concrete error type from another package, check whether an error has a behaviour through a small interface, such as Timeout() bool or Temporary() bool, with errors.As on an interface target.",
			UseWhen:     []string{"Several packages report the same kind of condition with different types", "You want callers to avoid importing your error types"},
			AvoidWhen:   []string{"One exported type or sentinel already expresses the condition"},
			Sections: howAndPitfalls(
				"Declare a local interface (type timeout interface{ Timeout() bool }) and call errors.As(err, &t) with a variable of that interface type.",
				"Behaviour methods are promises: document exactly what true means. Temporary was deprecated in net because its meaning was unclear."),
			Related: []string{"custom-error-type", "small-interfaces"},
		},
		{
			ID: "retry-backoff", Title: "Retry with exponential backoff", Category: Errors, Difficulty: Intermediate,
			Tags:        []string{"retry", "backoff", "resilience", "context", "network"},
			Description: "Retry operations that fail transiently with delays that double each attempt, add jitter so clients do not retry in lockstep, cap the number of attempts and stop as soon as the context ends.",
			UseWhen:     []string{"Calling a network service that may briefly fail", "The operation is idempotent"},
			AvoidWhen:   []string{"The operation is not idempotent", "Errors are permanent, such as validation failures: classify errors first"},
			Sections: howAndPitfalls(
				"Loop up to N times; on a retryable error wait base<<attempt plus random jitter in a select with ctx.Done(); return the last error wrapped with the attempt count.",
				"Retrying at every layer multiplies attempts. Sleeping with time.Sleep ignores cancellation."),
			Related: []string{"context-cancellation", "error-behaviour"},
		},
	}
}
