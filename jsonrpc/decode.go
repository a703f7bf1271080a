package jsonrpc

import (
	"bytes"
	"fmt"
)

// Default limits of the decoder.
const (
	// DefaultMaxSize is the default largest frame, in bytes, that Decode accepts (4 MiB).
	DefaultMaxSize = 4 << 20
	// DefaultMaxDepth is the default deepest nesting of arrays and objects (64).
	DefaultMaxDepth = 64
	// DefaultMaxBatch is the default largest number of messages in a batch (1000).
	DefaultMaxBatch = 1000
)

// Limits bounds what Decode accepts. A zero field means its default.
type Limits struct {
	MaxSize  int // bytes; default DefaultMaxSize
	MaxDepth int // nesting of objects and arrays; default DefaultMaxDepth
	// MaxBatch is the largest number of messages in a batch; a longer batch is
	// refused whole with one Invalid Request error (each of its calls would
	// otherwise run and hold a response). Zero means DefaultMaxBatch; negative
	// means no limit.
	MaxBatch int
}

func (l *Limits) values() (size, depth, batch int) {
	size, depth, batch = DefaultMaxSize, DefaultMaxDepth, DefaultMaxBatch
	if l != nil {
		if l.MaxSize > 0 {
			size = l.MaxSize
		}
		if l.MaxDepth > 0 {
			depth = l.MaxDepth
		}
		if l.MaxBatch != 0 {
			batch = l.MaxBatch
		}
	}
	return size, depth, batch
}

// Decode parses one frame: a single message or a batch.
//
// It is strict: the "jsonrpc" member must be "2.0"; member names are matched exactly
// (case-sensitive); duplicate members, invalid UTF-8, frames over the size limit and
// nesting over the depth limit are rejected; unknown members are ignored.
//
// The rules in detail:
//   - Member names are compared after unescaping, so "meth\u006fd" is "method".
//     A member whose name differs from a known one ("jsonrpc", "id", "method",
//     "params", "result", "error"; inside an error "code", "message", "data") only by
//     case makes the message invalid, rather than being ignored as unknown.
//   - Duplicate member names are rejected at every depth, including inside params,
//     result and error data, so no two JSON parsers can disagree about a value.
//   - Depth counts every array and object, the outermost included: a message is at
//     depth 1, its params object at depth 2; in a batch, the elements are at depth 2.
//   - A request has a string "method", an optional "id" (a string or a number, never
//     null) and optional "params" (an object or an array). It has no "result" or
//     "error".
//   - A response has "result" (any value) or "error" (an object with an integer
//     "code", a string "message" and optional "data"), never both, and no "method"
//     or "params". Its "id" is a string, a number or null, and may be absent only in
//     an error response (MCP 2025-11-25 omits the id when it could not be determined).
//
// A frame that is not JSON (including invalid UTF-8) returns an error wrapping
// ErrParse. A frame that is JSON but not a valid message returns an error wrapping
// ErrInvalidRequest (an empty batch, a frame over the size limit and nesting over the
// depth limit included); for an invalid single message Decode also returns an
// *Invalid saying whom to answer (see Invalid). A batch returns a Batch whose invalid
// elements are *Invalid.
// A message with "id" and "method" is a *Request; without "method" a *Response; a
// request id must be a string or a number, never null.
//
// The returned message aliases data (Params, Result and Error.Data are sub-slices
// of it): the caller must not modify data afterwards. Decode is safe for concurrent
// use.
func Decode(data []byte, lim *Limits) (Message, error) {
	maxSize, maxDepth, maxBatch := lim.values()
	if len(data) > maxSize {
		return nil, &Error{Code: CodeInvalidRequest,
			Message: fmt.Sprintf("Invalid Request: message of %d bytes exceeds the limit of %d bytes", len(data), maxSize)}
	}
	s := newScanner(data, maxDepth)
	defer s.free()
	s.skipWS()
	if s.pos >= len(data) {
		return nil, s.syntax("empty message")
	}
	var msg Message
	var err *Error
	switch data[s.pos] {
	case '{':
		msg, err = s.message(1)
	case '[':
		msg, err = s.batch(maxBatch)
	default:
		if err = s.value(1); err == nil {
			msg = &Invalid{ID: NullID, Err: &Error{Code: CodeInvalidRequest, Message: "Invalid Request: not an object or an array"}}
		}
	}
	if err != nil {
		return nil, err
	}
	s.skipWS()
	if s.pos < len(data) {
		return nil, s.syntax("data after the message at offset %d", s.pos)
	}
	if inv, ok := msg.(*Invalid); ok {
		return inv, inv.Err
	}
	return msg, nil
}

// Member bits of a message object.
const (
	mVersion = 1 << iota
	mID
	mMethod
	mParams
	mResult
	mError
)

