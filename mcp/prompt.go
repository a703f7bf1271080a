package mcp

import (
	"encoding/json"
)

// Prompt is a prompt template the server offers.
type Prompt struct {
	Name        string            `json:"name"`
	Title       string            `json:"title,omitempty"` // 2025-06-18+
	Description string            `json:"description,omitempty"`
	Arguments   []*PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon            `json:"icons,omitempty"` // 2025-11-25+
	Meta        Meta              `json:"_meta,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"` // 2025-06-18+
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ListPromptsResult is the result of prompts/list.
type ListPromptsResult struct {
	Prompts    []*Prompt `json:"prompts"`
	NextCursor string    `json:"nextCursor,omitempty"`
	Meta       Meta      `json:"_meta,omitempty"`
}

// GetPromptParams are the params of prompts/get.
type GetPromptParams struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitempty"`
	Meta      Meta              `json:"_meta,omitempty"`
}

// GetPromptResult is the result of prompts/get.
type GetPromptResult struct {
	Description string           `json:"description,omitempty"`
	Messages    []*PromptMessage `json:"messages"`
	Meta        Meta             `json:"_meta,omitempty"`
}

// PromptMessage is one message of a prompt: a role and one content block.
type PromptMessage struct {
	Role    Role
	Content Content
}

type wirePromptMessage struct {
	Role    Role            `json:"role"`
	Content json.RawMessage `json:"content"`
}

// MarshalJSON encodes the message.
func (m *PromptMessage) MarshalJSON() ([]byte, error) {
	c, err := json.Marshal(m.Content)
	if err != nil {
		return nil, err
	}
	return json.Marshal(&wirePromptMessage{Role: m.Role, Content: c})
}

// UnmarshalJSON decodes the message.
func (m *PromptMessage) UnmarshalJSON(b []byte) error {
	var w wirePromptMessage
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c, err := UnmarshalContent(w.Content)
	if err != nil {
		return err
	}
	*m = PromptMessage{Role: w.Role, Content: c}
	return nil
}

// CompleteParams are the params of completion/complete.
type CompleteParams struct {
	Ref      *CompleteReference `json:"ref"`
	Argument CompleteArgument   `json:"argument"`
	Context  *CompleteContext   `json:"context,omitempty"` // 2025-06-18+
	Meta     Meta               `json:"_meta,omitempty"`
}

// CompleteReference names what is being completed: {"type":"ref/prompt","name"} or
// {"type":"ref/resource","uri"}.
type CompleteReference struct {
	Type  string `json:"type"`
	Name  string `json:"name,omitempty"`
	Title string `json:"title,omitempty"`
	URI   string `json:"uri,omitempty"`
}

// CompleteArgument is the argument being typed.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext carries already-chosen arguments.
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitempty"`
}

// CompleteResult is the result of completion/complete.
type CompleteResult struct {
	Completion Completion `json:"completion"`
	Meta       Meta       `json:"_meta,omitempty"`
}

// Completion lists completion values (at most 100 are sent).
type Completion struct {
	Values  []string `json:"values"`
	Total   *int     `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}
