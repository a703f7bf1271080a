package mcp

import (
	"encoding/json"
)

// Meta is the reserved _meta object found on params, results and most data objects.
type Meta map[string]any

// Implementation names a client or server program.
type Implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"` // 2025-06-18+
	Version string `json:"version"`
	// Description, WebsiteURL and Icons are 2025-11-25+.
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is an image a client may show for an implementation, tool, prompt or resource.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"` // "light" or "dark"
}

// Role is who a message or annotation is for: "user" or "assistant".
type Role string

// Roles.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations are hints on resources and content blocks.
type Annotations struct {
	Audience     []Role   `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`     // 0..1
	LastModified string   `json:"lastModified,omitempty"` // ISO 8601; 2025-06-18+
}

// ClientCapabilities is what a client declares it can do. A nil member is not declared.
type ClientCapabilities struct {
	Roots        *RootsCapability       `json:"roots,omitempty"`
	Sampling     *SamplingCapability    `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability `json:"elicitation,omitempty"`
	Tasks        json.RawMessage        `json:"tasks,omitempty"`
	Experimental map[string]any         `json:"experimental,omitempty"`
	Extensions   map[string]any         `json:"extensions,omitempty"` // 2026-07-28
}

// RootsCapability is the client's roots capability.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability is the client's sampling capability.
type SamplingCapability struct {
	Context *struct{} `json:"context,omitempty"`
	Tools   *struct{} `json:"tools,omitempty"`
}

// ElicitationCapability is the client's elicitation capability. Declared with neither
// member it means form mode only.
type ElicitationCapability struct {
	Form *struct{} `json:"form,omitempty"`
	URL  *struct{} `json:"url,omitempty"`
}

// supportsForm reports whether form-mode elicitation was declared.
func (e *ElicitationCapability) supportsForm() bool {
	return e != nil && (e.Form != nil || e.URL == nil)
}

// supportsURL reports whether URL-mode elicitation was declared.
func (e *ElicitationCapability) supportsURL() bool { return e != nil && e.URL != nil }

// ServerCapabilities is what a server declares it offers. A nil member is not declared.
type ServerCapabilities struct {
	Prompts      *ListChangedCapability `json:"prompts,omitempty"`
	Resources    *ResourcesCapability   `json:"resources,omitempty"`
	Tools        *ListChangedCapability `json:"tools,omitempty"`
	Logging      *struct{}              `json:"logging,omitempty"`
	Completions  *struct{}              `json:"completions,omitempty"`
	Tasks        json.RawMessage        `json:"tasks,omitempty"`
	Experimental map[string]any         `json:"experimental,omitempty"`
	Extensions   map[string]any         `json:"extensions,omitempty"` // 2026-07-28
}

// ListChangedCapability is a capability with an optional listChanged flag.
type ListChangedCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability is the server's resources capability.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// InitializeParams are the params of initialize.
type InitializeParams struct {
	ProtocolVersion string              `json:"protocolVersion"`
	Capabilities    *ClientCapabilities `json:"capabilities"`
	ClientInfo      *Implementation     `json:"clientInfo"`
	Meta            Meta                `json:"_meta,omitempty"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	ProtocolVersion string              `json:"protocolVersion"`
	Capabilities    *ServerCapabilities `json:"capabilities"`
	ServerInfo      *Implementation     `json:"serverInfo"`
	Instructions    string              `json:"instructions,omitempty"`
	Meta            Meta                `json:"_meta,omitempty"`
}

// emptyResult is the {} answer of ping, subscribe, setLevel and friends.
type emptyResult struct{}

// PaginatedParams are the params of the list methods.
type PaginatedParams struct {
	Cursor string `json:"cursor,omitempty"`
	Meta   Meta   `json:"_meta,omitempty"`
}

// ListToolsParams are the params of tools/list.
type ListToolsParams = PaginatedParams

// ListResourcesParams are the params of resources/list.
type ListResourcesParams = PaginatedParams

// ListResourceTemplatesParams are the params of resources/templates/list.
type ListResourceTemplatesParams = PaginatedParams

// ListPromptsParams are the params of prompts/list.
type ListPromptsParams = PaginatedParams

// ProgressNotificationParams are the params of notifications/progress.
type ProgressNotificationParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"` // 2025-03-26+
	Meta          Meta            `json:"_meta,omitempty"`
}

// CancelledNotificationParams are the params of notifications/cancelled.
type CancelledNotificationParams struct {
	RequestID json.RawMessage `json:"requestId,omitempty"`
	Reason    string          `json:"reason,omitempty"`
}

// LoggingLevel is a syslog severity name.
type LoggingLevel string

// Logging levels, least to most severe.
const (
	LevelDebug     LoggingLevel = "debug"
	LevelInfo      LoggingLevel = "info"
	LevelNotice    LoggingLevel = "notice"
	LevelWarning   LoggingLevel = "warning"
	LevelError     LoggingLevel = "error"
	LevelCritical  LoggingLevel = "critical"
	LevelAlert     LoggingLevel = "alert"
	LevelEmergency LoggingLevel = "emergency"
)

// severity returns the rank of l (0 = debug) or -1 for an unknown name.
func (l LoggingLevel) severity() int {
	switch l {
	case LevelDebug:
		return 0
	case LevelInfo:
		return 1
	case LevelNotice:
		return 2
	case LevelWarning:
		return 3
	case LevelError:
		return 4
	case LevelCritical:
		return 5
	case LevelAlert:
		return 6
	case LevelEmergency:
		return 7
	}
	return -1
}

// SetLoggingLevelParams are the params of logging/setLevel.
type SetLoggingLevelParams struct {
	Level LoggingLevel `json:"level"`
	Meta  Meta         `json:"_meta,omitempty"`
}

// LoggingMessageParams are the params of notifications/message.
type LoggingMessageParams struct {
	Level  LoggingLevel `json:"level"`
	Logger string       `json:"logger,omitempty"`
	Data   any          `json:"data"`
	Meta   Meta         `json:"_meta,omitempty"`
}

// Root is a filesystem root the client exposes.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
	Meta Meta   `json:"_meta,omitempty"`
}

// ListRootsResult is the result of roots/list.
type ListRootsResult struct {
	Roots []*Root `json:"roots"`
	Meta  Meta    `json:"_meta,omitempty"`
}
