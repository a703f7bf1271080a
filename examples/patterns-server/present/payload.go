package present

// Payload kinds: the value of the "kind" member of every structured payload.
const (
	KindSearchResults = "patternSearchResults:v1"
	KindDetails       = "patternDetails:v1"
	KindNeedsInput    = "needsInput:v1"
	KindToolError     = "toolError:v1"
)

// Kinds lists every payload kind.
func Kinds() []string {
	return []string{KindSearchResults, KindDetails, KindNeedsInput, KindToolError}
}

// Contract markers embedded in the Markdown as HTML comments (invisible when
// rendered). IndexMarker appears once, right before the index table of a search
// rendering; CardMarker once at the start of each rendered card; DetailsMarker
// once at the start of a pattern's details.
const (
	IndexMarker     = "<!-- kind:pattern-index:v1 -->"
	CardMarker      = "<!-- kind:pattern-card:v1 -->"
	DetailsMarker   = "<!-- kind:pattern-details:v1 -->"
	ContractVersion = "v1"
)

// QueryEcho repeats the search arguments. Arguments that were not given are
// omitted, except Format, which always holds the format the response used.
// LimitCards and IncludeProvenancePanel are arguments of this server that the
// contract does not name; they are echoed under their own argument names.
type QueryEcho struct {
	Q                      *string `json:"q,omitempty"`
	Category               *string `json:"category,omitempty"`
	Difficulty             *string `json:"difficulty,omitempty"`
	Limit                  *int    `json:"limit,omitempty"`
	Format                 Format  `json:"format"`
	LimitCards             *int    `json:"limitCards,omitempty"`
	IncludeProvenancePanel *bool   `json:"includeProvenancePanel,omitempty"`
}

// ContractMarkers counts the markers in the Markdown rendering of a search:
// Index is how many IndexMarker comments it holds (always 1) and Cards how many
// CardMarker comments (= RenderedCards). The counts describe the rendering
// whether or not the chosen format includes it.
type ContractMarkers struct {
	Index   int    `json:"index"`
	Cards   int    `json:"cards"`
	Version string `json:"version"`
}

// SearchMetadata describes a search beyond its pattern list.
type SearchMetadata struct {
	// TotalCount is how many patterns matched, before the limit.
	TotalCount int `json:"totalCount"`
	// Categories and Difficulties tally all TotalCount matches; values with no
	// match are omitted.
	Categories   map[string]int `json:"categories"`
	Difficulties map[string]int `json:"difficulties"`
	// RenderedCards is how many patterns the Markdown shows as cards, and
	// RenderedCardIDs their ids: the first RenderedCards ids of patterns, in order.
	RenderedCards   int             `json:"renderedCards"`
	RenderedCardIDs []string        `json:"renderedCardIds"`
	ContractMarkers ContractMarkers `json:"contractMarkers"`
	// ReturnedCount (len(patterns): TotalCount capped by the limit) and
	// EffectiveLimit (the limit applied, the default when none was given) are
	// additions of this server.
	ReturnedCount  int `json:"returnedCount"`
	EffectiveLimit int `json:"effectiveLimit"`
}

// PatternSummary is one search hit in the contract's card summary format:
// id, title, category, difficulty, description and tags (never examples, use
// cases or related patterns).
type PatternSummary struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Category   string `json:"category"`
	Difficulty string `json:"difficulty"`
	// Description is the full description.
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	// Score is the search relevance (an addition of this server); 0 when the
	// query had no search words.
	Score int `json:"score"`
}

