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

// QueryEcho repeats the search arguments exactly as given; absent ones are omitted.
type QueryEcho struct {
	Q          *string `json:"q,omitempty"`
	Category   *string `json:"category,omitempty"`
	Difficulty *string `json:"difficulty,omitempty"`
	Limit      *int    `json:"limit,omitempty"`
	Format     *string `json:"format,omitempty"`
	LimitCards *int    `json:"limitCards,omitempty"`
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

// SearchMetadata describes a search beyond its result list.
type SearchMetadata struct {
	// TotalCount is how many patterns matched, before the limit.
	TotalCount int `json:"totalCount"`
	// ReturnedCount is len(results): TotalCount capped by Limit.
	ReturnedCount int `json:"returnedCount"`
	// Limit is the effective limit (the default when none was given).
	Limit int `json:"limit"`
	// CountsByCategory and CountsByDifficulty tally all TotalCount matches;
	// values with no match are omitted.
	CountsByCategory   map[string]int `json:"countsByCategory"`
	CountsByDifficulty map[string]int `json:"countsByDifficulty"`
	// RenderedCards is how many results the Markdown shows as cards, and
	// RenderedCardIDs their ids: the first RenderedCards ids of results, in order.
	RenderedCards   int             `json:"renderedCards"`
	RenderedCardIDs []string        `json:"renderedCardIds"`
	ContractMarkers ContractMarkers `json:"contractMarkers"`
}

// PatternSummary is one search hit.
type PatternSummary struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Category   string   `json:"category"`
	Difficulty string   `json:"difficulty"`
	Tags       []string `json:"tags"`
	// Summary is at most MaxSummaryChars characters, cut at a word boundary.
	Summary string `json:"summary"`
	// Score is the search relevance; 0 when the query had no search words.
	Score int `json:"score"`
}

// SearchResults is the patternSearchResults:v1 payload.
type SearchResults struct {
	Kind     string           `json:"kind"`
	Query    QueryEcho        `json:"query"`
	Metadata SearchMetadata   `json:"metadata"`
	Results  []PatternSummary `json:"results"`
}

// Guidance says when a pattern fits.
type Guidance struct {
	UseWhen   []string `json:"useWhen"`
	AvoidWhen []string `json:"avoidWhen"`
}

// SectionOut is a titled block of prose.
type SectionOut struct {
	Heading string `json:"heading"`
	Body    string `json:"body"`
}

// ExampleOut is a complete Go source file.
type ExampleOut struct {
	Title    string `json:"title"`
	Language string `json:"language"`
	File     string `json:"file"`
	Code     string `json:"code"`
}

// Provenance says where a payload's content came from and when it was produced.
type Provenance struct {
	Source         string `json:"source"`
	CatalogVersion string `json:"catalogVersion"`
	// URI names the pattern inside the catalog: patterns://catalog/<id>.
	URI string `json:"uri"`
	// RetrievedAt is an ISO 8601 (RFC 3339) UTC timestamp.
	RetrievedAt string `json:"retrievedAt"`
}

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
	Guidance    Guidance     `json:"guidance"`
	Sections    []SectionOut `json:"sections"`
	Examples    []ExampleOut `json:"examples"`
	Related     []string     `json:"related"`
	Provenance  Provenance   `json:"provenance"`
}

// InputRequest names the missing input.
type InputRequest struct {
	// Fields are the argument names the caller should supply.
	Fields []string `json:"fields"`
	// Reason says why the input is needed.
	Reason string `json:"reason"`
	// Suggestions maps each field to values worth offering (possibly empty).
	Suggestions map[string][]string `json:"suggestions"`
}

// Option is one ready-made answer: set Field to Value and call the tool again.
type Option struct {
	Label       string `json:"label"`
	Value       string `json:"value"`
	Description string `json:"description,omitempty"`
	Field       string `json:"field"`
}

// NeedsInput is the needsInput:v1 payload: a normal result asking for more input.
type NeedsInput struct {
	Kind       string       `json:"kind"`
	Type       string       `json:"type"` // always "elicitation"
	Message    string       `json:"message"`
	NeedsInput InputRequest `json:"needsInput"`
	Options    []Option     `json:"options"`
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
