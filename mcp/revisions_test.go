package mcp

import (
	"slices"
	"testing"

	revs "github.com/wiremcp/wiremcp/transport/revision"
)

// The table has one row for each revision of the module's list, in its order, and
// only the rows of the handshake revisions negotiate through initialize.
func TestRevisionTableMatchesModuleList(t *testing.T) {
	if got, want := SupportedRevisions(), revs.All(); !slices.Equal(got, want) {
		t.Fatalf("revision table %v, module list %v", got, want)
	}
	for _, r := range revisionTable {
		if r.stateless == revs.Handshake(r.name) {
			t.Errorf("%s: stateless %v, but transport/revision says handshake %v", r.name, r.stateless, revs.Handshake(r.name))
		}
	}
}
