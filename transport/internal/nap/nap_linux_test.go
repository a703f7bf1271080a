//go:build linux

package nap

import (
	"os"
	"testing"
	"time"
)

// TestCloseReleasesDescriptors: many Sleepers made and closed leave no descriptor open.
func TestCloseReleasesDescriptors(t *testing.T) {
	count := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	before := count()
	var ss []*Sleeper
	for range 20 {
		ss = append(ss, New())
	}
	if open := count(); open < before+60 {
		t.Fatalf("20 Sleepers hold %d descriptors, want 3 each", open-before)
	}
	for _, s := range ss {
		s.Wake()
		s.Sleep(time.Millisecond)
		s.Close()
	}
	if after := count(); after != before {
		t.Errorf("descriptors: %d before, %d after closing every Sleeper", before, after)
	}
}

func TestWaitMillis(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int
	}{
		{-time.Second, 0}, {0, 0}, {1, 1}, {time.Millisecond, 1},
		{time.Millisecond + 1, 2}, {1500 * time.Millisecond, 1500},
		{1 << 62, 1<<31 - 1},
	} {
		if got := waitMillis(c.d); got != c.want {
			t.Errorf("waitMillis(%v) = %d, want %d", c.d, got, c.want)
		}
	}
}
