package present

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wiremcp/wiremcp/examples/patterns-server/catalog"
)

// Source names the catalog in provenance.
const Source = "wiremcp patterns catalog"

// Options configures an Engine. A nil *Options means defaults.
type Options struct {
	// Now is the clock for provenance timestamps. Nil means time.Now.
	Now func() time.Time
}

// Engine applies the tool rules to a catalog. It is safe for concurrent use.
type Engine struct {
	cat *catalog.Catalog
	now func() time.Time
}

// NewEngine returns an Engine over cat.
func NewEngine(cat *catalog.Catalog, opts *Options) *Engine {
	e := &Engine{cat: cat, now: time.Now}
	if opts != nil && opts.Now != nil {
		e.now = opts.Now
	}
	return e
}

// Reply is the outcome of a tool call before it is put on the wire.
type Reply struct {
	// Kind is the payload kind (one of Kinds).
	Kind string
	// Payload is *SearchResults, *Details, *NeedsInput or *ToolError.
	Payload any
	// Markdown is the full Markdown rendering, one string per block. It is
	// produced for every format; Blocks decides what is sent.
	Markdown []string
	// Format is the format the caller chose (FormatBoth when the format
	// argument itself was invalid, so both readers see the error).
	Format Format
	// IsError is set for toolError payloads.
	IsError bool
	// Ask is set for needsInput payloads: the same request, ready for native
	// elicitation.
	Ask *Ask
}

// MIME types and audiences of the content blocks.
const (
	MIMEMarkdown = "text/markdown"
	MIMEJSON     = "application/json"
)

// Block is one text content block of a tool result.
type Block struct {
	Text     string
	MIMEType string
	// Audience lists the intended readers ("user", "assistant"): Markdown is
	// for both, the JSON contract for the assistant (and the program behind it).
	Audience []string
}

// JSON returns the canonical JSON of the payload.
func (r *Reply) JSON() ([]byte, error) { return json.Marshal(r.Payload) }

// Blocks returns the content blocks for the reply's format: Markdown blocks
// only (markdown), the JSON block only (json), or the Markdown blocks followed
// by the JSON block (both).
func (r *Reply) Blocks() ([]Block, error) {
	var out []Block
	if r.Format != FormatJSON {
		for _, md := range r.Markdown {
			out = append(out, Block{Text: md, MIMEType: MIMEMarkdown, Audience: []string{"user", "assistant"}})
		}
	}
	if r.Format != FormatMarkdown {
		b, err := r.JSON()
		if err != nil {
			return nil, err
		}
		out = append(out, Block{Text: string(b), MIMEType: MIMEJSON, Audience: []string{"assistant"}})
	}
	return out, nil
}

// ErrorReply wraps a tool error in a Reply rendered in format f.
func ErrorReply(te *ToolError, f Format) *Reply {
	if te.Kind == "" {
		te.Kind = KindToolError
	}
	return &Reply{Kind: KindToolError, Payload: te, Markdown: renderError(te), Format: f, IsError: true}
}

func formatOrBoth(s *string) Format {
	if f, err := ParseFormat(s); err == nil {
		return f
	}
	return FormatBoth
}

// Search runs search_patterns.
func (e *Engine) Search(a SearchArgs) *Reply {
	plan, te := a.validate()
	if te != nil {
		return ErrorReply(te, formatOrBoth(a.Format))
	}
	if plan.q != catalog.MatchAll && len(catalog.Terms(plan.q)) == 0 {
		return e.needQuery(plan, a.Q != nil && plan.q != "")
	}
	matches := e.cat.Search(catalog.Query{Text: plan.q, Category: plan.category, Difficulty: plan.difficulty})
	if len(matches) > ManyMatches && a.Category == nil && a.Difficulty == nil {
		return e.needNarrowing(plan, matches)
	}
	byCat, byDiff := catalog.Counts(matches)
	res := &SearchResults{
		Kind:  KindSearchResults,
		Query: a.echo(plan.format),
		Metadata: SearchMetadata{
			TotalCount:      len(matches),
			EffectiveLimit:  plan.limit,
			Categories:      map[string]int{},
			Difficulties:    map[string]int{},
			RenderedCardIDs: []string{},
		},
		Patterns: []PatternSummary{},
	}
	for c, n := range byCat {
		res.Metadata.Categories[string(c)] = n
	}
	for d, n := range byDiff {
		res.Metadata.Difficulties[string(d)] = n
	}
	shown := matches[:min(plan.limit, len(matches))]
	for _, m := range shown {
		res.Patterns = append(res.Patterns, summarize(m))
	}
	res.Metadata.ReturnedCount = len(res.Patterns)
	var cards []*catalog.Pattern
	for _, m := range shown[:min(plan.limitCards, len(shown))] {
		cards = append(cards, m.Pattern)
		res.Metadata.RenderedCardIDs = append(res.Metadata.RenderedCardIDs, m.Pattern.ID)
	}
	res.Metadata.RenderedCards = len(cards)
	res.Metadata.ContractMarkers = ContractMarkers{Index: 1, Cards: len(cards), Version: ContractVersion}
	if plan.provenance {
		res.Provenance = e.provenance()
	}
	return &Reply{Kind: KindSearchResults, Payload: res, Markdown: renderSearch(res, cards), Format: plan.format}
}

