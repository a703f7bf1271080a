package conformance

// The protocol revisions the suite knows, oldest first. Revision ids are
// dates, so string order is chronological order.
const (
	Rev20241105 = "2024-11-05"
	Rev20250326 = "2025-03-26"
	Rev20250618 = "2025-06-18"
	Rev20251125 = "2025-11-25"
	Rev20260728 = "2026-07-28"
)

// Revisions lists every protocol revision the suite can test, oldest first.
var Revisions = []string{Rev20241105, Rev20250326, Rev20250618, Rev20251125, Rev20260728}

// Revision modes accepted by Options.Revision besides a revision id.
const (
	// RevisionNegotiate probes the server the way a dual-era client does
	// (server/discover, then initialize) and tests what it agrees to.
	RevisionNegotiate = "negotiate"
	// RevisionAll runs the suite once per known revision.
	RevisionAll = "all"
)

// latestLegacy is the newest revision of the initialize era.
const latestLegacy = Rev20251125

// isModern reports whether rev is a stateless-era revision (no initialize,
// per-request _meta).
func isModern(rev string) bool { return rev >= Rev20260728 }

// knownRevision reports whether rev is one of Revisions.
func knownRevision(rev string) bool {
	for _, r := range Revisions {
		if r == rev {
			return true
		}
	}
	return false
}

// inRange reports whether rev lies in [since, until]; an empty bound is open.
func inRange(rev, since, until string) bool {
	if since != "" && rev < since {
		return false
	}
	if until != "" && rev > until {
		return false
	}
	return true
}
