package mcp

import (
	"bytes"
	"encoding/json"
)

// CreateMessageParams are the params of sampling/createMessage.
type CreateMessageParams struct {
	Messages         []*SamplingMessage `json:"messages"`
	MaxTokens        int64              `json:"maxTokens"`
	ModelPreferences *ModelPreferences  `json:"modelPreferences,omitempty"`
	SystemPrompt     string             `json:"systemPrompt,omitempty"`
	IncludeContext   string             `json:"includeContext,omitempty"`
	Temperature      *float64           `json:"temperature,omitempty"`
	StopSequences    []string           `json:"stopSequences,omitempty"`
	Metadata         map[string]any     `json:"metadata,omitempty"`
	Tools            []*Tool            `json:"tools,omitempty"`      // 2025-11-25+, needs sampling.tools
	ToolChoice       *ToolChoice        `json:"toolChoice,omitempty"` // 2025-11-25+, needs sampling.tools
	Meta             Meta               `json:"_meta,omitempty"`
}

// ToolChoice controls tool use in sampling.
type ToolChoice struct {
	Mode string `json:"mode,omitempty"` // "auto", "required" or "none"
}

// ModelPreferences are advisory model-selection hints.
type ModelPreferences struct {
	Hints                []ModelHint `json:"hints,omitempty"`
	CostPriority         *float64    `json:"costPriority,omitempty"`
	SpeedPriority        *float64    `json:"speedPriority,omitempty"`
	IntelligencePriority *float64    `json:"intelligencePriority,omitempty"`
}

// ModelHint names a model (substring match).
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// SamplingMessage is one message in a sampling conversation. Content holds one block
// or several (several only from 2025-11-25).
type SamplingMessage struct {
	Role    Role
	Content []Content
	Meta    Meta
}

// MarshalJSON writes content as one object when there is exactly one block.
func (m *SamplingMessage) MarshalJSON() ([]byte, error) {
	c, err := marshalContentOneOrMany(m.Content)
	if err != nil {
		return nil, err
	}
	return json.Marshal(&struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
		Meta    Meta            `json:"_meta,omitempty"`
	}{m.Role, c, m.Meta})
}

// UnmarshalJSON reads content given as one object or an array.
func (m *SamplingMessage) UnmarshalJSON(b []byte) error {
	var w struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
		Meta    Meta            `json:"_meta"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c, err := unmarshalContentOneOrMany(w.Content)
	if err != nil {
		return err
	}
	*m = SamplingMessage{Role: w.Role, Content: c, Meta: w.Meta}
	return nil
}

// CreateMessageResult is the result of sampling/createMessage.
type CreateMessageResult struct {
	Role       Role
	Content    []Content
	Model      string
	StopReason string
	Meta       Meta
}

// MarshalJSON writes content as one object when there is exactly one block.
func (r *CreateMessageResult) MarshalJSON() ([]byte, error) {
	c, err := marshalContentOneOrMany(r.Content)
	if err != nil {
		return nil, err
	}
	return json.Marshal(&struct {
		Role       Role            `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason,omitempty"`
		Meta       Meta            `json:"_meta,omitempty"`
	}{r.Role, c, r.Model, r.StopReason, r.Meta})
}

// UnmarshalJSON reads content given as one object or an array.
func (r *CreateMessageResult) UnmarshalJSON(b []byte) error {
	var w struct {
		Role       Role            `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason"`
		Meta       Meta            `json:"_meta"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c, err := unmarshalContentOneOrMany(w.Content)
	if err != nil {
		return err
	}
	*r = CreateMessageResult{Role: w.Role, Content: c, Model: w.Model, StopReason: w.StopReason, Meta: w.Meta}
	return nil
}

func marshalContentOneOrMany(cs []Content) (json.RawMessage, error) {
	if len(cs) == 1 {
		return json.Marshal(cs[0])
	}
	if cs == nil {
		cs = []Content{}
	}
	return json.Marshal(cs)
}

func unmarshalContentOneOrMany(raw json.RawMessage) ([]Content, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, err
		}
		return unmarshalContentList(list)
	}
	c, err := UnmarshalContent(raw)
	if err != nil {
		return nil, err
	}
	return []Content{c}, nil
}
