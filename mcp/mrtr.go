package mcp

import (
	"fmt"
)

// resolveInputRequest serves a server-to-client request in the 2026-07-28 era, where
// such requests travel as input_required results instead.
func resolveInputRequest[R any](ri *requestInfo, method string, params any) (*R, error) {
	return nil, fmt.Errorf("%s: %w: multi round-trip requests (2026-07-28) are not available yet", method, ErrCapabilityNotSupported)
}