// provenance describes the catalog as of now.
func (e *Engine) provenance() *Provenance {
	return &Provenance{Source: Source, Timestamp: e.now().UTC().Format(TimestampLayout),
		Version: e.cat.Version(), Marker: ContractVersion}
}

func summarize(m catalog.Match) PatternSummary {
	p := m.Pattern
	return PatternSummary{
		ID: p.ID, Title: p.Title, Category: string(p.Category), Difficulty: string(p.Difficulty),
		Description: p.Description, Tags: slices.Clone(p.Tags), Score: m.Score,
	}
}

func (e *Engine) needQuery(plan searchPlan, onlyCommonWords bool) *Reply {
	reason := "q is missing or blank"
	if onlyCommonWords {
		reason = "q holds only common words (such as “the” or “go”) that match everything"
	}
	tags := e.cat.TopTags(6)
	count := func(tag string) int {
		n := 0
		for _, p := range e.cat.All() {
			if slices.Contains(p.Tags, tag) {
				n++
			}
		}
		return n
	}
	n := &NeedsInput{
		Kind: KindNeedsInput, Type: "elicitation",
		Message: "What should I search for? Give a few words naming a technique or a problem, for example “worker pool” or “retry”.",
		NeedsInput: &InputRequest{
			Fields: []string{"q"}, Reason: reason,
			Suggestions: map[string][]string{"q": tags},
		},
	}
	for _, t := range tags {
		n.Options = append(n.Options, Option{Label: t, Value: t, Field: "q",
			Description: fmt.Sprintf("%d patterns are tagged %s", count(t), t)})
	}
	ask := &Ask{Message: n.Message, Fields: []AskField{{
		Name: "q", Title: "Search words", Required: true, MaxLength: MaxQueryLen,
		Description: "Words to look for in pattern titles, tags and descriptions, e.g. " + strings.Join(tags[:min(3, len(tags))], ", "),
	}}}
	return &Reply{Kind: KindNeedsInput, Payload: n, Markdown: renderNeedsInput(n), Format: plan.format, Ask: ask}
}

// byCount orders keys by descending count, then by their position in order.
func byCount[K comparable](counts map[K]int, order []K) []string {
	keys := make([]K, 0, len(counts))
	for _, k := range order {
		if counts[k] > 0 {
			keys = append(keys, k)
		}
	}
	sort.SliceStable(keys, func(i, j int) bool { return counts[keys[i]] > counts[keys[j]] })
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprint(k)
	}
	return out
}

func (e *Engine) needNarrowing(plan searchPlan, matches []catalog.Match) *Reply {
	byCat, byDiff := catalog.Counts(matches)
	cats := byCount(byCat, catalog.Categories())
	diffs := byCount(byDiff, catalog.Difficulties())
	msg := fmt.Sprintf("%d patterns match “%s”. Pick a category or a difficulty to narrow the list.", len(matches), plan.q)
	if plan.q == catalog.MatchAll {
		msg = fmt.Sprintf("The catalog holds %d patterns. Pick a category or a difficulty to browse.", len(matches))
	}
	n := &NeedsInput{
		Kind: KindNeedsInput, Type: "elicitation",
		Message: msg,
		NeedsInput: &InputRequest{
			Fields: []string{"category", "difficulty"},
			Reason: fmt.Sprintf("more than %d patterns match and neither category nor difficulty was given", ManyMatches),
			Suggestions: map[string][]string{
				"category": cats, "difficulty": diffs,
			},
		},
	}
	for _, c := range cats {
		n.Options = append(n.Options, Option{Label: c, Value: c, Field: "category",
			Description: fmt.Sprintf("%d matching patterns", byCat[catalog.Category(c)])})
	}
	for _, d := range diffs {
		n.Options = append(n.Options, Option{Label: d, Value: d, Field: "difficulty",
			Description: fmt.Sprintf("%d matching patterns", byDiff[catalog.Difficulty(d)])})
	}
	ask := &Ask{Message: n.Message, AtLeastOne: true, Fields: []AskField{
		{Name: "category", Title: "Category", Description: "Only patterns of this category", Enum: cats},
		{Name: "difficulty", Title: "Difficulty", Description: "Only patterns of this difficulty", Enum: diffs},
	}}
	return &Reply{Kind: KindNeedsInput, Payload: n, Markdown: renderNeedsInput(n), Format: plan.format, Ask: ask}
}

