// Benchmarks with b.Loop: setup outside, measured work inside.
package benchtest

import (
	"strings"
	"testing"
)

func join(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p)
	}
	return b.String()
}

func BenchmarkJoin(b *testing.B) {
	parts := strings.Fields(strings.Repeat("go ", 100)) // setup: not timed
	b.ReportAllocs()
	for b.Loop() {
		join(parts)
	}
}
