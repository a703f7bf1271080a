package jsonrpc

// Default limits of the decoder.
const (
	// DefaultMaxSize is the default largest frame, in bytes, that Decode accepts (4 MiB).
	DefaultMaxSize = 4 << 20
	// DefaultMaxDepth is the default deepest nesting of arrays and objects (64).
	DefaultMaxDepth = 64
)

// Limits bounds what Decode accepts. A zero field means its default.
type Limits struct {
	MaxSize  int // bytes; default DefaultMaxSize
	MaxDepth int // nesting of objects and arrays; default DefaultMaxDepth
}

// Decode parses one frame: a single message or a batch.
//
// It is strict: the "jsonrpc" member must be "2.0"; member names are matched exactly
// (case-sensitive); duplicate members, invalid UTF-8, frames over the size limit and
// nesting over the depth limit are rejected; unknown members are ignored.
//
// A frame that is not JSON returns an error wrapping ErrParse. A frame that is JSON but
// not a valid message returns an error wrapping ErrInvalidRequest (an empty array
// included). A batch returns a Batch whose invalid elements are *Invalid.
// A message with "id" and "method" is a *Request; without "method" a *Response; a
// request id must be a string or a number, never null.
func Decode(data []byte, lim *Limits) (Message, error) {
	panic("TODO")
}

// Encode appends the JSON encoding of msg to dst and returns it.
func Encode(dst []byte, msg Message) ([]byte, error) {
	panic("TODO")
}
