package present

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/examples/patterns-server/catalog"
)

// Format selects which content blocks a tool result carries.
type Format string

// The formats. Markdown is the default.
const (
	FormatMarkdown Format = "markdown" // Markdown blocks only
	FormatJSON     Format = "json"     // one JSON text block only
	FormatBoth     Format = "both"     // Markdown blocks, then the JSON block last
)

// ParseFormat maps an optional format argument to a Format; nil means markdown.
func ParseFormat(s *string) (Format, error) {
	if s == nil {
		return FormatMarkdown, nil
	}
	switch f := Format(*s); f {
	case FormatMarkdown, FormatJSON, FormatBoth:
		return f, nil
	}
	return "", fmt.Errorf("format %q is not one of markdown, json, both", *s)
}

// Argument limits.
const (
	MinLimit          = 1
	MaxLimit          = 100
	DefaultLimit      = MaxLimit // by default every match is returned
	MaxLimitCards     = 20
	DefaultLimitCards = 3
	MaxQueryLen       = 500 // characters
	MaxIDLen          = 200 // characters
	// ManyMatches is the match count above which a search with neither category
	// nor difficulty asks the caller to narrow it.
	ManyMatches = 20
)

// SearchArgs are the arguments of search_patterns. Nil means absent.
type SearchArgs struct {
	Q          *string `json:"q,omitempty"`
	Category   *string `json:"category,omitempty"`
	Difficulty *string `json:"difficulty,omitempty"`
	Limit      *int    `json:"limit,omitempty"`
	Format     *string `json:"format,omitempty"`
	LimitCards *int    `json:"limitCards,omitempty"`
	// IncludeProvenancePanel adds provenance to the payload and a provenance
	// panel to the Markdown.
	IncludeProvenancePanel *bool `json:"includeProvenancePanel,omitempty"`
}

// GetArgs are the arguments of get_pattern. Nil means absent.
type GetArgs struct {
	ID     *string `json:"id,omitempty"`
	Format *string `json:"format,omitempty"`
}

// DecodeSearchArgs decodes tool arguments strictly: unknown members, wrong types
// and trailing data are CLIENT_ERROR tool errors. Empty input or null means {}.
func DecodeSearchArgs(raw []byte) (SearchArgs, *ToolError) {
	var a SearchArgs
	return a, decodeStrict(raw, &a)
}

// DecodeGetArgs is DecodeSearchArgs for get_pattern.
func DecodeGetArgs(raw []byte) (GetArgs, *ToolError) {
	var a GetArgs
	return a, decodeStrict(raw, &a)
}

func decodeStrict(raw []byte, v any) *ToolError {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		details := map[string]any{}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			details["field"] = te.Field
			details["expected"] = te.Type.String()
		}
		return NewToolError(CodeClient, "invalid arguments: "+err.Error(), false, nilIfEmpty(details))
	}
	if _, err := dec.Token(); err != io.EOF {
		return NewToolError(CodeClient, "invalid arguments: trailing data after the arguments object", false, nil)
	}
	return nil
}

// ArgumentsError is the CLIENT_ERROR tool error for arguments of tool (raw)
// that were refused before the tool ran (schemaErr: the library's check against
// the tool's inputSchema): the error the tool's own decoding and checks give
// them, with the field they name, or else one saying what the schema check
// said. So a refused argument has the toolError:v1 shape whichever check
// caught it first.
func ArgumentsError(tool string, raw []byte, schemaErr error) *ToolError {
	switch tool {
	case "search_patterns":
		a, te := DecodeSearchArgs(raw)
		if te == nil {
			_, te = a.validate()
		}
		if te != nil {
			return te
		}
	case "get_pattern":
		a, te := DecodeGetArgs(raw)
		if te == nil && a.Format != nil {
			if _, err := ParseFormat(a.Format); err != nil {
				te = fieldError("format", "%q is not one of markdown, json, both", *a.Format)
			}
		}
		if te != nil {
			return te
		}
	}
	return NewToolError(CodeClient, "invalid arguments: "+schemaErr.Error(), false, nil)
}

