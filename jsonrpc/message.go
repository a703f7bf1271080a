package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Version is the only value the "jsonrpc" member may take.
const Version = "2.0"

// Message is one JSON-RPC 2.0 message. The set is closed: *Request, *Response,
// Batch and *Invalid are the only implementations.
type Message interface {
	isMessage()
}

// Request is a call (ID present) or a notification (ID absent).
// Params is kept as the raw bytes the peer sent until the layer above knows its type.
type Request struct {
	ID     ID
	Method string
	Params json.RawMessage

	// Header carries transport metadata about how the request arrived: the HTTP
	// request headers on HTTP transports, nil on stream transports. It is never
	// encoded; layers above use it to check headers against the body.
	Header map[string][]string
}

// IsNotification reports whether r carries no id member and so must never be answered.
func (r *Request) IsNotification() bool { return r.ID.IsAbsent() }

// Response answers a Request. Exactly one of Result and Error is set.
type Response struct {
	ID     ID
	Result json.RawMessage
	Error  *Error
}

// Batch is a JSON array of messages (JSON-RPC 2.0 section 6). Its elements are
// *Request, *Response or *Invalid; batches never nest.
type Batch []Message

// Invalid stands for a batch element that is not a valid message, and is what Decode
// returns (with the error) for a malformed single message. The peer is owed Err as a
// reply with ID: the request's own id when it could be read, null when it could not
// (or the message was shaped as a response). ID is absent when the message was
// recognisably a notification (a string "method", no "id"): it is owed no reply.
type Invalid struct {
	ID  ID
	Err *Error
}

func (*Request) isMessage()  {}
func (*Response) isMessage() {}
func (Batch) isMessage()     {}
func (*Invalid) isMessage()  {}

// ID is a JSON-RPC id exactly as the peer wrote it: a string stays a string, a number
// keeps its exact digits (no float64, no int64 wrap-around). The zero ID is absent
// (no "id" member); NullID is the JSON literal null.
//
// IDs are comparable with == and usable as map keys.
type ID struct {
	raw string // the raw JSON token; "" means absent
}

// NullID is the id "null", used in replies whose request id could not be determined.
var NullID = ID{raw: "null"}

// StringID returns an id holding the JSON string s.
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: string(b)}
}

// Int64ID returns an id holding the JSON integer n.
func Int64ID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// RawID returns an id from a raw JSON token: a string, a number or null. It returns an
// error for anything else (objects, arrays, booleans, malformed tokens).
func RawID(token []byte) (ID, error) {
	t := bytes.TrimSpace(token)
	if len(t) == 0 {
		return ID{}, errors.New("jsonrpc: empty id")
	}
	switch {
	case string(t) == "null":
		return NullID, nil
	case t[0] == '"':
		var s string
		if err := json.Unmarshal(t, &s); err != nil {
			return ID{}, fmt.Errorf("jsonrpc: bad string id: %w", err)
		}
		return ID{raw: string(t)}, nil
	case t[0] == '-' || (t[0] >= '0' && t[0] <= '9'):
		if !json.Valid(t) {
			return ID{}, fmt.Errorf("jsonrpc: bad number id %q", t)
		}
		return ID{raw: string(t)}, nil
	}
	return ID{}, fmt.Errorf("jsonrpc: id must be a string, a number or null, got %.20q", t)
}

// IsAbsent reports whether the id member was missing (a notification).
func (id ID) IsAbsent() bool { return id.raw == "" }

// IsNull reports whether the id is the JSON literal null.
func (id ID) IsNull() bool { return id.raw == "null" }

// IsString reports whether the id is a JSON string.
func (id ID) IsString() bool { return len(id.raw) > 0 && id.raw[0] == '"' }

// IsNumber reports whether the id is a JSON number.
func (id ID) IsNumber() bool {
	return len(id.raw) > 0 && (id.raw[0] == '-' || (id.raw[0] >= '0' && id.raw[0] <= '9'))
}

// IsInteger reports whether the id is a JSON number written without fraction or exponent.
func (id ID) IsInteger() bool {
	if !id.IsNumber() {
		return false
	}
	for i := 0; i < len(id.raw); i++ {
		switch id.raw[i] {
		case '.', 'e', 'E':
			return false
		}
	}
	return true
}

// Raw returns the id's JSON token exactly as received ("" when absent).
func (id ID) Raw() string { return id.raw }

// String returns the raw token, or "<absent>".
func (id ID) String() string {
	if id.raw == "" {
		return "<absent>"
	}
	return id.raw
}

// MarshalJSON writes the raw token; an absent id marshals as null.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON accepts a string, a number or null.
func (id *ID) UnmarshalJSON(b []byte) error {
	v, err := RawID(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}
