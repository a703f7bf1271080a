package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Tool names of the binding. A client recognises the binding by these names alone.
const (
	// ToolList lists report summaries, optionally filtered.
	ToolList = "REPORTS_LIST"
	// ToolGet returns one full report by id.
	ToolGet = "REPORTS_GET"
	// ToolUpdateStatus changes a report's lifecycle status (unread, read, dismissed).
	ToolUpdateStatus = "REPORTS_UPDATE_STATUS"
)

// Status is the outcome a report announces: passing, warning, failing or info.
type Status string

// The four report statuses.
const (
	StatusPassing Status = "passing"
	StatusWarning Status = "warning"
	StatusFailing Status = "failing"
	StatusInfo    Status = "info"
)

// Statuses lists the valid statuses, worst first.
var Statuses = []Status{StatusFailing, StatusWarning, StatusPassing, StatusInfo}

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusPassing, StatusWarning, StatusFailing, StatusInfo:
		return true
	}
	return false
}

// LifecycleStatus is where a report stands in a reader's inbox. It belongs to the
// server, not to the report file: new reports are unread.
type LifecycleStatus string

// The three lifecycle statuses.
const (
	LifecycleUnread    LifecycleStatus = "unread"
	LifecycleRead      LifecycleStatus = "read"
	LifecycleDismissed LifecycleStatus = "dismissed"
)

// Valid reports whether l is one of the three lifecycle statuses.
func (l LifecycleStatus) Valid() bool {
	switch l {
	case LifecycleUnread, LifecycleRead, LifecycleDismissed:
		return true
	}
	return false
}

// ReportSummary is what REPORTS_LIST returns for each report.
type ReportSummary struct {
	// ID identifies the report; see [ValidID] for the characters allowed in files.
	ID string `json:"id"`
	// Title is a short human-readable name.
	Title string `json:"title"`
	// Category groups reports (ci, security, performance, accessibility, …).
	Category string `json:"category"`
	// Status is the outcome the report announces.
	Status Status `json:"status"`
	// Summary is one or two sentences on the outcome.
	Summary string `json:"summary"`
	// UpdatedAt is when the report's content was produced (ISO 8601 on the wire).
	UpdatedAt time.Time `json:"updatedAt"`
	// Source names the producer (a CI job, a scanner); optional.
	Source string `json:"source,omitempty"`
	// Tags are free-form labels; optional.
	Tags []string `json:"tags,omitempty"`
	// LifecycleStatus is set by the server; empty in files.
	LifecycleStatus LifecycleStatus `json:"lifecycleStatus,omitempty"`
}

// Report is a full report: the summary fields plus ordered sections.
type Report struct {
	ReportSummary
	// Sections are rendered in order. Never nil on the wire.
	Sections []Section `json:"sections"`
}

// MarshalJSON writes sections as [] when there are none.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	p := plain(r)
	if p.Sections == nil {
		p.Sections = []Section{}
	}
	return json.Marshal(p)
}

// Clone returns a deep copy of r.
func (r *Report) Clone() *Report {
	if r == nil {
		return nil
	}
	c := *r
	c.Tags = append([]string(nil), r.Tags...)
	c.Sections = make([]Section, len(r.Sections))
	for i, s := range r.Sections {
		c.Sections[i] = s
		c.Sections[i].Items = append([]MetricItem(nil), s.Items...)
		c.Sections[i].Columns = append([]string(nil), s.Columns...)
		if s.Rows != nil {
			c.Sections[i].Rows = make([][]Value, len(s.Rows))
			for j, row := range s.Rows {
				c.Sections[i].Rows[j] = append([]Value(nil), row...)
			}
		}
	}
	return &c
}

// SectionType names the kind of a section.
type SectionType string

// The three section kinds.
const (
	SectionMarkdown SectionType = "markdown"
	SectionMetrics  SectionType = "metrics"
	SectionTable    SectionType = "table"
)

// Section is one part of a report. Type decides which other fields apply:
// markdown uses Content; metrics uses Title and Items; table uses Title, Columns and
// Rows. Fields of other kinds are ignored when encoding.
type Section struct {
	Type    SectionType
	Content string       // markdown
	Title   string       // metrics, table (optional)
	Items   []MetricItem // metrics
	Columns []string     // table
	Rows    [][]Value    // table; each row has len(Columns) cells
}

// Markdown returns a markdown section.
func Markdown(content string) Section { return Section{Type: SectionMarkdown, Content: content} }

// Metrics returns a metrics section.
func Metrics(title string, items ...MetricItem) Section {
	return Section{Type: SectionMetrics, Title: title, Items: items}
}

// Table returns a table section.
func Table(title string, columns []string, rows [][]Value) Section {
	return Section{Type: SectionTable, Title: title, Columns: columns, Rows: rows}
}

type markdownWire struct {
	Type    SectionType `json:"type"`
	Content string      `json:"content"`
}

type metricsWire struct {
	Type  SectionType  `json:"type"`
	Title string       `json:"title,omitempty"`
	Items []MetricItem `json:"items"`
}

type tableWire struct {
	Type    SectionType `json:"type"`
	Title   string      `json:"title,omitempty"`
	Columns []string    `json:"columns"`
	Rows    [][]Value   `json:"rows"`
}

