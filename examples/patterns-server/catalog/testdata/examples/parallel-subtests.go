// Parallel subtests: independent cases run at the same time.
package paralleltest

import (
	"strconv"
	"testing"
)

func TestParseParallel(t *testing.T) {
	cases := map[string]int{"1": 1, "42": 42, "-7": -7}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			got, err := strconv.Atoi(in)
			if err != nil || got != want {
				t.Fatalf("Atoi(%q) = %d, %v; want %d", in, got, err, want)
			}
		})
	}
}