// SearchResults is the patternSearchResults:v1 payload.
type SearchResults struct {
	Kind     string         `json:"kind"`
	Query    QueryEcho      `json:"query"`
	Metadata SearchMetadata `json:"metadata"`
	// Patterns lists every match up to the limit, not only the rendered cards.
	Patterns []PatternSummary `json:"patterns"`
	// Provenance is included only when includeProvenancePanel was true.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// UseGuidance says when a pattern fits, each as one sentence-like string.
type UseGuidance struct {
	UseWhen   string `json:"useWhen"`
	AvoidWhen string `json:"avoidWhen"`
}

// Section types of patternDetails:v1 sections.
const (
	SectionDescription    = "description"
	SectionImplementation = "implementation"
	SectionPitfalls       = "pitfalls"
	SectionNotes          = "notes"
	SectionExample        = "example"
)

// SectionOut is a titled block of a pattern's details; Type says what it holds.
type SectionOut struct {
	Title   string `json:"title"`
	Content string `json:"content"`
	Type    string `json:"type"`
}

// ExampleOut is a complete Go source file.
type ExampleOut struct {
	Code     string `json:"code"`
	Language string `json:"language"`
	// Description says what the example shows.
	Description string `json:"description"`
	// File is the example's file name in the catalog (an addition of this server).
	File string `json:"file"`
}

// Provenance says where a payload's content came from and when it was produced.
// It holds no secret and no local path.
type Provenance struct {
	Source string `json:"source"`
	// Timestamp is ISO 8601 UTC with milliseconds, e.g. 2026-01-22T21:30:00.000Z.
	Timestamp string `json:"timestamp"`
	// Version is the catalog's content version.
	Version string `json:"version"`
	// Marker is the contract version, "v1".
	Marker string `json:"marker"`
}

// TimestampLayout formats provenance timestamps.
const TimestampLayout = "2006-01-02T15:04:05.000Z"

// Details is the patternDetails:v1 payload.
type Details struct {
	Kind        string       `json:"kind"`
	ID          string       `json:"id"`
	Title       string       `json:"title"`
	Category    string       `json:"category"`
	Difficulty  string       `json:"difficulty"`
	Summary     string       `json:"summary"`
	Description string       `json:"description"`
	Tags        []string     `json:"tags"`
	UseGuidance UseGuidance  `json:"useGuidance"`
	Sections    []SectionOut `json:"sections"`
	Examples    []ExampleOut `json:"examples"`
	// RelatedPatterns lists the ids of related patterns (possibly empty).
	RelatedPatterns []string   `json:"relatedPatterns"`
	Provenance      Provenance `json:"provenance"`
}

// InputRequest names the missing input.
type InputRequest struct {
	// Fields are the argument names the caller should supply.
	Fields []string `json:"fields"`
	// Reason says why the input is needed.
	Reason string `json:"reason"`
	// Suggestions maps each field to values worth offering (possibly empty).
	Suggestions map[string][]string `json:"suggestions,omitempty"`
}

// Option is one ready-made answer: set Field to Value and call the tool again.
type Option struct {
	Label       string `json:"label"`
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
	Field       string `json:"field,omitempty"`
}

// NeedsInput is the needsInput:v1 payload: a normal result asking for more
// input. Options is omitted when there are none.
type NeedsInput struct {
	Kind       string        `json:"kind"`
	Type       string        `json:"type"` // always "elicitation"
	Message    string        `json:"message"`
	NeedsInput *InputRequest `json:"needsInput,omitempty"`
	Options    []Option      `json:"options,omitempty"`
}

// Error codes of toolError:v1.
const (
	CodeNetwork        = "NETWORK_ERROR"
	CodeServer         = "SERVER_ERROR"
	CodeClient         = "CLIENT_ERROR"
	CodeNotFound       = "NOT_FOUND"
	CodeAuthentication = "AUTHENTICATION_ERROR"
	CodeUnknown        = "UNKNOWN_ERROR"
)

// ErrorCodes lists every toolError code.
func ErrorCodes() []string {
	return []string{CodeNetwork, CodeServer, CodeClient, CodeNotFound, CodeAuthentication, CodeUnknown}
}

// ToolError is the toolError:v1 payload.
type ToolError struct {
	Kind      string         `json:"kind"`
	Code      string         `json:"code"`
	Message   string         `json:"message"`
	Retryable *bool          `json:"retryable,omitempty"`
	Details   map[string]any `json:"details,omitempty"`
}

// Error makes *ToolError an error.
func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// NewToolError returns a toolError:v1 payload. details may be nil.
func NewToolError(code, message string, retryable bool, details map[string]any) *ToolError {
	return &ToolError{Kind: KindToolError, Code: code, Message: message, Retryable: &retryable, Details: details}
}

// Ptr returns a pointer to v, for filling optional arguments.
func Ptr[T any](v T) *T { return &v }
