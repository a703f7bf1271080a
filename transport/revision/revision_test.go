package revision

import (
	"slices"
	"testing"
)

func TestRevisions(t *testing.T) {
	all := All()
	if !slices.IsSorted(all) || len(all) != 5 {
		t.Fatalf("All() = %v, want five revisions, oldest first", all)
	}
	all[0] = "changed"
	if All()[0] != R20241105 {
		t.Fatal("All returns the package's own array")
	}
	for v, want := range map[string]bool{R20241105: true, R20250326: true, R20250618: true, R20251125: true, R20260728: false, "2025-01-01": false, "": false} {
		if got := Handshake(v); got != want {
			t.Errorf("Handshake(%q) = %v, want %v", v, got, want)
		}
	}
	if !OnOrAfter(R20251125, R20250618) || OnOrAfter(R20250618, R20251125) || !OnOrAfter(R20251125, R20251125) {
		t.Error("OnOrAfter does not order the revisions")
	}
}
