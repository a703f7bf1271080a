package main

import (
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// TestPostgresLengthTypes: PostgreSQL's cast to varchar(n) or char(n) cuts a
// longer value without a word ("appleXYZ" matched the row "apple"), so such a
// value is refused before the query; DuckDB's VARCHAR(n) ignores its length.
func TestPostgresLengthTypes(t *testing.T) {
	for _, tc := range []struct {
		eng, typ, v string
		refused     bool
	}{
		{catalog.EnginePostgres, "varchar(5)", "apple", false},
		{catalog.EnginePostgres, "varchar(5)", "appleXYZ", true},
		{catalog.EnginePostgres, "character varying (5)", "äpfelX", true},
		{catalog.EnginePostgres, "VARCHAR(5)", "äpfel", false},
		{catalog.EnginePostgres, "char(3)", "abc  ", false},
		{catalog.EnginePostgres, "character(3)", "abcd", true},
		{catalog.EnginePostgres, "varchar", "a long value without a limit", false},
		// char and character without a length are char(1): "abc" became "a".
		{catalog.EnginePostgres, "char", "abc", true},
		{catalog.EnginePostgres, "CHARACTER", "ab", true},
		{catalog.EnginePostgres, "char", "a", false},
		{catalog.EnginePostgres, "bpchar", "a long value without a limit", false},
		// A name holds 63 bytes: 70 characters became 63, 40 "é" 31.
		{catalog.EnginePostgres, "name", strings.Repeat("x", 63), false},
		{catalog.EnginePostgres, "name", strings.Repeat("x", 70), true},
		{catalog.EnginePostgres, "NAME", strings.Repeat("é", 40), true},
		{catalog.EngineDuckDB, "CHAR", "abc", false},
		{catalog.EngineDuckDB, "VARCHAR(5)", "appleXYZ", false},
	} {
		_, err := bindParam(tc.eng, catalog.Param{Name: "v", Type: tc.typ}, tc.v)
		if tc.refused != (err != nil) {
			t.Errorf("%s %s %q: %v", tc.eng, tc.typ, tc.v, err)
		}
		if err != nil && !strings.Contains(err.Error(), `parameter "v" must be at most`) {
			t.Errorf("%s %q: message %v", tc.typ, tc.v, err)
		}
	}
	_, err := bindParam(catalog.EnginePostgres, catalog.Param{Name: "v", Type: "varchar(5)"}, "appleXYZ")
	if err == nil || err.Error() != `parameter "v" must be at most 5 characters (varchar(5)), got 8: PostgreSQL's cast would cut it to its first 5` {
		t.Errorf("message: %v", err)
	}

	svc := pgModelService(t, "-- @source names\nSELECT * FROM (VALUES ('apple'), ('pear')) AS t(name);\n\n"+
		"-- @query byname\n-- @param v varchar(5)\nSELECT name FROM names WHERE name = @v;\n")
	if got, te := runNamed(t, svc, "p/pg/m/byname", `{"v":"apple"}`); te != nil || !strings.Contains(got, `"Rows":[["apple"]]`) {
		t.Errorf("apple: %s %+v", got, te)
	}
	if _, te := runNamed(t, svc, "p/pg/m/byname", `{"v":"appleXYZ"}`); te == nil || te.Kind != "invalid" || !strings.Contains(te.Error, "at most 5 characters") {
		t.Errorf("appleXYZ matched or was not refused as the caller's: %+v", te)
	}
}

// TestParamMessagesText: the NUL refusal names \u0000 in letters (it held the
// character itself), and an integer or decimal given a boolean is told the kind.
func TestParamMessagesText(t *testing.T) {
	_, err := bindParam(catalog.EnginePostgres, catalog.Param{Name: "v", Type: "TEXT"}, "a\x00b")
	if err == nil || strings.IndexByte(err.Error(), 0) >= 0 || !strings.Contains(err.Error(), `NUL character (\u0000)`) {
		t.Errorf("NUL: %q", err)
	}
	for _, typ := range []string{"INTEGER", "DECIMAL(5,2)"} {
		_, err := bindParam(catalog.EngineDuckDB, catalog.Param{Name: "v", Type: typ}, true)
		if err == nil || !strings.HasSuffix(err.Error(), "got the boolean true") {
			t.Errorf("%s given true: %v", typ, err)
		}
	}
}

// TestPGUUIDReasons: a PostgreSQL UUID refused for an unbalanced brace is told
// that, not the hyphen rule; a DECIMAL(2,1) says "1 digit".
func TestPGUUIDReasons(t *testing.T) {
	for v, want := range map[string]string{
		"{123e4567e89b12d3a456426614174000":      "a brace opened or closed without the other",
		"123e4567-e89b1-2d3a456426614174000":     "PostgreSQL allows a hyphen only after a group of four digits",
		"123e4567e89b12d3a45642661417400":        "32 hexadecimal digits, in braces or not",
		"{123e4567-e89b-12d3-a456-426614174000}": "",
	} {
		if got := checkPGUUID(v); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("checkPGUUID(%q) = %q, want %q", v, got, want)
		}
	}
	_, err := bindParam(catalog.EngineDuckDB, catalog.Param{Name: "v", Type: "DECIMAL(2,1)"}, "12.5")
	if err == nil || !strings.Contains(err.Error(), "at most 1 digit before") {
		t.Errorf("DECIMAL(2,1): %v", err)
	}
}
