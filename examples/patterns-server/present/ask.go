package present

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Ask is what a needsInput reply wants, in a form a server can put to the user
// through native elicitation (elicitation/create in form mode). It is derived
// from the same facts as the needsInput payload.
type Ask struct {
	// Message is shown to the user.
	Message string
	// Fields are the inputs asked for, in order.
	Fields []AskField
	// AtLeastOne means no single field is required but an answer with none of
	// them set does not resolve the request.
	AtLeastOne bool
}

// AskField is one string input of an Ask.
type AskField struct {
	Name        string
	Title       string
	Description string
	// Enum, when non-empty, lists the only acceptable answers.
	Enum     []string
	Required bool
	// MaxLength bounds free-text answers (characters).
	MaxLength int
}

// RequestedSchema returns the form-mode requestedSchema: a flat object whose
// properties are all strings, either free text (minLength 1, maxLength) or an
// untitled single-select enum. Only properties of the restricted elicitation
// schema subset are used.
func (a *Ask) RequestedSchema() json.RawMessage {
	type prop struct {
		Type        string   `json:"type"`
		Title       string   `json:"title,omitempty"`
		Description string   `json:"description,omitempty"`
		Enum        []string `json:"enum,omitempty"`
		MinLength   *int     `json:"minLength,omitempty"`
		MaxLength   *int     `json:"maxLength,omitempty"`
	}
	props := map[string]prop{}
	required := []string{}
	for _, f := range a.Fields {
		p := prop{Type: "string", Title: f.Title, Description: f.Description}
		if len(f.Enum) > 0 {
			p.Enum = f.Enum
		} else {
			p.MinLength = Ptr(1)
			if f.MaxLength > 0 {
				p.MaxLength = Ptr(f.MaxLength)
			}
		}
		props[f.Name] = p
		if f.Required {
			required = append(required, f.Name)
		}
	}
	b, err := json.Marshal(struct {
		Type       string          `json:"type"`
		Properties map[string]prop `json:"properties"`
		Required   []string        `json:"required,omitempty"`
	}{"object", props, required})
	if err != nil { // cannot happen: only strings and ints
		panic(err)
	}
	return b
}

// Accept checks the content of an accepted elicitation against the Ask and
// returns the answers by field name (trimmed, blank ones dropped). Members the
// Ask did not ask for are ignored. A value that is not a string, is not one of
// the field's Enum, is too long, or a missing required field is a CLIENT_ERROR.
// An empty map with a nil error means the user answered nothing useful.
func (a *Ask) Accept(content map[string]any) (map[string]string, *ToolError) {
	answers := map[string]string{}
	for _, f := range a.Fields {
		v, ok := content[f.Name]
		if !ok || v == nil {
			if f.Required {
				return nil, elicitError(f.Name, "is required")
			}
			continue
		}
		s, ok := v.(string)
		if !ok {
			return nil, elicitError(f.Name, fmt.Sprintf("must be a string, got %T", v))
		}
		s = strings.TrimSpace(s)
		if s == "" {
			if f.Required {
				return nil, elicitError(f.Name, "is required")
			}
			continue
		}
		if len(f.Enum) > 0 && !slices.Contains(f.Enum, s) {
			return nil, elicitError(f.Name, fmt.Sprintf("%q is not one of %s", s, strings.Join(f.Enum, ", ")))
		}
		if f.MaxLength > 0 && utf8.RuneCountInString(s) > f.MaxLength {
			return nil, elicitError(f.Name, fmt.Sprintf("longer than %d characters", f.MaxLength))
		}
		answers[f.Name] = s
	}
	return answers, nil
}

func elicitError(field, problem string) *ToolError {
	return NewToolError(CodeClient, "elicitation answer: "+field+" "+problem, false,
		map[string]any{"field": field, "source": "elicitation"})
}