var memberNames = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// message parses an object at s.pos. A semantic problem yields an *Invalid message
// (and no error); a syntax problem or the depth limit yields an error.
func (s *scanner) message(depth int) (Message, *Error) {
	if depth > s.maxDepth {
		return nil, s.tooDeep()
	}
	s.sem = nil
	s.pos++ // '{'
	base := len(s.keys)
	defer func() { s.keys = s.keys[:base] }()
	var (
		seen     int
		id       ID
		idOK     bool // id is a string or a number, given once
		idLike   bool // some member is named "id" in any letter case
		method   string
		methodOK bool // method is a string
		params   []byte
		result   []byte
		errObj   *Error
		big      map[string]struct{}
	)
	s.skipWS()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
	} else {
		for more := true; more; {
			name, err := s.key()
			if err != nil {
				return nil, err
			}
			s.addKey(base, name, &big)
			if err := s.expect(':'); err != nil {
				return nil, err
			}
			s.skipWS()
			bit := 0
			for i, n := range memberNames {
				if string(name) == n {
					bit = 1 << i
					break
				}
				if bytes.EqualFold(name, []byte(n)) {
					s.invalid("member %q must be spelled %q", name, n)
					break
				}
			}
			if len(name) == 2 && bytes.EqualFold(name, []byte("id")) {
				idLike = true
			}
			repeated := seen&bit != 0
			seen |= bit
			start := s.pos
			switch bit {
			case mVersion:
				if s.pos < len(s.data) && s.data[s.pos] == '"' {
					st, end, esc, err := s.str()
					if err != nil {
						return nil, err
					}
					v := s.data[st:end]
					if esc {
						v = unescape(nil, v)
					}
					if string(v) != Version {
						s.invalid(`"jsonrpc" must be "2.0"`)
					}
					break
				}
				if err := s.value(depth + 1); err != nil {
					return nil, err
				}
				s.invalid(`"jsonrpc" must be "2.0"`)
			case mID:
				var err *Error
				id, idOK, err = s.id(depth + 1)
				if err != nil {
					return nil, err
				}
				idOK = idOK && !repeated
			case mMethod:
				if s.pos < len(s.data) && s.data[s.pos] == '"' {
					st, end, esc, err := s.str()
					if err != nil {
						return nil, err
					}
					if esc {
						method = string(unescape(nil, s.data[st:end]))
					} else {
						method = string(s.data[st:end])
					}
					methodOK = true
					break
				}
				if err := s.value(depth + 1); err != nil {
					return nil, err
				}
				s.invalid(`"method" must be a string`)
			case mParams:
				if err := s.value(depth + 1); err != nil {
					return nil, err
				}
				params = s.data[start:s.pos]
				// JSON-RPC 2.0 section 4.2: params, when present, is structured
				// (an object or an array).
				if c := params[0]; c != '{' && c != '[' {
					s.invalid(`"params" must be an object or an array`)
				}
			case mResult:
				if err := s.value(depth + 1); err != nil {
					return nil, err
				}
				result = s.data[start:s.pos]
			case mError:
				var err *Error
				if errObj, err = s.errorObject(depth + 1); err != nil {
					return nil, err
				}
			default:
				if err := s.value(depth + 1); err != nil {
					return nil, err
				}
			}
			if more, err = s.next('}'); err != nil {
				return nil, err
			}
		}
	}

	if seen&mVersion == 0 {
		s.invalid(`missing "jsonrpc":"2.0"`)
	}
	switch {
	case seen&mMethod != 0:
		if seen&(mResult|mError) != 0 {
			s.invalid("a request cannot carry %q or %q", "result", "error")
		}
		if seen&mID != 0 && !idOK {
			s.invalid(`a request "id" must be a string or a number`)
		}
	case seen&(mResult|mError) != 0:
		if seen&mParams != 0 {
			s.invalid("a response cannot carry %q", "params")
		}
		if seen&(mResult|mError) == mResult|mError {
			s.invalid("a response carries %q or %q, not both", "result", "error")
		}
		if seen&mID == 0 && seen&mError == 0 {
			s.invalid(`a result response needs an "id"`)
		}
	default:
		s.invalid("neither a request nor a response")
	}
	if s.sem != nil {
		inv := &Invalid{ID: NullID, Err: s.sem}
		// Answer a recognisable request with its own id, and never answer a
		// recognisable notification (JSON-RPC 2.0 section 4.1; MCP says a
		// notification is never answered, not even when it is malformed). Everything
		// else, responses included, is answered with "id": null.
		if methodOK {
			switch {
			case !idLike:
				inv.ID = ID{}
			case idOK:
				inv.ID = id
			}
		}
		s.sem = nil
		return inv, nil
	}
	if seen&mMethod != 0 {
		return &Request{ID: id, Method: method, Params: params}, nil
	}
	if errObj != nil {
		return &Response{ID: id, Error: errObj}, nil
	}
	return &Response{ID: id, Result: result}, nil
}

