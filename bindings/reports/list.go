package reports

import (
	"slices"
	"strings"
)

// Matches reports whether s passes every non-empty filter of in. Category, status,
// source and lifecycle status compare exactly; tag matches when s carries it. A summary
// without a lifecycle status counts as unread.
func (in ListInput) Matches(s ReportSummary) bool {
	if in.Category != "" && s.Category != in.Category {
		return false
	}
	if in.Status != "" && s.Status != in.Status {
		return false
	}
	if in.Source != "" && s.Source != in.Source {
		return false
	}
	if in.Tag != "" && !slices.Contains(s.Tags, in.Tag) {
		return false
	}
	if in.LifecycleStatus != "" {
		ls := s.LifecycleStatus
		if ls == "" {
			ls = LifecycleUnread
		}
		if ls != in.LifecycleStatus {
			return false
		}
	}
	return true
}

// SortSummaries orders s the way REPORTS_LIST answers: updatedAt descending, then id
// ascending so that reports with the same time keep a stable order.
func SortSummaries(s []ReportSummary) {
	slices.SortStableFunc(s, compareSummaries)
}

func compareSummaries(a, b ReportSummary) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.ID, b.ID)
}

// Filter returns the summaries of all that match in, sorted by [SortSummaries].
// It never returns nil.
func Filter(all []ReportSummary, in ListInput) []ReportSummary {
	out := make([]ReportSummary, 0, len(all))
	for _, s := range all {
		if in.Matches(s) {
			out = append(out, s)
		}
	}
	SortSummaries(out)
	return out
}
