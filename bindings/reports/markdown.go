package reports

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// FormatMarkdown renders r as a Markdown document: title, status line, summary, then
// each section (metrics and tables as Markdown tables, with the change from
// previousValue). Clients without the binding read reports this way (report://{id}).
func FormatMarkdown(r *Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", oneLine(r.Title))
	fmt.Fprintf(&b, "**Status:** %s · **Category:** %s · **Updated:** %s", r.Status, oneLine(r.Category), r.UpdatedAt.UTC().Format(time.RFC3339))
	if r.Source != "" {
		fmt.Fprintf(&b, " · **Source:** %s", oneLine(r.Source))
	}
	if r.LifecycleStatus != "" {
		fmt.Fprintf(&b, " · **Inbox:** %s", r.LifecycleStatus)
	}
	b.WriteString("\n")
	if len(r.Tags) > 0 {
		fmt.Fprintf(&b, "**Tags:** %s\n", oneLine(strings.Join(r.Tags, ", ")))
	}
	if r.Summary != "" {
		fmt.Fprintf(&b, "\n%s\n", r.Summary)
	}
	for _, s := range r.Sections {
		b.WriteString("\n")
		switch s.Type {
		case SectionMarkdown:
			b.WriteString(strings.TrimRight(s.Content, "\n"))
			b.WriteString("\n")
		case SectionMetrics:
			if s.Title != "" {
				fmt.Fprintf(&b, "## %s\n\n", oneLine(s.Title))
			}
			b.WriteString("| Metric | Value | Previous | Change | Status |\n|---|---|---|---|---|\n")
			for _, m := range s.Items {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(m.Label), cell(WithUnit(m.Value, m.Unit)),
					cell(WithUnit(m.PreviousValue, m.Unit)), cell(Delta(m)), m.Status)
			}
		case SectionTable:
			if s.Title != "" {
				fmt.Fprintf(&b, "## %s\n\n", oneLine(s.Title))
			}
			b.WriteString("|")
			for _, c := range s.Columns {
				b.WriteString(" " + cell(c) + " |")
			}
			b.WriteString("\n|" + strings.Repeat("---|", len(s.Columns)) + "\n")
			for _, row := range s.Rows {
				b.WriteString("|")
				for _, v := range row {
					b.WriteString(" " + cell(v.String()) + " |")
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

// WithUnit formats v followed by unit ("12 ms"), or "" for null.
func WithUnit(v Value, unit string) string {
	if v.IsZero() {
		return ""
	}
	if unit == "" {
		return v.String()
	}
	if unit == "%" {
		return v.String() + unit
	}
	return v.String() + " " + unit
}

// Delta describes how m changed from its previousValue: "+3 ms (+4.1%)" for numbers,
// "-0.7 pp (-0.9% relative)" for values in % (percentage points first, so the two
// kinds of percentage cannot be confused), "was <old>" for strings that differ,
// "unchanged", or "" without a previous value.
func Delta(m MetricItem) string {
	if m.PreviousValue.IsZero() {
		return ""
	}
	cur, ok1 := m.Value.Number()
	prev, ok2 := m.PreviousValue.Number()
	if ok1 && ok2 {
		d := math.Round((cur-prev)*1e6) / 1e6 // hide float noise such as 0.30000000000000004
		if d == 0 {
			return "unchanged"
		}
		out := WithUnit(Num(d), m.Unit)
		if m.Unit == "%" {
			out = Num(d).String() + " pp"
		}
		if d > 0 {
			out = "+" + out
		}
		if prev != 0 {
			rel := ""
			if m.Unit == "%" {
				rel = " relative"
			}
			out += fmt.Sprintf(" (%+.1f%%%s)", d/abs(prev)*100, rel)
		}
		return out
	}
	if m.Value.Equal(m.PreviousValue) {
		return "unchanged"
	}
	return "was " + WithUnit(m.PreviousValue, m.Unit)
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// oneLine keeps a heading or table value on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(oneLine(s), "|", `\|`)
}
