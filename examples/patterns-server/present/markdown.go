package present

import (
	"fmt"
	"strings"

	"github.com/wiremcp/wiremcp/examples/patterns-server/catalog"
)

var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", `*`, `\*`, `_`, `\_`, `[`, `\[`, `]`, `\]`, `|`, `\|`,
	`#`, `\#`, `<`, `&lt;`, `>`, `&gt;`, "\r\n", " ", "\n", " ", "\r", " ",
)

// esc makes text safe to place inline in Markdown: it cannot open HTML (so it
// cannot forge a contract marker), break a table row or start formatting.
func esc(s string) string { return mdEscaper.Replace(s) }

// fence returns a code fence longer than any backtick run in code.
func fence(code string) string {
	longest, run := 0, 0
	for _, r := range code {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

func renderSearch(r *SearchResults, cards []*catalog.Pattern) []string {
	var b strings.Builder
	q := ""
	if r.Query.Q != nil {
		q = strings.TrimSpace(*r.Query.Q)
	}
	fmt.Fprintf(&b, "## Patterns matching “%s”\n\n", esc(q))
	fmt.Fprintf(&b, "Found **%d** pattern(s)", r.Metadata.TotalCount)
	if r.Metadata.ReturnedCount < r.Metadata.TotalCount {
		fmt.Fprintf(&b, ", listing the first %d", r.Metadata.ReturnedCount)
	}
	if r.Query.Category != nil {
		fmt.Fprintf(&b, " · category **%s**", esc(*r.Query.Category))
	}
	if r.Query.Difficulty != nil {
		fmt.Fprintf(&b, " · difficulty **%s**", esc(*r.Query.Difficulty))
	}
	b.WriteString(".\n\n")
	b.WriteString(IndexMarker + "\n")
	b.WriteString("| # | Pattern | Id | Category | Difficulty | Tags |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for i, s := range r.Patterns {
		fmt.Fprintf(&b, "| %d | %s | `%s` | %s | %s | %s |\n",
			i+1, esc(s.Title), s.ID, esc(s.Category), esc(s.Difficulty), esc(strings.Join(s.Tags, ", ")))
	}
	if len(r.Patterns) == 0 {
		b.WriteString("\n_No pattern matched. Try fewer or more general words, or drop the filters._\n")
	}
	blocks := []string{b.String()}
	for i, p := range cards {
		blocks = append(blocks, renderCard(i+1, p, r.Patterns[i]))
	}
	if r.Provenance != nil {
		blocks[0] += renderProvenance(r.Provenance)
	}
	return blocks
}

func renderCard(n int, p *catalog.Pattern, s PatternSummary) string {
	var b strings.Builder
	b.WriteString(CardMarker + "\n")
	fmt.Fprintf(&b, "### %d. %s\n\n", n, esc(p.Title))
	fmt.Fprintf(&b, "`%s` · %s · %s", p.ID, p.Category, p.Difficulty)
	if s.Score > 0 {
		fmt.Fprintf(&b, " · relevance %d", s.Score)
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "%s\n\n", esc(Summarize(s.Description, MaxSummaryChars)))
	fmt.Fprintf(&b, "- **Use when:** %s\n", esc(p.UseWhen[0]))
	fmt.Fprintf(&b, "- **Avoid when:** %s\n", esc(p.AvoidWhen[0]))
	fmt.Fprintf(&b, "- **Tags:** %s\n\n", esc(strings.Join(p.Tags, ", ")))
	fmt.Fprintf(&b, "_Full pattern and example: `get_pattern` with id `%s`._\n", p.ID)
	return b.String()
}

// renderProvenance is the provenance panel: a short line naming the source.
func renderProvenance(p *Provenance) string {
	return fmt.Sprintf("\n_Source: %s, catalog version %s, retrieved %s (contract %s)._\n",
		esc(p.Source), esc(p.Version), p.Timestamp, esc(p.Marker))
}

func renderDetails(d *Details, p *catalog.Pattern) []string {
	var b strings.Builder
	b.WriteString(DetailsMarker + "\n")
	fmt.Fprintf(&b, "# %s\n\n", esc(d.Title))
	fmt.Fprintf(&b, "`%s` · %s · %s · tags: %s\n\n", d.ID, d.Category, d.Difficulty, esc(strings.Join(d.Tags, ", ")))
	fmt.Fprintf(&b, "%s\n\n", esc(d.Description))
	b.WriteString("## Use when\n\n")
	for _, u := range p.UseWhen {
		fmt.Fprintf(&b, "- %s\n", esc(u))
	}
	b.WriteString("\n## Avoid when\n\n")
	for _, a := range p.AvoidWhen {
		fmt.Fprintf(&b, "- %s\n", esc(a))
	}
	for _, s := range d.Sections {
		if s.Type == SectionDescription || s.Type == SectionExample {
			continue // the description opens the page; examples follow as code
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", esc(s.Title), esc(s.Content))
	}
	for _, ex := range d.Examples {
		f := fence(ex.Code)
		fmt.Fprintf(&b, "\n## Example: %s\n\n%s%s\n%s", esc(ex.Description), f, ex.Language, ex.Code)
		if !strings.HasSuffix(ex.Code, "\n") {
			b.WriteString("\n")
		}
		b.WriteString(f + "\n")
	}
	if len(d.RelatedPatterns) > 0 {
		var rel []string
		for _, r := range d.RelatedPatterns {
			rel = append(rel, "`"+r+"`")
		}
		fmt.Fprintf(&b, "\nRelated: %s\n", strings.Join(rel, ", "))
	}
	pv := d.Provenance
	b.WriteString(renderProvenance(&pv))
	return []string{b.String()}
}

func renderNeedsInput(n *NeedsInput) []string {
	var b strings.Builder
	b.WriteString("### More input needed\n\n")
	fmt.Fprintf(&b, "%s\n\n", esc(n.Message))
	if n.NeedsInput != nil {
		fmt.Fprintf(&b, "_Why:_ %s\n", esc(n.NeedsInput.Reason))
	}
	if len(n.Options) > 0 {
		b.WriteString("\n**Options**\n\n")
		for _, o := range n.Options {
			fmt.Fprintf(&b, "- **%s** — set `%s` to “%s”", esc(o.Label), o.Field, esc(o.Value))
			if o.Description != "" {
				fmt.Fprintf(&b, " (%s)", esc(o.Description))
			}
			b.WriteString("\n")
		}
	}
	return []string{b.String()}
}

func renderError(e *ToolError) []string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Error `%s`\n\n%s\n", e.Code, esc(e.Message))
	if e.Retryable != nil {
		if *e.Retryable {
			b.WriteString("\n_Retrying may help._\n")
		} else {
			b.WriteString("\n_Retrying the same request will fail again; change the arguments._\n")
		}
	}
	return []string{b.String()}
}
