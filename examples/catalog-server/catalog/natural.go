package catalog

import "strings"

// CompareNames orders names naturally: a run of digits compares as the number
// it writes, so cell-2 comes before cell-10 (and a notebook's cells, cell-1 to
// cell-N, in their file's order); the rest compares byte by byte. Names that
// differ only in leading zeros (q01, q1) go by byte order, so two names compare
// equal only when they are the same name: a total order, the one listings are
// sorted in and their cursors continue by.
func CompareNames(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			ea, eb := digitsEnd(a, i), digitsEnd(b, j)
			na := strings.TrimLeft(a[i:ea], "0")
			nb := strings.TrimLeft(b[j:eb], "0")
			if len(na) != len(nb) {
				if len(na) < len(nb) {
					return -1
				}
				return 1
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			i, j = ea, eb
			continue
		}
		if a[i] != b[j] {
			if a[i] < b[j] {
				return -1
			}
			return 1
		}
		i++
		j++
	}
	switch {
	case i < len(a):
		return 1
	case j < len(b):
		return -1
	}
	return strings.Compare(a, b)
}

// ComparePaths orders paths segment by segment, each by CompareNames: an
// object's path comes right before those of its children.
func ComparePaths(a, b string) int {
	for {
		sa, ra, moreA := strings.Cut(a, "/")
		sb, rb, moreB := strings.Cut(b, "/")
		if c := CompareNames(sa, sb); c != 0 {
			return c
		}
		switch {
		case !moreA && !moreB:
			return 0
		case !moreA:
			return -1
		case !moreB:
			return 1
		}
		a, b = ra, rb
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}
