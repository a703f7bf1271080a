package catalog

import (
	"slices"
	"strings"
	"testing"
)

// TestClosestBounded: Closest's work is bounded whatever the caller wrote. A
// string longer than maxClosestInput characters has no close names, even
// names it contains (a path of 100,000 characters ending with a file's name
// used to be compared in full, with every name); the banded distance agrees
// with the whole table wherever it is within its limit, rows reused from one
// call to the next.
func TestClosestBounded(t *testing.T) {
	long := strings.Repeat("x/", 50000) + "orders.csv"
	if got := Closest(long, []string{"orders.csv", "data/orders.csv"}, 3); len(got) != 0 {
		t.Errorf("closest to a 100,000-character path: %q", got)
	}
	if got := Closest("data/ordres.csv", []string{"data/orders.csv", "other.csv"}, 3); !slices.Equal(got, []string{"data/orders.csv"}) {
		t.Errorf("closest to a misspelt path: %q", got)
	}
	// Far apart but for the cap: half of 80 characters would allow 41 edits.
	a, b := strings.Repeat("a", 40)+strings.Repeat("b", 40), strings.Repeat("a", 40)+strings.Repeat("c", 40)
	if got := Closest(a, []string{b}, 3); len(got) != 0 {
		t.Errorf("closest at distance 40: %q", got)
	}

	// The whole table of the optimal string alignment distance (a swap of
	// two neighbours is one edit).
	full := func(a, b []rune) int {
		d := make([][]int, len(a)+1)
		for i := range d {
			d[i] = make([]int, len(b)+1)
			d[i][0] = i
		}
		for j := range d[0] {
			d[0][j] = j
		}
		for i := 1; i <= len(a); i++ {
			for j := 1; j <= len(b); j++ {
				cost := 1
				if a[i-1] == b[j-1] {
					cost = 0
				}
				d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
				if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
					d[i][j] = min(d[i][j], d[i-2][j-2]+1)
				}
			}
		}
		return d[len(a)][len(b)]
	}
	var words []string
	var gen func(prefix string)
	gen = func(prefix string) {
		words = append(words, prefix)
		if len([]rune(prefix)) < 5 {
			for _, c := range "aé" {
				gen(prefix + string(c))
			}
		}
	}
	gen("")
	var dist runeDistancer
	for _, x := range words {
		for _, y := range words {
			a, b := []rune(x), []rune(y)
			want := full(a, b)
			for limit := 0; limit <= 4; limit++ {
				d, ok := dist.bounded(a, b, limit)
				if ok != (want <= limit) || ok && d != want {
					t.Fatalf("bounded(%q, %q, %d) = %d, %v; the distance is %d", x, y, limit, d, ok, want)
				}
			}
		}
	}
}
