package engine

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// pgArrayTexts decodes PostgreSQL's text form of any array (array_out) into its
// elements' text with pgx's own array parser: as text[] for the delimiter ',',
// and as a private array type of text elements for ';' (box). A pgtype.Map is not
// safe for concurrent use, hence the lock; such arrays are rare in results.
var pgArrayTexts = struct {
	sync.Mutex
	m *pgtype.Map
}{m: newArrayTextMap()}

// pgSemicolonTextArrayOID names, in pgArrayTexts' map only, an array of text
// whose elements are separated by ';'. PostgreSQL never sends it: OIDs of user
// types start at 16384 and this one is far above any a server hands out soon,
// and the map is used for nothing else.
const pgSemicolonTextArrayOID = 4_000_000_000

func newArrayTextMap() *pgtype.Map {
	m := pgtype.NewMap()
	text, _ := m.TypeForOID(pgtype.TextOID)
	m.RegisterType(&pgtype.Type{Name: "_text_semicolon", OID: pgSemicolonTextArrayOID, Codec: &pgtype.ArrayCodec{ElementType: text, Delimiter: ';'}})
	return m
}

// pgArray reads PostgreSQL's text form of an array — `{a,"b c",NULL,{…}}`,
// optionally after its bounds (`[0:1]={a,b}`, which are dropped) — into nested
// []any: each element the string PostgreSQL wrote for it, nil for NULL, an inner
// array for each further dimension. delim separates elements (',' but ';' for
// box). ok is false when s is not such text.
func pgArray(s string, delim byte) (v []any, ok bool) {
	oid := uint32(pgtype.TextArrayOID)
	switch delim {
	case ',':
	case ';':
		oid = pgSemicolonTextArrayOID
	default:
		return nil, false
	}
	var a pgtype.Array[*string]
	pgArrayTexts.Lock()
	err := pgArrayTexts.m.Scan(oid, pgtype.TextFormatCode, []byte(s), &a)
	pgArrayTexts.Unlock()
	if err != nil || !a.Valid {
		return nil, false
	}
	elems := make([]any, len(a.Elements))
	for i, e := range a.Elements {
		if e != nil {
			elems[i] = *e
		}
	}
	if len(a.Dims) == 0 {
		return []any{}, true
	}
	out, rest := nestDims(elems, a.Dims)
	if len(rest) != 0 {
		return nil, false
	}
	return out, true
}

// nestDims takes the elements of one array of the dimensions dims (the first
// outermost) from the front of flat, and returns it with the elements left.
func nestDims(flat []any, dims []pgtype.ArrayDimension) ([]any, []any) {
	n := int(dims[0].Length)
	out := make([]any, 0, n)
	for range n {
		if len(dims) == 1 {
			if len(flat) == 0 {
				return out, flat
			}
			out, flat = append(out, flat[0]), flat[1:]
			continue
		}
		var sub []any
		sub, flat = nestDims(flat, dims[1:])
		out = append(out, sub)
	}
	return out, flat
}

// pgManyDims says whether raw, an array's value in the format format, may have
// more than one dimension: its binary form's header says so (array_send: the
// number of dimensions first), or its text starts with "{{" or with bounds
// ("[1:2][1:1]={{1},{2}}"; "[0:1]={1,2}" too, read again for nothing).
func pgManyDims(format int16, raw []byte) bool {
	if format == pgtype.BinaryFormatCode {
		return len(raw) >= 4 && int32(binary.BigEndian.Uint32(raw)) > 1
	}
	return len(raw) >= 2 && (raw[0] == '{' && raw[1] == '{' || raw[0] == '[')
}

// pgArrayDims reads raw, the value of the array column fd, again with its
// dimensions, as arrays in arrays (nestDims) of the elements pgx decodes; flat,
// as rows.Values gave it, if it cannot.
func pgArrayDims(tm *pgtype.Map, fd pgconn.FieldDescription, raw []byte, flat any) any {
	var a pgtype.Array[any]
	if err := tm.Scan(fd.DataTypeOID, fd.Format, raw, &a); err != nil || !a.Valid || len(a.Dims) < 2 {
		return flat
	}
	out, rest := nestDims(a.Elements, a.Dims)
	if len(rest) != 0 {
		return flat
	}
	return out
}

// pgJSONValue is jsonValue for a value pgx decoded from PostgreSQL: an array's
// elements are written as its element type (typ without its leading "_":
// date[]'s as dates), and a date or time before 1 AD as PostgreSQL writes it
// (pgBC).
func pgJSONValue(v any, typ string) any {
	switch x := v.(type) {
	case []any:
		elem := strings.TrimPrefix(typ, "_")
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pgJSONValue(e, elem)
		}
		return out
	case time.Time:
		if x.Year() < 1 {
			return pgBC(x, typ)
		}
	}
	return jsonValue(v, typ)
}

// pgBC writes a date, timestamp or timestamptz t before 1 AD as jsonValue
// writes the type, but with PostgreSQL's year and " BC" after it, as PostgreSQL
// writes it and reads it back: 4713-01-01 BC (Go's astronomical year -4712,
// which PostgreSQL refuses), 0044-03-15T12:00:00 BC.
func pgBC(t time.Time, typ string) any {
	v := jsonValue(t, typ)
	s, ok := v.(string)
	if !ok {
		return v
	}
	// Go writes the year -4712 as "-4712", 0 as "0000": up to the next '-'.
	i := strings.IndexByte(s[1:], '-') + 1
	if i < 1 {
		return v
	}
	return fmt.Sprintf("%04d", 1-t.Year()) + s[i:] + " BC"
}
