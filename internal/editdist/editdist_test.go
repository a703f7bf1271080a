package editdist

import "testing"

// full is the whole table: the distance Within must give wherever it is within
// the limit.
func full[E comparable](a, b []E) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func TestWithinCases(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		limit int
		d     int
		ok    bool
	}{
		{"kitten", "sitting", 3, 3, true},
		{"kitten", "sitting", 2, 0, false},
		{"", "abc", 3, 3, true},
		{"abc", "abc", 0, 0, true},
		{"abcdefgh", "a", 3, 0, false},
		{"a", "b", -1, 0, false},
	} {
		d, ok := Within(nil, []byte(tc.a), []byte(tc.b), tc.limit)
		if d != tc.d || ok != tc.ok {
			t.Errorf("Within(%q, %q, %d) = %d, %v; want %d, %v", tc.a, tc.b, tc.limit, d, ok, tc.d, tc.ok)
		}
	}
	// By characters, not bytes: é is one edit.
	if d, ok := Within(nil, []rune("café"), []rune("cafe"), 1); !ok || d != 1 {
		t.Errorf("runes: %d %v", d, ok)
	}
	if d, ok := Within(nil, []byte("café"), []byte("cafe"), 1); ok {
		t.Errorf("bytes: é is two bytes, yet %d", d)
	}
}

// TestWithinAgainstTable: on every pair of short strings of few letters (many
// near misses) the band gives the table's distance whenever it is within the
// limit, and says so otherwise; one Rows reused for every call (other lengths,
// other limits) answers as fresh rows do.
func TestWithinAgainstTable(t *testing.T) {
	var words [][]rune
	var gen func(prefix []rune)
	gen = func(prefix []rune) {
		words = append(words, prefix)
		if len(prefix) < 5 {
			for _, c := range "aé" {
				gen(append(prefix[:len(prefix):len(prefix)], c))
			}
		}
	}
	gen(nil)
	var reused Rows
	for _, a := range words {
		for _, b := range words {
			want := full(a, b)
			for limit := 0; limit <= 4; limit++ {
				d, ok := Within(nil, a, b, limit)
				if ok != (want <= limit) || ok && d != want {
					t.Fatalf("Within(%q, %q, %d) = %d, %v; the distance is %d", string(a), string(b), limit, d, ok, want)
				}
				if rd, rok := Within(&reused, a, b, limit); rd != d || rok != ok {
					t.Fatalf("reused rows: (%q, %q, %d) = %d, %v; fresh: %d, %v", string(a), string(b), limit, rd, rok, d, ok)
				}
			}
		}
	}
}
