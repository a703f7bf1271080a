package engine

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"time"
)

// jsonValue turns a value read from an engine into one encoding/json writes
// faithfully: exact digits for big and decimal numbers, strings for NaN and
// infinities, dates as YYYY-MM-DD, timestamps with a time zone as RFC 3339 and
// those without as RFC 3339 without the offset, maps as key/value lists
// when their keys are not strings.
func jsonValue(v any, dbType string) any {
	switch x := v.(type) {
	case nil, bool, string, int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint:
		return x
	case float32:
		return jsonFloat32(x)
	case float64:
		return jsonFloat(x)
	case *big.Int:
		if x == nil {
			return nil
		}
		return jsonNumber(x.String())
	case time.Time:
		switch strings.ToUpper(dbType) {
		case "DATE":
			return x.Format(time.DateOnly)
		case "TIME", "TIMETZ", "TIME WITH TIME ZONE":
			return x.Format("15:04:05.999999")
		case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "DATETIME":
			// A timestamp without a time zone: no offset, as both engines write
			// it themselves (a "Z" would say it is UTC, which it need not be).
			return x.Format("2006-01-02T15:04:05.999999999")
		}
		return x.Format(time.RFC3339Nano)
	case []byte:
		if strings.EqualFold(dbType, "UUID") && len(x) == 16 {
			return formatUUID(x)
		}
		return x // base64, as encoding/json writes it
	case [16]byte:
		return formatUUID(x[:])
	case netip.Prefix, netip.Addr:
		return fmt.Sprint(x)
	case json.Number:
		return jsonNumber(string(x))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e, "")
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e, "")
		}
		return out
	case fmt.Stringer:
		return x.String()
	}
	if m, ok := v.(json.Marshaler); ok {
		if b, err := m.MarshalJSON(); err == nil && json.Valid(b) {
			if len(b) > 0 && (b[0] == '-' || b[0] >= '0' && b[0] <= '9') {
				return jsonNumber(string(b)) // PostgreSQL's numeric
			}
			return json.RawMessage(b)
		}
	}
	// Maps with non-string keys (DuckDB MAP) become [{key, value}…] in key order.
	if m, ok := asAnyMap(v); ok {
		out := make([]map[string]any, 0, len(m))
		for k, e := range m {
			out = append(out, map[string]any{"key": jsonValue(k, ""), "value": jsonValue(e, "")})
		}
		sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]["key"]) < fmt.Sprint(out[j]["key"]) })
		return out
	}
	if _, err := json.Marshal(v); err == nil {
		return v
	}
	return fmt.Sprint(v)
}

// maxJSONNumber is the longest number (in characters) sent as a JSON number;
// a longer one is sent as a string (wideNumber).
const maxJSONNumber = 1000

// wideNumber reports whether the JSON number s is one that common JSON parsers
// cannot read: past float64's range (1e999, a BIGNUM or numeric of 309 digits
// or more: Go's encoding/json refuses it, Python's json.loads refuses an
// integer of more than 4,300 digits), or longer than maxJSONNumber characters
// (Jackson's default bound). Digits past float64's precision are fine: parsers
// read them, rounded (a HUGEINT, a DECIMAL(38,0)).
func wideNumber(s string) bool {
	if len(s) > maxJSONNumber {
		return true
	}
	f, err := strconv.ParseFloat(s, 64)
	return err != nil || math.IsInf(f, 0)
}

// jsonNumber is the number s (JSON's syntax) as sent: a json.Number, or the
// string of its text when wideNumber finds it too wide for common parsers.
func jsonNumber(s string) any {
	if wideNumber(s) {
		return s
	}
	return json.Number(s)
}

// jsonFloat writes NaN and the infinities, which JSON has no number for, as the
// strings PostgreSQL and JavaScript write them: "NaN", "Infinity", "-Infinity".
func jsonFloat(f float64) any {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return f
}

// jsonFloat32 is jsonFloat for a REAL (FLOAT): a number with the shortest digits
// that read back as the same float32 (0.1, 19.99), as DuckDB and PostgreSQL
// write it (float64's digits of the same value are 0.10000000149011612), in
// encoding/json's form for a float32.
func jsonFloat32(x float32) any {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return jsonFloat(f)
	}
	form := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		form = 'e'
	}
	s := strconv.FormatFloat(f, form, -1, 32)
	if n := len(s); form == 'e' && n >= 4 && s[n-4] == 'e' && s[n-3] == '-' && s[n-2] == '0' {
		s = s[:n-2] + s[n-1:] // 1e-07 → 1e-7, as encoding/json writes it
	}
	return json.Number(s)
}

func formatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
