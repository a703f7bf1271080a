package engine

import (
	"sync"

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
