package kbapi

import (
	"fmt"
	"strings"
	"time"
)

// Project is a knowledge-base project.
type Project struct {
	ID          string  `json:"id"`
	Slug        string  `json:"slug"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	CreatedAt   string  `json:"createdAt"`
	UpdatedAt   string  `json:"updatedAt"`

	locked bool // scoped requests to it are FORBIDDEN
}

// Entity is a guide, concept, project or news item.
type Entity struct {
	ID             string  `json:"id"`
	ProjectID      string  `json:"projectId"`
	EntityType     string  `json:"entityType"`
	Title          string  `json:"title"`
	Slug           string  `json:"slug"`
	Summary        *string `json:"summary"`
	Difficulty     *string `json:"difficulty"`
	ConceptKind    *string `json:"conceptKind"`
	RepoURL        *string `json:"repoUrl"`
	Status         string  `json:"status"`
	CanonicalURL   *string `json:"canonicalUrl"`
	LastVerifiedAt *string `json:"lastVerifiedAt"`
	CreatedAt      string  `json:"createdAt"`
	UpdatedAt      string  `json:"updatedAt"`
}

// Relationship links two entities (or an entity and something that is not one, such
// as a source).
type Relationship struct {
	ID           string  `json:"id"`
	ProjectID    string  `json:"-"`
	RelationType string  `json:"relationType"`
	FromEntityID string  `json:"fromEntityId"`
	ToEntityID   string  `json:"toEntityId"`
	Notes        *string `json:"notes"`
	CreatedAt    string  `json:"createdAt"`
}

// SearchPerformance is one search-console record.
type SearchPerformance struct {
	ID          string  `json:"id"`
	ProjectID   string  `json:"projectId"`
	EntityID    *string `json:"entityId"`
	PageURL     string  `json:"pageUrl"`
	Query       string  `json:"query"`
	Impressions int     `json:"impressions"`
	Clicks      int     `json:"clicks"`
	CTR         float64 `json:"ctr"`
	AvgPosition float64 `json:"avgPosition"`
	DateStart   string  `json:"dateStart"`
	DateEnd     string  `json:"dateEnd"`
	CapturedAt  string  `json:"capturedAt"`
}

// QuotableBlock is a citation block of an entity.
type QuotableBlock struct {
	ID             string  `json:"id"`
	ProjectID      string  `json:"projectId"`
	EntityID       string  `json:"entityId"`
	Text           string  `json:"text"`
	ClaimType      string  `json:"claimType"`
	SourceCitation *string `json:"sourceCitation"`
	VerifiedUntil  *string `json:"verifiedUntil"`
	TopicTag       *string `json:"topicTag"`
	CreatedAt      string  `json:"createdAt"`
	UpdatedAt      string  `json:"updatedAt"`
}

// The enumerations of the API.
var (
	EntityTypes   = []string{"guide", "concept", "project", "news"}
	Statuses      = []string{"draft", "publish_requested", "published", "archived"}
	ConceptKinds  = []string{"standard", "model", "comparison"}
	Difficulties  = []string{"beginner", "intermediate", "advanced"}
	ClaimTypes    = []string{"statistic", "comparison", "definition", "howto_step"}
	RelationTypes = []string{
		"GUIDE_USES_CONCEPT", "GUIDE_EXPLAINS_CONCEPT", "GUIDE_REFERENCES_SOURCE",
		"CONCEPT_RELATES_TO_CONCEPT", "CONCEPT_REFERENCES_SOURCE",
		"NEWS_DERIVED_FROM_SOURCE", "NEWS_REFERENCES_SOURCE", "NEWS_REFERENCES_CONCEPT",
		"PROJECT_IMPLEMENTS_CONCEPT", "PROJECT_REFERENCES_SOURCE", "PROJECT_HAS_GUIDE",
		"DISTRIBUTION_PROMOTES_GUIDE", "DISTRIBUTION_PROMOTES_CONCEPT",
		"DISTRIBUTION_PROMOTES_PROJECT", "DISTRIBUTION_PROMOTES_NEWS",
		"VIDEO_EXPLAINS_GUIDE", "VIDEO_EXPLAINS_CONCEPT",
		"VIDEO_EXPLAINS_PROJECT", "VIDEO_EXPLAINS_NEWS",
	}
)

// The sample projects. DefaultProjectID is used when a request names none.
const (
	DefaultProjectID = "00000000-0000-4000-a000-000000000001"
	AtlasProjectID   = "00000000-0000-4000-a000-000000000002"
	VaultProjectID   = "00000000-0000-4000-a000-000000000003"
)

// Dataset is the API's data, built deterministically by Sample.
type Dataset struct {
	Projects      []*Project
	Entities      []*Entity
	Relationships []*Relationship
	Performance   []*SearchPerformance
	Blocks        []*QuotableBlock
}

func ptr(s string) *string { return &s }

var base = time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

var topics = []string{
	"Reliability", "Construct Validity", "Factor Analysis", "Item Response Theory", "Test Bias",
	"Norm Groups", "Likert Scales", "Cronbach Alpha", "Measurement Error", "Standard Scores",
	"Inter-rater Agreement", "Adaptive Testing", "Big Five Model", "Percentiles", "Effect Size",
	"Sampling", "Confidence Intervals", "Test-Retest", "Scale Development", "Response Styles",
}

func slugify(s string) string {
	s = strings.ToLower(s)
	var b strings.Builder
	dash := false
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// Sample returns the sample data: three projects (the default one with 48 entities,
// a second with 12, and a locked one), relationships of all 19 types (a few pointing
// at sources, which are not entities, and one planted across projects, which the
// graph must never follow), 60 search-performance records and 36 quotable blocks. The
// same every time.
func Sample() *Dataset {
	d := &Dataset{}
	d.Projects = []*Project{
		{ID: DefaultProjectID, Slug: "psymetric", Name: "PsyMetric", Description: ptr("Psychometrics explained: guides, concepts, projects and news."),
			CreatedAt: stamp(base), UpdatedAt: stamp(base.Add(24 * time.Hour))},
		{ID: AtlasProjectID, Slug: "atlas-notes", Name: "Atlas Notes", Description: nil,
			CreatedAt: stamp(base.Add(time.Hour)), UpdatedAt: stamp(base.Add(time.Hour))},
		{ID: VaultProjectID, Slug: "vault", Name: "Vault", Description: ptr("Locked: scoped requests are forbidden."),
			CreatedAt: stamp(base.Add(2 * time.Hour)), UpdatedAt: stamp(base.Add(2 * time.Hour)), locked: true},
	}
	byProject := map[string][]*Entity{}
	addEntities := func(pid string, pn, n int) {
		for i := 0; i < n; i++ {
			typ := EntityTypes[i%4]
			topic := topics[(i*7+pn)%len(topics)]
			title := topic
			switch typ {
			case "guide":
				title = "A guide to " + topic
			case "project":
				title = topic + " toolkit"
			case "news":
				title = fmt.Sprintf("%s: news #%d", topic, i)
			}
			// Every fifth pair shares its creation time, so that id breaks the tie.
			created := base.Add(time.Duration(i/2*2+boolInt(i%5 != 0)*(i%2)) * 6 * time.Hour)
			e := &Entity{
				ID:         fmt.Sprintf("e%07x-0000-4000-8000-%012x", pn, i+1),
				ProjectID:  pid,
				EntityType: typ,
				Title:      title,
				Slug:       fmt.Sprintf("%s-%d", slugify(title), i+1),
				Status:     Statuses[(i/3)%4],
				CreatedAt:  stamp(created),
				UpdatedAt:  stamp(created.Add(time.Duration(i%3) * time.Hour)),
			}
			if i%6 != 5 {
				e.Summary = ptr(fmt.Sprintf("What %s is and how it is used in practice.", strings.ToLower(topic)))
			}
			if typ == "guide" {
				e.Difficulty = ptr(Difficulties[i%3])
			}
			if typ == "concept" {
				e.ConceptKind = ptr(ConceptKinds[(i/4)%3])
			}
			if typ == "project" {
				e.RepoURL = ptr("https://git.example.com/kb/" + e.Slug)
			}
			if e.Status == "published" {
				e.CanonicalURL = ptr("https://kb.example.com/" + typ + "s/" + e.Slug)
				e.LastVerifiedAt = ptr(stamp(created.Add(30 * 24 * time.Hour)))
			}
			d.Entities = append(d.Entities, e)
			byProject[pid] = append(byProject[pid], e)
		}
	}
	addEntities(DefaultProjectID, 1, 48)
	addEntities(AtlasProjectID, 2, 12)
	addEntities(VaultProjectID, 3, 4)

	// Relationships: typed by their ends where both are entities; *_SOURCE and
	// DISTRIBUTION_/VIDEO_ ones have an end that is not an entity of the API.
	rn := 0
	rel := func(pid, typ, from, to string, t time.Time, notes *string) {
		rn++
		d.Relationships = append(d.Relationships, &Relationship{
			ID: fmt.Sprintf("a%07x-0000-4000-9000-%012x", rn, rn), ProjectID: pid, RelationType: typ,
			FromEntityID: from, ToEntityID: to, Notes: notes, CreatedAt: stamp(t),
		})
	}
	outside := func(n int) string { return fmt.Sprintf("50000000-0000-4000-b000-%012x", n) }
	for pn, pid := range []string{DefaultProjectID, AtlasProjectID} {
		es := byProject[pid]
		of := func(typ string) []*Entity {
			var out []*Entity
			for _, e := range es {
				if e.EntityType == typ {
					out = append(out, e)
				}
			}
			return out
		}
		guides, concepts, projects, news := of("guide"), of("concept"), of("project"), of("news")
		t := base.Add(time.Duration(pn) * time.Hour)
		step := func() time.Time { t = t.Add(5 * time.Hour); return t }
		for i, g := range guides {
			c := concepts[i%len(concepts)]
			rel(pid, "GUIDE_USES_CONCEPT", g.ID, c.ID, step(), nil)
			rel(pid, "GUIDE_EXPLAINS_CONCEPT", g.ID, concepts[(i+1)%len(concepts)].ID, step(), ptr("explains it step by step"))
			rel(pid, "GUIDE_REFERENCES_SOURCE", g.ID, outside(i+1), step(), nil)
		}
		for i, c := range concepts {
			rel(pid, "CONCEPT_RELATES_TO_CONCEPT", c.ID, concepts[(i+1)%len(concepts)].ID, step(), nil)
			rel(pid, "CONCEPT_REFERENCES_SOURCE", c.ID, outside(100+i), step(), nil)
		}
		for i, n := range news {
			rel(pid, "NEWS_DERIVED_FROM_SOURCE", n.ID, outside(200+i), step(), nil)
			rel(pid, "NEWS_REFERENCES_SOURCE", n.ID, outside(300+i), step(), nil)
			rel(pid, "NEWS_REFERENCES_CONCEPT", n.ID, concepts[i%len(concepts)].ID, step(), nil)
		}
		for i, p := range projects {
			rel(pid, "PROJECT_IMPLEMENTS_CONCEPT", p.ID, concepts[i%len(concepts)].ID, step(), nil)
			rel(pid, "PROJECT_REFERENCES_SOURCE", p.ID, outside(400+i), step(), nil)
			rel(pid, "PROJECT_HAS_GUIDE", p.ID, guides[i%len(guides)].ID, step(), nil)
		}
		// Distributions and videos are not entities of this API. A video edge is
		// created at the same time as the distribution edge of the same entity, so
		// that id breaks a tie in a graph's order.
		var times []time.Time
		for i, typ := range []string{"DISTRIBUTION_PROMOTES_GUIDE", "DISTRIBUTION_PROMOTES_CONCEPT", "DISTRIBUTION_PROMOTES_PROJECT", "DISTRIBUTION_PROMOTES_NEWS",
			"VIDEO_EXPLAINS_GUIDE", "VIDEO_EXPLAINS_CONCEPT", "VIDEO_EXPLAINS_PROJECT", "VIDEO_EXPLAINS_NEWS"} {
			targets := [][]*Entity{guides, concepts, projects, news}[i%4]
			at := step()
			if i >= 4 {
				at = times[i-4]
			}
			times = append(times, at)
			rel(pid, typ, outside(500+i), targets[0].ID, at, nil)
		}
	}
	// Planted bad data: an edge from the default project's first concept to an
	// entity of another project. The graph must never follow it.
	rel(DefaultProjectID, "CONCEPT_RELATES_TO_CONCEPT", byProject[DefaultProjectID][1].ID, byProject[AtlasProjectID][1].ID, base.Add(9000*time.Hour), ptr("cross-project (must stay invisible)"))

	// Search performance: weekly ranges, several queries and pages.
	queries := []string{"what is reliability", "construct validity example", "factor analysis guide", "irt model", "cronbach alpha calculator", "test bias"}
	pn := 0
	for _, pid := range []string{DefaultProjectID, AtlasProjectID} {
		es := byProject[pid]
		weeks, per := 8, 6
		if pid == AtlasProjectID {
			weeks, per = 2, 6
		}
		for w := 0; w < weeks; w++ {
			start := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 7*w)
			end := start.AddDate(0, 0, 6)
			var prevPage string
			var prevEntity *string
			for q := 0; q < per; q++ {
				pn++
				var eid *string
				page := fmt.Sprintf("https://kb.example.com/pages/%d", q%4)
				if q%3 != 2 {
					e := es[(w*per+q)%len(es)]
					eid = ptr(e.ID)
					page = "https://kb.example.com/" + e.EntityType + "s/" + e.Slug
				}
				// Ties on purpose, so that every key of the order decides somewhere:
				// records q and q+1 of a week share their query (pageUrl breaks the
				// tie), and in even weeks the last two also share their page (only id
				// breaks it).
				if q == per-1 && w%2 == 0 {
					page, eid = prevPage, prevEntity
				}
				prevPage, prevEntity = page, eid
				// In even weeks the first record covers two weeks: dateEnd decides
				// between it and the records that start with it.
				recordEnd := end
				if q == 0 && w%2 == 0 {
					recordEnd = start.AddDate(0, 0, 13)
				}
				imp := 100 + (w*37+q*53)%900
				clicks := (imp * (q + 1)) / 40
				d.Performance = append(d.Performance, &SearchPerformance{
					ID: fmt.Sprintf("c%07x-0000-4000-a000-%012x", pn, pn), ProjectID: pid, EntityID: eid, PageURL: page,
					Query: queries[(q/2+w)%len(queries)], Impressions: imp, Clicks: clicks,
					CTR:         float64(int(float64(clicks)/float64(imp)*10000)) / 10000,
					AvgPosition: 1 + float64((w*13+q*7)%200)/10,
					DateStart:   start.Format("2006-01-02"), DateEnd: recordEnd.Format("2006-01-02"),
					CapturedAt: stamp(recordEnd.AddDate(0, 0, 3)),
				})
			}
		}
	}
	// Quotable blocks.
	bn := 0
	for _, pid := range []string{DefaultProjectID, AtlasProjectID} {
		es := byProject[pid]
		n := 30
		if pid == AtlasProjectID {
			n = 6
		}
		for i := 0; i < n; i++ {
			bn++
			e := es[(i*5)%len(es)]
			topic := topics[(i*3)%len(topics)]
			created := base.Add(time.Duration(i/2) * 11 * time.Hour) // pairs share a time
			b := &QuotableBlock{
				ID: fmt.Sprintf("b%07x-0000-4000-b000-%012x", bn, bn), ProjectID: pid, EntityID: e.ID,
				ClaimType: ClaimTypes[i%4],
				Text: fmt.Sprintf("%s, in short: a measure is only as useful as its evidence, and this statement about %s holds for the samples and instruments described in the parent entity, checked against the cited source at the time of verification.",
					topic, strings.ToLower(topic)),
				CreatedAt: stamp(created), UpdatedAt: stamp(created.Add(2 * time.Hour)),
			}
			if i%4 != 3 {
				b.SourceCitation = ptr(fmt.Sprintf("Example Journal of Measurement, vol. %d", 10+i))
			}
			if i%5 != 4 {
				b.VerifiedUntil = ptr(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC).AddDate(0, i, 0).Format("2006-01-02") + "T00:00:00.000Z")
			}
			if i%3 != 2 {
				b.TopicTag = ptr(slugify(topic))
			}
			d.Blocks = append(d.Blocks, b)
		}
	}
	return d
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
