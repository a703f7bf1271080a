package engine

import "testing"

// TestSkipSpaceAndComments: the leading white space and comments of a statement
// are skipped as DuckDB's and PostgreSQL's lexers read them, for firstWord and
// pgFirstWord alike.
func TestSkipSpaceAndComments(t *testing.T) {
	for _, tt := range []struct{ in, rest, duck, pg string }{
		{"DELETE FROM t", "DELETE FROM t", "DELETE", "DELETE"},
		{"  \t\n\f\vupdate t", "update t", "UPDATE", "update"},
		{"\u00a0-- c\ninsert INTO t", "insert INTO t", "INSERT", "insert"},
		{"-- c\r\nmerge INTO t", "merge INTO t", "MERGE", "merge"},
		{"-- c\rINSERT INTO t", "INSERT INTO t", "INSERT", "INSERT"},
		{"/* a /* nested */ one */ -- d\n /* e */COPY t", "COPY t", "COPY", "COPY"},
		{"(SELECT 1)", "(SELECT 1)", "SELECT", ""},
		{"pivot_wider t", "pivot_wider t", "PIVOT", "pivot_wider"},
		{"-- only a comment", "", "", ""},
		{"/* open /* */", "", "", ""},
		{"", "", "", ""},
	} {
		if got := skipSpaceAndComments(tt.in); got != tt.rest {
			t.Errorf("skipSpaceAndComments(%q) = %q, want %q", tt.in, got, tt.rest)
		}
		if got := firstWord(tt.in); got != tt.duck {
			t.Errorf("firstWord(%q) = %q, want %q", tt.in, got, tt.duck)
		}
		if got := pgFirstWord(tt.in); got != tt.pg {
			t.Errorf("pgFirstWord(%q) = %q, want %q", tt.in, got, tt.pg)
		}
	}
}