func nilIfEmpty(m map[string]any) map[string]any {
	if len(m) == 0 {
		return nil
	}
	return m
}

func fieldError(field, format string, args ...any) *ToolError {
	return NewToolError(CodeClient, field+": "+fmt.Sprintf(format, args...), false, map[string]any{"field": field})
}

// searchPlan is validated SearchArgs.
type searchPlan struct {
	format     Format
	q          string // trimmed
	category   catalog.Category
	difficulty catalog.Difficulty
	limit      int
	limitCards int
	provenance bool
}

func (a SearchArgs) validate() (searchPlan, *ToolError) {
	p := searchPlan{limit: DefaultLimit, limitCards: DefaultLimitCards}
	var err error
	if p.format, err = ParseFormat(a.Format); err != nil {
		return p, fieldError("format", "%q is not one of markdown, json, both", *a.Format)
	}
	if a.Q != nil {
		if n := utf8.RuneCountInString(*a.Q); n > MaxQueryLen {
			return p, fieldError("q", "%d characters, at most %d allowed", n, MaxQueryLen)
		}
		if !utf8.ValidString(*a.Q) {
			return p, fieldError("q", "not valid UTF-8")
		}
		p.q = strings.TrimSpace(*a.Q)
	}
	if a.Category != nil {
		c, ok := catalog.ParseCategory(*a.Category)
		if !ok {
			return p, fieldError("category", "%q is not one of %s", *a.Category, strings.Join(categoryNames(), ", "))
		}
		p.category = c
	}
	if a.Difficulty != nil {
		d, ok := catalog.ParseDifficulty(*a.Difficulty)
		if !ok {
			return p, fieldError("difficulty", "%q is not one of %s", *a.Difficulty, strings.Join(difficultyNames(), ", "))
		}
		p.difficulty = d
	}
	if a.Limit != nil {
		if *a.Limit < MinLimit || *a.Limit > MaxLimit {
			return p, fieldError("limit", "%d is outside %d–%d", *a.Limit, MinLimit, MaxLimit)
		}
		p.limit = *a.Limit
	}
	if a.LimitCards != nil {
		if *a.LimitCards < 0 || *a.LimitCards > MaxLimitCards {
			return p, fieldError("limitCards", "%d is outside 0–%d", *a.LimitCards, MaxLimitCards)
		}
		p.limitCards = *a.LimitCards
	}
	p.provenance = a.IncludeProvenancePanel != nil && *a.IncludeProvenancePanel
	return p, nil
}

func (a SearchArgs) echo(f Format) QueryEcho {
	return QueryEcho{Q: a.Q, Category: a.Category, Difficulty: a.Difficulty, Limit: a.Limit, Format: f,
		LimitCards: a.LimitCards, IncludeProvenancePanel: a.IncludeProvenancePanel}
}

// WithAnswers returns a copy of a with the answered fields (q, category,
// difficulty) set. Unknown names are ignored; blank answers leave a field as is.
func (a SearchArgs) WithAnswers(answers map[string]string) SearchArgs {
	set := func(dst **string, name string) {
		if v, ok := answers[name]; ok && strings.TrimSpace(v) != "" {
			*dst = Ptr(v)
		}
	}
	set(&a.Q, "q")
	set(&a.Category, "category")
	set(&a.Difficulty, "difficulty")
	return a
}

// WithAnswers returns a copy of a with the answered id set.
func (a GetArgs) WithAnswers(answers map[string]string) GetArgs {
	if v, ok := answers["id"]; ok && strings.TrimSpace(v) != "" {
		a.ID = Ptr(v)
	}
	return a
}

func categoryNames() []string {
	var out []string
	for _, c := range catalog.Categories() {
		out = append(out, string(c))
	}
	return out
}

func difficultyNames() []string {
	var out []string
	for _, d := range catalog.Difficulties() {
		out = append(out, string(d))
	}
	return out
}
