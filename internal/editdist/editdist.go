// Package editdist computes edit distances (Levenshtein) bounded by a limit, for
// the closest-name suggestions of the library and its examples: the work is
// O(len(a)·limit), not O(len(a)·len(b)), so a caller's long input cannot make a
// suggestion costly.
package editdist

// Rows holds the two rows a distance is computed with, reused from one call to
// the next. Its zero value is ready; it is not safe for concurrent use.
type Rows struct {
	prev, cur []int
}

// Within returns the edit distance between a and b (insertions, deletions and
// substitutions of one element each) when it is at most limit; ok is false when
// it is more. Only the cells within limit of the diagonal are computed (the
// others are past limit), and it gives up as soon as a whole row is past limit.
// A nil r computes with rows of its own.
func Within[E comparable](r *Rows, a, b []E, limit int) (d int, ok bool) {
	if limit < 0 || abs(len(a)-len(b)) > limit {
		return 0, false
	}
	if r == nil {
		r = new(Rows)
	}
	far := limit + 1
	if cap(r.prev) < len(b)+1 {
		r.prev, r.cur = make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev, cur := r.prev[:len(b)+1], r.cur[:len(b)+1]
	for j := range prev {
		prev[j] = min(j, far)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		cur[0] = min(i, far)
		if lo > 1 {
			cur[lo-1] = far
		}
		low := cur[lo-1]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, far)
			low = min(low, cur[j])
		}
		if hi < len(b) {
			cur[hi+1] = far
		}
		if low > limit {
			return 0, false
		}
		prev, cur = cur, prev
	}
	if prev[len(b)] > limit {
		return 0, false
	}
	return prev[len(b)], true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
