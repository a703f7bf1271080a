package mcp

import (
	"encoding/json"
	"fmt"
)

// Content is one content block: *TextContent, *ImageContent, *AudioContent,
// *ResourceLink or *EmbeddedResource (and, inside sampling messages, *ToolUseContent
// and *ToolResultContent). The set is closed.
type Content interface {
	contentType() string
}

// TextContent is a text block.
type TextContent struct {
	Text string
	// MIMEType is not part of the specification's TextContent; it is sent (as
	// "mimeType") only when set, as a hint for clients that render Markdown or JSON.
	MIMEType    string
	Annotations *Annotations
	Meta        Meta
}

// ImageContent is an image block; Data is raw bytes, sent base64-encoded.
type ImageContent struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
	Meta        Meta
}

// AudioContent is an audio block (2025-03-26+); Data is raw bytes, sent base64-encoded.
type AudioContent struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
	Meta        Meta
}

// ResourceLink points at a resource (2025-06-18+).
type ResourceLink struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        *int64
	Annotations *Annotations
	Icons       []Icon
	Meta        Meta
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	Resource    *ResourceContents
	Annotations *Annotations
	Meta        Meta
}

// ToolUseContent is a model's request to use a tool, inside sampling messages (2025-11-25).
type ToolUseContent struct {
	ID    string
	Name  string
	Input map[string]any
	Meta  Meta
}

// ToolResultContent answers a ToolUseContent, inside sampling messages (2025-11-25).
type ToolResultContent struct {
	ToolUseID         string
	Content           []Content
	StructuredContent any
	IsError           bool
	Meta              Meta
}

func (*TextContent) contentType() string       { return "text" }
func (*ImageContent) contentType() string      { return "image" }
func (*AudioContent) contentType() string      { return "audio" }
func (*ResourceLink) contentType() string      { return "resource_link" }
func (*EmbeddedResource) contentType() string  { return "resource" }
func (*ToolUseContent) contentType() string    { return "tool_use" }
func (*ToolResultContent) contentType() string { return "tool_result" }

// wireContent is the union of every block's members, used for encoding and decoding.
type wireContent struct {
	Type              string            `json:"type"`
	Text              *string           `json:"text,omitempty"`
	Data              []byte            `json:"data,omitempty"`
	MIMEType          string            `json:"mimeType,omitempty"`
	URI               string            `json:"uri,omitempty"`
	Name              string            `json:"name,omitempty"`
	Title             string            `json:"title,omitempty"`
	Description       string            `json:"description,omitempty"`
	Size              *int64            `json:"size,omitempty"`
	Resource          *ResourceContents `json:"resource,omitempty"`
	ID                string            `json:"id,omitempty"`
	Input             map[string]any    `json:"input,omitempty"`
	ToolUseID         string            `json:"toolUseId,omitempty"`
	Content           []json.RawMessage `json:"content,omitempty"`
	StructuredContent any               `json:"structuredContent,omitempty"`
	IsError           bool              `json:"isError,omitempty"`
	Annotations       *Annotations      `json:"annotations,omitempty"`
	Icons             []Icon            `json:"icons,omitempty"`
	Meta              Meta              `json:"_meta,omitempty"`
}

// wireOf returns the value encoding/json encodes for c: its wire form for the
// simple block types (so that a result holding them is encoded in one pass), c
// itself for the others.
func wireOf(c Content) any {
	switch c := c.(type) {
	case *TextContent:
		return &wireContent{Type: "text", Text: &c.Text, MIMEType: c.MIMEType, Annotations: c.Annotations, Meta: c.Meta}
	case *ImageContent:
		return &wireContent{Type: "image", Data: nonNilBytes(c.Data), MIMEType: c.MIMEType, Annotations: c.Annotations, Meta: c.Meta}
	case *AudioContent:
		return &wireContent{Type: "audio", Data: nonNilBytes(c.Data), MIMEType: c.MIMEType, Annotations: c.Annotations, Meta: c.Meta}
	case *ResourceLink:
		return &wireContent{Type: "resource_link", URI: c.URI, Name: c.Name, Title: c.Title,
			Description: c.Description, MIMEType: c.MIMEType, Size: c.Size, Annotations: c.Annotations, Icons: c.Icons, Meta: c.Meta}
	case *EmbeddedResource:
		return &wireContent{Type: "resource", Resource: c.Resource, Annotations: c.Annotations, Meta: c.Meta}
	}
	return c
}

// MarshalJSON encodes a text block.
func (c *TextContent) MarshalJSON() ([]byte, error) { return json.Marshal(wireOf(c)) }

// MarshalJSON encodes an image block.
func (c *ImageContent) MarshalJSON() ([]byte, error) { return json.Marshal(wireOf(c)) }

// MarshalJSON encodes an audio block.
func (c *AudioContent) MarshalJSON() ([]byte, error) { return json.Marshal(wireOf(c)) }

// MarshalJSON encodes a resource link.
func (c *ResourceLink) MarshalJSON() ([]byte, error) { return json.Marshal(wireOf(c)) }

