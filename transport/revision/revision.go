// Package revision is the one list of MCP protocol revisions, shared by the
// transports (which only need the names, which of them negotiate through initialize,
// and their order) and package mcp (which keeps what differs between them in its own
// table, keyed by these names). It lives under transport/ so that the transports
// keep to their own tree, and imports nothing.
package revision

// The dated revisions, oldest first.
const (
	R20241105 = "2024-11-05"
	R20250326 = "2025-03-26"
	R20250618 = "2025-06-18"
	R20251125 = "2025-11-25"
	R20260728 = "2026-07-28"
)

// all lists every revision, oldest first.
var all = [...]string{R20241105, R20250326, R20250618, R20251125, R20260728}

// All returns every revision, oldest first, in a new slice.
func All() []string { return append([]string(nil), all[:]...) }

// Known reports whether v is one of All.
func Known(v string) bool {
	for _, r := range all {
		if r == v {
			return true
		}
	}
	return false
}

// Handshake reports whether v is negotiated through initialize (the revisions
// before 2026-07-28, which have sessions); false for 2026-07-28 and for unknown
// names.
func Handshake(v string) bool { return Known(v) && v < R20260728 }

// OnOrAfter reports whether revision v is ref or newer (dated revisions sort as
// strings).
func OnOrAfter(v, ref string) bool { return v >= ref }
