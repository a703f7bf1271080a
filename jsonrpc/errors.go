package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Standard JSON-RPC 2.0 error codes.
const (
	CodeParseError     int64 = -32700
	CodeInvalidRequest int64 = -32600
	CodeMethodNotFound int64 = -32601
	CodeInvalidParams  int64 = -32602
	CodeInternalError  int64 = -32603
)

// Error is the JSON-RPC error object. Data is kept as the raw bytes sent.
//
// Two Errors match under errors.Is when their codes are equal, so
// errors.Is(err, ErrInvalidParams) holds for any -32602, however it was wrapped.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Sentinels for the standard codes; compare with errors.Is.
var (
	ErrParse          = &Error{Code: CodeParseError, Message: "Parse error"}
	ErrInvalidRequest = &Error{Code: CodeInvalidRequest, Message: "Invalid Request"}
	ErrMethodNotFound = &Error{Code: CodeMethodNotFound, Message: "Method not found"}
	ErrInvalidParams  = &Error{Code: CodeInvalidParams, Message: "Invalid params"}
	ErrInternal       = &Error{Code: CodeInternalError, Message: "Internal error"}
)

func (e *Error) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("jsonrpc error %d: %s (data: %s)", e.Code, e.Message, e.Data)
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t != nil && e != nil && t.Code == e.Code
}

// NewError returns an error with the given code and message. data, when non-nil, is
// marshalled into Data (a json.RawMessage is used as is).
func NewError(code int64, message string, data any) *Error {
	e := &Error{Code: code, Message: message}
	if data != nil {
		switch d := data.(type) {
		case json.RawMessage:
			e.Data = d
		default:
			if b, err := json.Marshal(d); err == nil {
				e.Data = b
			}
		}
	}
	return e
}

// Errorf returns an error with code and a formatted message. A %w verb in format
// wraps the given error, but the code is always code.
func Errorf(code int64, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Errorf(format, args...).Error()}
}

// AsError converts any error into the *Error to put on the wire: an *Error found
// with errors.As keeps its code and data, and its message becomes err.Error() when the
// *Error was wrapped with extra context; anything else is -32603 with err's text.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e == err {
			return e
		}
		msg := e.Message
		// Keep the context that wrapping added, without repeating "jsonrpc error N".
		if outer := err.Error(); outer != e.Error() {
			msg = trimWrapped(outer, e.Error(), e.Message)
		}
		return &Error{Code: e.Code, Message: msg, Data: e.Data}
	}
	return &Error{Code: CodeInternalError, Message: err.Error()}
}

// trimWrapped replaces the inner error's full text inside outer with its bare message.
func trimWrapped(outer, inner, bare string) string {
	if i := len(outer) - len(inner); i >= 0 && outer[i:] == inner {
		return outer[:i] + bare
	}
	return outer
}
