package mcp

import (
	"slices"

	revs "github.com/wiremcp/wiremcp/transport/revision"
)

// Protocol revisions this package speaks (the module's one list, shared with the
// transports).
const (
	Revision20241105 = revs.R20241105
	Revision20250326 = revs.R20250326
	Revision20250618 = revs.R20250618
	Revision20251125 = revs.R20251125
	Revision20260728 = revs.R20260728

	// LatestInitializeRevision is the newest revision negotiated through initialize,
	// and the server's counter-offer when a client asks for one it does not know.
	LatestInitializeRevision = Revision20251125
)

// revision holds every behaviour that differs by protocol revision. All
// revision-dependent decisions read this table; nothing else compares revision strings.
type revision struct {
	name string
	// batches: JSON-RPC batches may be sent and must be accepted (2025-03-26 only).
	batches bool
	// audio content, tool annotations, progress message, completions capability.
	audio, toolAnnotations, progressMessage, completionsCap bool
	// structured tool output, outputSchema, title fields, resource links,
	// elicitation (form), _meta on more objects.
	structured, titles, resourceLinks, elicitation bool
	// icons, URL-mode elicitation, sampling tools, tasks, Implementation.description/websiteUrl.
	icons, elicitURL, samplingTools, tasks bool
	// resourceNotFound is the error code for an unknown resource URI.
	resourceNotFound int64
	// stateless: the 2026-07-28 era (no initialize; per-request _meta).
	stateless bool
}

var revisionTable = []*revision{
	{name: Revision20241105, resourceNotFound: CodeResourceNotFound},
	{name: Revision20250326, batches: true, audio: true, toolAnnotations: true, progressMessage: true,
		completionsCap: true, resourceNotFound: CodeResourceNotFound},
	{name: Revision20250618, audio: true, toolAnnotations: true, progressMessage: true, completionsCap: true,
		structured: true, titles: true, resourceLinks: true, elicitation: true, resourceNotFound: CodeResourceNotFound},
	{name: Revision20251125, audio: true, toolAnnotations: true, progressMessage: true, completionsCap: true,
		structured: true, titles: true, resourceLinks: true, elicitation: true,
		icons: true, elicitURL: true, samplingTools: true, tasks: true, resourceNotFound: CodeResourceNotFound},
	{name: Revision20260728, audio: true, toolAnnotations: true, progressMessage: true, completionsCap: true,
		structured: true, titles: true, resourceLinks: true, elicitation: true,
		icons: true, elicitURL: true, samplingTools: true,
		resourceNotFound: -32602, stateless: true},
}

// lookupRevision returns the table row for name, or nil when unsupported.
func lookupRevision(name string) *revision {
	for _, r := range revisionTable {
		if r.name == name {
			return r
		}
	}
	return nil
}

// SupportedRevisions lists every revision this package speaks, oldest first.
func SupportedRevisions() []string {
	out := make([]string, len(revisionTable))
	for i, r := range revisionTable {
		out[i] = r.name
	}
	return out
}

// initializeRevisions lists the revisions negotiable through initialize.
func initializeRevisions() []string {
	return slices.DeleteFunc(SupportedRevisions(), func(s string) bool { return lookupRevision(s).stateless })
}

// negotiate picks the revision to answer an initialize request with: the requested
// one when supported (and of the initialize era), otherwise our latest.
func negotiate(requested string) *revision {
	if r := lookupRevision(requested); r != nil && !r.stateless {
		return r
	}
	return lookupRevision(LatestInitializeRevision)
}
