package engine

import (
	"encoding/json"
	"testing"
)

// TestPGArrayText: PostgreSQL's text form of arrays, as array_out writes them
// (read by pgx's parser), becomes nested JSON arrays of the elements' text, NULL
// null; text that is not an array is refused. array_out quotes every element that
// is empty, holds a blank, a delimiter, a brace, a quote or a backslash, or spells
// NULL in any case, so bare elements are plain words.
func TestPGArrayText(t *testing.T) {
	for _, tc := range []struct {
		in    string
		delim byte
		want  string // JSON, or "" for refused
	}{
		{`{}`, ',', `[]`},
		{`{"1 day","2 days"}`, ',', `["1 day","2 days"]`},
		{`{sad,happy,NULL}`, ',', `["sad","happy",null]`},
		{`{"NULL",NULL,"a\"b\\c","null"}`, ',', `["NULL",null,"a\"b\\c","null"]`},
		{`{"",""," a "}`, ',', `["",""," a "]`},
		{`{{"1 day",NULL},{"3 days","4 days"}}`, ',', `[["1 day",null],["3 days","4 days"]]`},
		{`{"(1,\"x y\")","(2,)"}`, ',', `["(1,\"x y\")","(2,)"]`},
		{`{(1,1),(0,0);(3,3),(2,2)}`, ';', `["(1,1),(0,0)","(3,3),(2,2)"]`},
		{`[0:1]={a,b}`, ',', `["a","b"]`},
		{`{"[1,5)",empty}`, ',', `["[1,5)","empty"]`},
		{`{{{1}}}`, ',', `[[["1"]]]`},
		{`1 day`, ',', ``},
		{`{a,b`, ',', ``},
		{`{"a}`, ',', ``},
		{`{a}x`, ',', ``},
		{`[1:2]{a}`, ',', ``},
	} {
		v, ok := pgArray(tc.in, tc.delim)
		if tc.want == "" {
			if ok {
				t.Errorf("%s: accepted as %v", tc.in, v)
			}
			continue
		}
		got, _ := json.Marshal(v)
		if !ok || string(got) != tc.want {
			t.Errorf("%s: %s (ok %v), want %s", tc.in, got, ok, tc.want)
		}
	}
}
