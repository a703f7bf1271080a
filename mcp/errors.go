package mcp

import (
	"errors"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// MCP error codes beyond the JSON-RPC ones.
const (
	// CodeResourceNotFound is the resource-not-found code up to 2025-11-25. From
	// 2026-07-28 the same case is answered with -32602.
	CodeResourceNotFound int64 = -32002
	// CodeURLElicitationRequired says the request needs a URL-mode elicitation first
	// (2025-11-25+); data.elicitations lists them.
	CodeURLElicitationRequired int64 = -32042
	// CodeHeaderMismatch: an HTTP header disagrees with the body (2026-07-28).
	CodeHeaderMismatch int64 = -32020
	// CodeMissingRequiredClientCapability (2026-07-28); data.requiredCapabilities.
	CodeMissingRequiredClientCapability int64 = -32021
	// CodeUnsupportedProtocolVersion (2026-07-28); data.supported and data.requested.
	CodeUnsupportedProtocolVersion int64 = -32022
)

var (
	// ErrResourceNotFound is returned (possibly wrapped) by a resource handler for an
	// unknown URI. The server answers with the negotiated revision's code, the
	// message "Resource not found" and the URI in data; a wrapping error's own words
	// (fmt.Errorf("%w: no such …; did you mean …", ErrResourceNotFound)) go in
	// data.detail. The server adds the listed URIs closest to the one asked for
	// (data.closest) and its URI templates (data.templates), as it does for a URI
	// that nothing matches.
	ErrResourceNotFound = errors.New("resource not found")

	// ErrCapabilityNotSupported is returned by server-to-client requests (sampling,
	// roots, elicitation) when the peer did not declare the capability they need, and
	// by client methods when the server did not declare the feature.
	ErrCapabilityNotSupported = errors.New("capability not declared by the peer")

	// ErrNotInitialized is returned when a session is used before its handshake ends.
	ErrNotInitialized = errors.New("session not initialized")
	// ErrQueueFull is returned when a notification for a session was dropped because
	// the session's queue (ServerOptions.MaxQueuedNotifications) was full.
	ErrQueueFull = errors.New("session notification queue full")

	// ErrSessionClosed is returned by calls on a session whose connection has ended.
	ErrSessionClosed = errors.New("session closed")
)

// URLElicitationRequiredError builds the -32042 error listing the URL-mode
// elicitations that must complete before the request can succeed.
func URLElicitationRequiredError(message string, elicitations ...*ElicitParams) *jsonrpc.Error {
	for _, e := range elicitations {
		e.Mode = ElicitModeURL
	}
	if message == "" {
		message = "This request requires more information."
	}
	return jsonrpc.NewError(CodeURLElicitationRequired, message, map[string]any{"elicitations": elicitations})
}

func invalidParams(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeInvalidParams, format, args...)
}

func methodNotFound(format string, args ...any) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, format, args...)
}