// MaxIDSuggestions is how many ids a needsInput for get_pattern suggests.
const MaxIDSuggestions = 5

// Get runs get_pattern.
func (e *Engine) Get(a GetArgs) *Reply {
	format, err := ParseFormat(a.Format)
	if err != nil {
		return ErrorReply(fieldError("format", "%q is not one of markdown, json, both", *a.Format), FormatBoth)
	}
	id := ""
	if a.ID != nil {
		if len([]rune(*a.ID)) > MaxIDLen {
			return ErrorReply(fieldError("id", "longer than %d characters", MaxIDLen), format)
		}
		id = strings.TrimSpace(*a.ID)
	}
	p, ok := e.cat.Get(id)
	if !ok {
		return e.needID(id, format)
	}
	d := &Details{
		Kind: KindDetails, ID: p.ID, Title: p.Title, Category: string(p.Category), Difficulty: string(p.Difficulty),
		Summary: Summarize(p.Description, MaxSummaryChars), Description: p.Description, Tags: slices.Clone(p.Tags),
		UseGuidance: UseGuidance{UseWhen: joinGuidance(p.UseWhen), AvoidWhen: joinGuidance(p.AvoidWhen)},
		Sections:    []SectionOut{{Title: "Description", Content: p.Description, Type: SectionDescription}},
		Examples:    []ExampleOut{}, RelatedPatterns: append([]string{}, p.Related...),
		Provenance: *e.provenance(),
	}
	for _, s := range p.Sections {
		d.Sections = append(d.Sections, SectionOut{Title: s.Heading, Content: s.Body, Type: sectionType(s.Heading)})
	}
	for _, ex := range p.Examples {
		d.Sections = append(d.Sections, SectionOut{Title: "Example: " + ex.Title, Content: ex.Code, Type: SectionExample})
		d.Examples = append(d.Examples, ExampleOut{Code: ex.Code, Language: ex.Language, Description: ex.Title, File: ex.File})
	}
	return &Reply{Kind: KindDetails, Payload: d, Markdown: renderDetails(d, p), Format: format}
}

// joinGuidance makes one string of guidance items: "a; b; c".
func joinGuidance(items []string) string { return strings.Join(items, "; ") }

// sectionType names what a catalog section holds, by its heading.
func sectionType(heading string) string {
	switch heading {
	case "How it works":
		return SectionImplementation
	case "Pitfalls":
		return SectionPitfalls
	}
	return SectionNotes
}

// starters are suggested when no id was given: one beginner pattern per category.
func (e *Engine) starters(n int) []string {
	var out []string
	for _, c := range catalog.Categories() {
		for _, m := range e.cat.Search(catalog.Query{Category: c, Difficulty: catalog.Beginner}) {
			out = append(out, m.Pattern.ID)
			break
		}
		if len(out) == n {
			break
		}
	}
	return out
}

func (e *Engine) needID(id string, format Format) *Reply {
	var sugg []string
	var msg, reason string
	if id == "" {
		sugg = e.starters(MaxIDSuggestions)
		msg = "Which pattern? Give its id; search_patterns finds ids, or pick a starter below."
		reason = "id is missing or blank"
	} else {
		sugg = e.cat.Suggest(id, MaxIDSuggestions)
		msg = fmt.Sprintf("No pattern has the id “%s”.", id)
		if len(sugg) > 0 {
			msg += " Did you mean one of these?"
		} else {
			msg += " Use search_patterns to find the id."
		}
		reason = "id is not in the catalog"
	}
	if sugg == nil {
		sugg = []string{}
	}
	n := &NeedsInput{
		Kind: KindNeedsInput, Type: "elicitation", Message: msg,
		NeedsInput: &InputRequest{Fields: []string{"id"}, Reason: reason, Suggestions: map[string][]string{"id": sugg}},
	}
	for _, s := range sugg {
		p, _ := e.cat.Get(s)
		n.Options = append(n.Options, Option{Label: p.Title, Value: s, Field: "id",
			Description: string(p.Category) + " · " + string(p.Difficulty)})
	}
	ask := &Ask{Message: msg, Fields: []AskField{{
		Name: "id", Title: "Pattern id", Required: true, Enum: sugg, MaxLength: MaxIDLen,
		Description: "The id of a catalog pattern, such as worker-pool",
	}}}
	return &Reply{Kind: KindNeedsInput, Payload: n, Markdown: renderNeedsInput(n), Format: format, Ask: ask}
}
