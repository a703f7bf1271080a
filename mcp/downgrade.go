package mcp

// The functions here shape values for a peer of an older revision: members that do
// not exist in that revision are left out. They copy; the registered values are never
// changed.

func downgradeImplementation(impl *Implementation, rev *revision) *Implementation {
	c := *impl
	if !rev.titles {
		c.Title = ""
	}
	if !rev.icons {
		c.Description, c.WebsiteURL, c.Icons = "", "", nil
	}
	return &c
}

func downgradeTool(t *Tool, rev *revision) *Tool {
	if rev.stateless && t.Execution != nil {
		c := *t
		c.Execution = nil // gone in 2026-07-28 (tasks moved to an extension)
		return &c
	}
	if rev.icons && rev.structured {
		return t
	}
	c := *t
	if !rev.titles {
		c.Title = ""
	}
	if !rev.structured {
		c.OutputSchema = nil
	}
	if !rev.toolAnnotations {
		c.Annotations = nil
	}
	if !rev.icons {
		c.Icons, c.Execution = nil, nil
	}
	return &c
}

func downgradeResource(r *Resource, rev *revision) *Resource {
	if rev.icons {
		return r
	}
	c := *r
	c.Icons = nil
	if !rev.titles {
		c.Title = ""
	}
	c.Annotations = downgradeAnnotations(c.Annotations, rev)
	return &c
}

func downgradeTemplate(t *ResourceTemplate, rev *revision) *ResourceTemplate {
	if rev.icons {
		return t
	}
	c := *t
	c.Icons = nil
	if !rev.titles {
		c.Title = ""
	}
	c.Annotations = downgradeAnnotations(c.Annotations, rev)
	return &c
}

func downgradePrompt(p *Prompt, rev *revision) *Prompt {
	if rev.icons {
		return p
	}
	c := *p
	c.Icons = nil
	if !rev.titles {
		c.Title = ""
		c.Arguments = make([]*PromptArgument, len(p.Arguments))
		for i, a := range p.Arguments {
			ac := *a
			ac.Title = ""
			c.Arguments[i] = &ac
		}
	}
	return &c
}

func downgradeAnnotations(a *Annotations, rev *revision) *Annotations {
	if a == nil || rev.titles || a.LastModified == "" {
		return a
	}
	c := *a
	c.LastModified = ""
	return &c
}

// downgradeCallToolResult drops structuredContent before 2025-06-18 (the text block
// carries the same JSON) and replaces blocks the revision lacks with text.
// SPEC NOTE: a 2024-11-05 client cannot receive audio or resource links, so they
// become text blocks describing them instead of vanishing silently.
func downgradeCallToolResult(r *CallToolResult, rev *revision) *CallToolResult {
	if rev.structured {
		return r
	}
	c := *r
	c.StructuredContent = nil
	c.Content = make([]Content, len(r.Content))
	for i, b := range r.Content {
		c.Content[i] = downgradeContent(b, rev)
	}
	return &c
}

func downgradeContent(b Content, rev *revision) Content {
	switch v := b.(type) {
	case *AudioContent:
		if !rev.audio {
			return &TextContent{Text: "[audio content (" + v.MIMEType + ") not supported by protocol revision " + rev.name + "]"}
		}
	case *ResourceLink:
		if !rev.resourceLinks {
			return &TextContent{Text: "Resource: " + v.URI}
		}
	}
	return b
}