// MarshalJSON encodes an embedded resource.
func (c *EmbeddedResource) MarshalJSON() ([]byte, error) { return json.Marshal(wireOf(c)) }

// MarshalJSON encodes a tool-use block.
func (c *ToolUseContent) MarshalJSON() ([]byte, error) {
	in := c.Input
	if in == nil {
		in = map[string]any{}
	}
	return json.Marshal(&wireContent{Type: "tool_use", ID: c.ID, Name: c.Name, Input: in, Meta: c.Meta})
}

// MarshalJSON encodes a tool-result block.
func (c *ToolResultContent) MarshalJSON() ([]byte, error) {
	blocks := make([]json.RawMessage, 0, len(c.Content))
	for _, b := range c.Content {
		raw, err := json.Marshal(b)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, raw)
	}
	w := &wireContent{Type: "tool_result", ToolUseID: c.ToolUseID, Content: blocks,
		StructuredContent: c.StructuredContent, IsError: c.IsError, Meta: c.Meta}
	b, err := json.Marshal(w)
	if err != nil || len(blocks) > 0 {
		return b, err
	}
	// "content" is required even when empty.
	return append(b[:len(b)-1], `,"content":[]}`...), nil
}

func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// UnmarshalContent decodes one content block by its "type".
func UnmarshalContent(data []byte) (Content, error) {
	var w wireContent
	if err := json.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("mcp: content block: %w", err)
	}
	return contentOf(&w)
}

// contentOf returns the block w holds.
func contentOf(w *wireContent) (Content, error) {
	switch w.Type {
	case "text":
		if w.Text == nil {
			return nil, fmt.Errorf("mcp: text content without text")
		}
		return &TextContent{Text: *w.Text, MIMEType: w.MIMEType, Annotations: w.Annotations, Meta: w.Meta}, nil
	case "image":
		return &ImageContent{Data: w.Data, MIMEType: w.MIMEType, Annotations: w.Annotations, Meta: w.Meta}, nil
	case "audio":
		return &AudioContent{Data: w.Data, MIMEType: w.MIMEType, Annotations: w.Annotations, Meta: w.Meta}, nil
	case "resource_link":
		return &ResourceLink{URI: w.URI, Name: w.Name, Title: w.Title, Description: w.Description,
			MIMEType: w.MIMEType, Size: w.Size, Annotations: w.Annotations, Icons: w.Icons, Meta: w.Meta}, nil
	case "resource":
		if w.Resource == nil {
			return nil, fmt.Errorf("mcp: embedded resource without resource")
		}
		return &EmbeddedResource{Resource: w.Resource, Annotations: w.Annotations, Meta: w.Meta}, nil
	case "tool_use":
		return &ToolUseContent{ID: w.ID, Name: w.Name, Input: w.Input, Meta: w.Meta}, nil
	case "tool_result":
		blocks, err := unmarshalContentList(w.Content)
		if err != nil {
			return nil, err
		}
		return &ToolResultContent{ToolUseID: w.ToolUseID, Content: blocks, StructuredContent: w.StructuredContent,
			IsError: w.IsError, Meta: w.Meta}, nil
	}
	return nil, fmt.Errorf("mcp: unknown content type %q", w.Type)
}

// contentList returns the blocks ws hold.
func contentList(ws []wireContent) ([]Content, error) {
	out := make([]Content, 0, len(ws))
	for i := range ws {
		c, err := contentOf(&ws[i])
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func unmarshalContentList(raws []json.RawMessage) ([]Content, error) {
	out := make([]Content, 0, len(raws))
	for _, r := range raws {
		c, err := UnmarshalContent(r)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// ResourceContents is the content of a resource: Text, or Blob (sent base64-encoded).
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	Meta     Meta
}

type wireResourceContents struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *[]byte `json:"blob,omitempty"`
	Meta     Meta    `json:"_meta,omitempty"`
}

// MarshalJSON writes exactly one of text and blob: blob when Blob is non-nil.
func (r *ResourceContents) MarshalJSON() ([]byte, error) {
	w := wireResourceContents{URI: r.URI, MIMEType: r.MIMEType, Meta: r.Meta}
	if r.Blob != nil {
		w.Blob = &r.Blob
	} else {
		w.Text = &r.Text
	}
	return json.Marshal(&w)
}

// UnmarshalJSON reads a text or blob resource contents.
func (r *ResourceContents) UnmarshalJSON(b []byte) error {
	var w wireResourceContents
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if (w.Text == nil) == (w.Blob == nil) {
		return fmt.Errorf("mcp: resource contents must have exactly one of text and blob")
	}
	*r = ResourceContents{URI: w.URI, MIMEType: w.MIMEType, Meta: w.Meta}
	if w.Text != nil {
		r.Text = *w.Text
	} else {
		r.Blob = *w.Blob
		if r.Blob == nil {
			r.Blob = []byte{}
		}
	}
	return nil
}