// id parses the value of an "id" member: a string or a number keeps its raw token;
// null gives NullID (ok false); anything else is recorded as invalid.
func (s *scanner) id(depth int) (id ID, ok bool, err *Error) {
	if s.pos >= len(s.data) {
		return ID{}, false, s.unexpected()
	}
	start := s.pos
	switch c := s.data[s.pos]; {
	case c == '"':
		if _, _, _, err := s.str(); err != nil {
			return ID{}, false, err
		}
	case c == '-' || c >= '0' && c <= '9':
		if _, err := s.number(); err != nil {
			return ID{}, false, err
		}
	case c == 'n':
		if err := s.literal("null"); err != nil {
			return ID{}, false, err
		}
		return NullID, false, nil
	default:
		if err := s.value(depth); err != nil {
			return ID{}, false, err
		}
		s.invalid(`"id" must be a string, a number or null`)
		return ID{}, false, nil
	}
	return ID{raw: string(s.data[start:s.pos])}, true, nil
}

// errorObject parses the value of an "error" member.
func (s *scanner) errorObject(depth int) (*Error, *Error) {
	if s.pos >= len(s.data) || s.data[s.pos] != '{' {
		if err := s.value(depth); err != nil {
			return nil, err
		}
		s.invalid(`"error" must be an object`)
		return nil, nil
	}
	if depth > s.maxDepth {
		return nil, s.tooDeep()
	}
	s.pos++
	base := len(s.keys)
	defer func() { s.keys = s.keys[:base] }()
	var (
		e        Error
		haveCode bool
		haveMsg  bool
		big      map[string]struct{}
	)
	s.skipWS()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
	} else {
		for more := true; more; {
			name, err := s.key()
			if err != nil {
				return nil, err
			}
			s.addKey(base, name, &big)
			if err := s.expect(':'); err != nil {
				return nil, err
			}
			s.skipWS()
			start := s.pos
			switch {
			case string(name) == "code":
				if s.pos < len(s.data) && (s.data[s.pos] == '-' || s.data[s.pos] >= '0' && s.data[s.pos] <= '9') {
					isInt, err := s.number()
					if err != nil {
						return nil, err
					}
					n, ok := parseInt64(s.data[start:s.pos])
					if !isInt || !ok {
						s.invalid(`error "code" must be an integer`)
					}
					e.Code, haveCode = n, true
					break
				}
				if err := s.value(depth + 1); err != nil {
					return nil, err
				}
				s.invalid(`error "code" must be an integer`)
			case string(name) == "message":
				if s.pos < len(s.data) && s.data[s.pos] == '"' {
					st, end, esc, err := s.str()
					if err != nil {
						return nil, err
					}
					if esc {
						e.Message = string(unescape(nil, s.data[st:end]))
					} else {
						e.Message = string(s.data[st:end])
					}
					haveMsg = true
					break
				}
				if err := s.value(depth + 1); err != nil {
					return nil, err
				}
				s.invalid(`error "message" must be a string`)
			case string(name) == "data":
				if err := s.value(depth + 1); err != nil {
					return nil, err
				}
				e.Data = s.data[start:s.pos]
			default:
				for _, n := range [...]string{"code", "message", "data"} {
					if bytes.EqualFold(name, []byte(n)) {
						s.invalid("error member %q must be spelled %q", name, n)
					}
				}
				if err := s.value(depth + 1); err != nil {
					return nil, err
				}
			}
			if more, err = s.next('}'); err != nil {
				return nil, err
			}
		}
	}
	if !haveCode || !haveMsg {
		s.invalid(`an error needs an integer "code" and a string "message"`)
	}
	return &e, nil
}

// parseInt64 parses a JSON integer token into an int64.
func parseInt64(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	if neg {
		if n > 1<<63 {
			return 0, false
		}
		return -int64(n), true
	}
	if n > 1<<63-1 {
		return 0, false
	}
	return int64(n), true
}

// batch parses an array of messages at s.pos (JSON-RPC 2.0 section 6), of at most
// max elements when max > 0.
func (s *scanner) batch(max int) (Message, *Error) {
	if s.maxDepth < 1 {
		return nil, s.tooDeep()
	}
	s.pos++ // '['
	s.skipWS()
	if s.pos < len(s.data) && s.data[s.pos] == ']' {
		s.pos++
		// An empty array is not a batch: it gets one Invalid Request reply.
		return &Invalid{ID: NullID, Err: &Error{Code: CodeInvalidRequest, Message: "Invalid Request: empty batch"}}, nil
	}
	b := make(Batch, 0, 4)
	for more := true; more; {
		if max > 0 && len(b) == max {
			return nil, &Error{Code: CodeInvalidRequest,
				Message: fmt.Sprintf("Invalid Request: a batch holds at most %d messages", max)}
		}
		s.skipWS()
		if s.pos < len(s.data) && s.data[s.pos] == '{' {
			m, err := s.message(2)
			if err != nil {
				return nil, err
			}
			b = append(b, m)
		} else {
			nested := s.pos < len(s.data) && s.data[s.pos] == '['
			if err := s.value(2); err != nil {
				return nil, err
			}
			msg := "Invalid Request: a batch element must be an object"
			if nested {
				msg = "Invalid Request: batches do not nest"
			}
			b = append(b, &Invalid{ID: NullID, Err: &Error{Code: CodeInvalidRequest, Message: msg}})
		}
		var err *Error
		if more, err = s.next(']'); err != nil {
			return nil, err
		}
	}
	return b, nil
}