// MarshalJSON writes only the members of the section's kind.
func (s Section) MarshalJSON() ([]byte, error) {
	switch s.Type {
	case SectionMarkdown:
		return json.Marshal(markdownWire{s.Type, s.Content})
	case SectionMetrics:
		items := s.Items
		if items == nil {
			items = []MetricItem{}
		}
		return json.Marshal(metricsWire{s.Type, s.Title, items})
	case SectionTable:
		cols, rows := s.Columns, s.Rows
		if cols == nil {
			cols = []string{}
		}
		if rows == nil {
			rows = [][]Value{}
		}
		return json.Marshal(tableWire{s.Type, s.Title, cols, rows})
	}
	return nil, fmt.Errorf("reports: unknown section type %q", s.Type)
}

// UnmarshalJSON reads a section of any of the three kinds.
func (s *Section) UnmarshalJSON(data []byte) error {
	var head struct {
		Type SectionType `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	switch head.Type {
	case SectionMarkdown:
		var w markdownWire
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		*s = Section{Type: w.Type, Content: w.Content}
	case SectionMetrics:
		var w metricsWire
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		*s = Section{Type: w.Type, Title: w.Title, Items: w.Items}
	case SectionTable:
		var w tableWire
		if err := json.Unmarshal(data, &w); err != nil {
			return err
		}
		*s = Section{Type: w.Type, Title: w.Title, Columns: w.Columns, Rows: w.Rows}
	default:
		return fmt.Errorf("reports: unknown section type %q", head.Type)
	}
	return nil
}

// MetricItem is one measured value, optionally with the value it had last time.
type MetricItem struct {
	Label string `json:"label"`
	// Value is a number or a string; never null.
	Value Value  `json:"value"`
	Unit  string `json:"unit,omitempty"`
	// PreviousValue is omitted when it is the zero Value (null).
	PreviousValue Value  `json:"previousValue,omitzero"`
	Status        Status `json:"status,omitempty"`
}

// Value is a JSON number, a JSON string or null (the zero Value). It is used for metric
// values and table cells.
type Value struct {
	kind valueKind
	num  float64
	str  string
}

type valueKind uint8

const (
	kindNull valueKind = iota
	kindNumber
	kindString
)

// Num returns a numeric Value.
func Num(f float64) Value { return Value{kind: kindNumber, num: f} }

// Str returns a string Value.
func Str(s string) Value { return Value{kind: kindString, str: s} }

// IsZero reports whether v is null.
func (v Value) IsZero() bool { return v.kind == kindNull }

// Number returns the number and true when v is numeric.
func (v Value) Number() (float64, bool) { return v.num, v.kind == kindNumber }

// Text returns the string and true when v is a string.
func (v Value) Text() (string, bool) { return v.str, v.kind == kindString }

// String formats v for people: numbers without trailing zeros, strings as is, null as "".
func (v Value) String() string {
	switch v.kind {
	case kindNumber:
		return strconv.FormatFloat(v.num, 'f', -1, 64)
	case kindString:
		return v.str
	}
	return ""
}

// Equal reports whether v and w hold the same kind and value.
func (v Value) Equal(w Value) bool { return v == w }

// MarshalJSON writes a number, a string or null.
func (v Value) MarshalJSON() ([]byte, error) {
	switch v.kind {
	case kindNumber:
		if math.IsNaN(v.num) || math.IsInf(v.num, 0) {
			return nil, fmt.Errorf("reports: value %v is not a JSON number", v.num)
		}
		return json.Marshal(v.num)
	case kindString:
		return json.Marshal(v.str)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads a number, a string or null; anything else is an error.
func (v *Value) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		*v = Value{}
	case len(data) > 0 && data[0] == '"':
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*v = Str(s)
	default:
		var f float64
		if err := json.Unmarshal(data, &f); err != nil {
			return fmt.Errorf("reports: value must be a number, a string or null: %w", err)
		}
		*v = Num(f)
	}
	return nil
}

// ListInput is the input of REPORTS_LIST. Empty fields do not filter.
type ListInput struct {
	Category        string          `json:"category,omitempty"`
	Status          Status          `json:"status,omitempty"`
	Source          string          `json:"source,omitempty"`
	Tag             string          `json:"tag,omitempty"`
	LifecycleStatus LifecycleStatus `json:"lifecycleStatus,omitempty"`
}

// ListOutput is the output of REPORTS_LIST.
type ListOutput struct {
	Reports []ReportSummary `json:"reports"`
}

// MarshalJSON writes reports as [] when there are none.
func (o ListOutput) MarshalJSON() ([]byte, error) {
	type plain ListOutput
	p := plain(o)
	if p.Reports == nil {
		p.Reports = []ReportSummary{}
	}
	return json.Marshal(p)
}

// GetInput is the input of REPORTS_GET.
type GetInput struct {
	ID string `json:"id"`
}

// UpdateStatusInput is the input of REPORTS_UPDATE_STATUS.
type UpdateStatusInput struct {
	ReportID        string          `json:"reportId"`
	LifecycleStatus LifecycleStatus `json:"lifecycleStatus"`
}

// UpdateStatusOutput is the output of REPORTS_UPDATE_STATUS.
type UpdateStatusOutput struct {
	Success bool   `json:"success"`
	Message string `json:"message,omitempty"`
}
