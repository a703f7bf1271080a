// Package kbapi is a small read-only HTTP API a knowledge-base product might have —
// projects, entities (guides, concepts, projects, news) with relationships,
// search-performance records and quotable citation blocks — over deterministic sample
// data (Sample), with its OpenAPI 3.1 document (OpenAPI, served at /openapi.json).
// The gateway's REST bridge is tested against it and its built-in demo serves it.
//
// The contract: lists answer {data, pagination: {page, limit, total, hasMore}} with a
// fixed order that filters never change; errors answer {error: {code, message}}; the
// project comes from x-project-id (a UUID), else x-project-slug, else the default
// project, and an entity of another project is NOT_FOUND, like one that does not
// exist. Only the standard library is used.
//
//	h := kbapi.New(nil)
//	http.ListenAndServe("127.0.0.1:8081", h)
package kbapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the API's OpenAPI 3.1 document (JSON).
func OpenAPI() []byte { return slices.Clone(openAPI) }

// Options configures the API. The zero value (or nil) serves Sample() without
// authentication.
type Options struct {
	// Data is served instead of Sample().
	Data *Dataset
	// Token, when set, is required as "Authorization: Bearer <Token>" by every
	// endpoint but /openapi.json (UNAUTHORIZED otherwise).
	Token string
}

// API is the HTTP handler. It is safe for concurrent use; its data never changes.
type API struct {
	data  *Dataset
	token string
	mux   *http.ServeMux
}

// New returns the API.
func New(o *Options) *API {
	if o == nil {
		o = &Options{}
	}
	a := &API{data: o.Data, token: o.Token, mux: http.NewServeMux()}
	if a.data == nil {
		a.data = Sample()
	}
	a.mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(openAPI)
	})
	a.mux.HandleFunc("GET /api/projects", a.auth(a.listProjects))
	a.mux.HandleFunc("GET /api/entities", a.auth(a.scoped(a.searchEntities)))
	a.mux.HandleFunc("GET /api/entities/{id}", a.auth(a.scoped(a.getEntity)))
	a.mux.HandleFunc("GET /api/entities/{id}/graph", a.auth(a.scoped(a.getGraph)))
	a.mux.HandleFunc("GET /api/seo/search-performance", a.auth(a.scoped(a.listPerformance)))
	a.mux.HandleFunc("GET /api/quotable-blocks", a.auth(a.scoped(a.listBlocks)))
	return a
}

// ServeHTTP answers one request; a panic becomes SERVER_ERROR and an unknown route
// NOT_FOUND, both in the error envelope.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			writeError(w, http.StatusInternalServerError, "SERVER_ERROR", "internal error")
		}
	}()
	if _, pattern := a.mux.Handler(r); pattern == "" {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			// BAD_REQUEST is 400 in the API's table of errors, whatever the reason.
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusBadRequest, "BAD_REQUEST", "this API is read-only: only GET is served")
			return
		}
		writeError(w, http.StatusNotFound, "NOT_FOUND", "no such endpoint")
		return
	}
	a.mux.ServeHTTP(w, r)
}

// apiError is an error answer.
type apiError struct {
	status int
	code   string
	msg    string
}

func badRequest(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, "BAD_REQUEST", fmt.Sprintf(format, args...)}
}

func notFound(what string) *apiError {
	return &apiError{http.StatusNotFound, "NOT_FOUND", what + " not found"}
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]string{"code": code, "message": msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":{"code":"SERVER_ERROR","message":"internal error"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

type handler func(r *http.Request) (any, *apiError)

type scopedHandler func(r *http.Request, p *Project) (any, *apiError)

func (a *API) auth(h handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if a.token != "" && r.Header.Get("Authorization") != "Bearer "+a.token {
			writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "missing or invalid credentials")
			return
		}
		v, e := h(r)
		if e != nil {
			writeError(w, e.status, e.code, e.msg)
			return
		}
		writeJSON(w, http.StatusOK, v)
	}
}

var (
	uuidRE = regexp.MustCompile(`(?i)^[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	slugRE = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{3})?Z)?$`)
)

// ValidUUID reports whether s is a UUID as the API accepts them.
func ValidUUID(s string) bool { return uuidRE.MatchString(s) }

// resolveProject is the project of a scoped request: x-project-id, else
// x-project-slug, else the projectId cookie (a UUID), else the default project.
func (a *API) resolveProject(r *http.Request) (*Project, *apiError) {
	find := func(match func(*Project) bool) *Project {
		for _, p := range a.data.Projects {
			if match(p) {
				return p
			}
		}
		return nil
	}
	var p *Project
	if id := r.Header.Get("x-project-id"); id != "" {
		if !ValidUUID(id) {
			return nil, badRequest("x-project-id must be a UUID (got %q)", id)
		}
		p = find(func(p *Project) bool { return strings.EqualFold(p.ID, id) })
	} else if slug := r.Header.Get("x-project-slug"); slug != "" {
		if !slugRE.MatchString(slug) {
			return nil, badRequest("x-project-slug must be lower-case letters, digits and hyphens (got %q)", slug)
		}
		p = find(func(p *Project) bool { return p.Slug == slug })
	} else if c, err := r.Cookie("projectId"); err == nil && c.Value != "" {
		if !ValidUUID(c.Value) {
			return nil, badRequest("the projectId cookie must be a UUID (got %q)", c.Value)
		}
		p = find(func(p *Project) bool { return strings.EqualFold(p.ID, c.Value) })
	} else {
		p = find(func(p *Project) bool { return p.ID == DefaultProjectID })
	}
	if p == nil {
		return nil, notFound("project")
	}
	if p.locked {
		return nil, &apiError{http.StatusForbidden, "FORBIDDEN", "access to this project is not permitted"}
	}
	return p, nil
}

func (a *API) scoped(h scopedHandler) handler {
	return func(r *http.Request) (any, *apiError) {
		p, e := a.resolveProject(r)
		if e != nil {
			return nil, e
		}
		return h(r, p)
	}
}

// pagination is the page asked for.
type pagination struct {
	Page    int  `json:"page"`
	Limit   int  `json:"limit"`
	Total   int  `json:"total"`
	HasMore bool `json:"hasMore"`
}

func intParam(r *http.Request, name string, def, lo, hi int) (int, *apiError) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, badRequest("%s must be an integer from %d to %d (got %q)", name, lo, hi, s)
	}
	return n, nil
}

// maxPage is the highest page number accepted: 2^53-1, the largest integer every
// JSON client represents exactly (page has no other maximum; a page past the end is
// empty). page*limit cannot overflow below it.
const maxPage = 1<<53 - 1

// page cuts one page of items.
func page[T any](r *http.Request, items []T) (any, *apiError) {
	pg, e := intParam(r, "page", 1, 1, maxPage)
	if e != nil {
		return nil, e
	}
	limit, e := intParam(r, "limit", 20, 1, 100)
	if e != nil {
		return nil, e
	}
	total := len(items)
	from := min((pg-1)*limit, total)
	to := min(from+limit, total)
	data := items[from:to]
	if data == nil {
		data = []T{}
	}
	return map[string]any{"data": data, "pagination": pagination{Page: pg, Limit: limit, Total: total, HasMore: pg*limit < total}}, nil
}

func enumParam(r *http.Request, name string, valid []string) (string, *apiError) {
	s := r.URL.Query().Get(name)
	if s != "" && !slices.Contains(valid, s) {
		return "", badRequest("invalid %s %q: valid values are %s", name, s, strings.Join(valid, ", "))
	}
	return s, nil
}

func uuidParam(r *http.Request, name string) (string, *apiError) {
	s := r.URL.Query().Get(name)
	if s != "" && !ValidUUID(s) {
		return "", badRequest("%s must be a UUID (got %q)", name, s)
	}
	return strings.ToLower(s), nil
}

// ParseDate parses a date as the API accepts them: YYYY-MM-DD or
// YYYY-MM-DDTHH:mm:ss(.sss)Z, nothing else.
func ParseDate(s string) (time.Time, bool) {
	if !dateRE.MatchString(s) {
		return time.Time{}, false
	}
	layout := "2006-01-02"
	if len(s) > 10 {
		layout = time.RFC3339Nano
	}
	t, err := time.Parse(layout, s)
	return t, err == nil
}

func dateParam(r *http.Request, name string) (time.Time, bool, *apiError) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return time.Time{}, false, nil
	}
	t, ok := ParseDate(s)
	if !ok {
		return time.Time{}, false, badRequest("%s must be YYYY-MM-DD or YYYY-MM-DDTHH:mm:ss(.sss)Z in UTC (got %q)", name, s)
	}
	return t, true, nil
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// desc orders by createdAt desc, id desc.
func desc(ca, ia, cb, ib string) int {
	if c := strings.Compare(cb, ca); c != 0 {
		return c
	}
	return strings.Compare(ib, ia)
}

func (a *API) listProjects(r *http.Request) (any, *apiError) {
	ps := slices.Clone(a.data.Projects)
	slices.SortFunc(ps, func(x, y *Project) int {
		if c := strings.Compare(x.Slug, y.Slug); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return page(r, ps)
}

func (a *API) searchEntities(r *http.Request, p *Project) (any, *apiError) {
	typ, e := enumParam(r, "entityType", EntityTypes)
	if e != nil {
		return nil, e
	}
	status, e := enumParam(r, "status", Statuses)
	if e != nil {
		return nil, e
	}
	kind, e := enumParam(r, "conceptKind", ConceptKinds)
	if e != nil {
		return nil, e
	}
	search := r.URL.Query().Get("search")
	var out []*Entity
	for _, x := range a.data.Entities {
		if x.ProjectID != p.ID || (typ != "" && x.EntityType != typ) || (status != "" && x.Status != status) ||
			(kind != "" && (x.ConceptKind == nil || *x.ConceptKind != kind)) ||
			(search != "" && !containsFold(x.Title, search) && !containsFold(x.Slug, search)) {
			continue
		}
		out = append(out, x)
	}
	slices.SortFunc(out, func(x, y *Entity) int { return desc(x.CreatedAt, x.ID, y.CreatedAt, y.ID) })
	return page(r, out)
}

// entity returns the project's entity with the id, or nil.
func (a *API) entity(p *Project, id string) *Entity {
	for _, x := range a.data.Entities {
		if x.ProjectID == p.ID && strings.EqualFold(x.ID, id) {
			return x
		}
	}
	return nil
}

func (a *API) pathEntity(r *http.Request, p *Project) (*Entity, *apiError) {
	id := r.PathValue("id")
	if !ValidUUID(id) {
		return nil, badRequest("entity id must be a UUID (got %q)", id)
	}
	x := a.entity(p, id)
	if x == nil {
		// Another project's entity is answered exactly like a missing one.
		return nil, notFound("entity")
	}
	return x, nil
}

func (a *API) getEntity(r *http.Request, p *Project) (any, *apiError) {
	x, e := a.pathEntity(r, p)
	if e != nil {
		return nil, e
	}
	return map[string]any{"data": x}, nil
}

// relatedEntity is the short form of an entity in a graph.
type relatedEntity struct {
	ID         string `json:"id"`
	EntityType string `json:"entityType"`
	Title      string `json:"title"`
	Slug       string `json:"slug"`
	Status     string `json:"status"`
}

type graphEdge struct {
	*Relationship
	RelatedEntity *relatedEntity `json:"relatedEntity"`
}

func (a *API) getGraph(r *http.Request, p *Project) (any, *apiError) {
	root, e := a.pathEntity(r, p)
	if e != nil {
		return nil, e
	}
	depth := 1
	if s := r.URL.Query().Get("depth"); s != "" {
		if s != "1" && s != "2" {
			return nil, badRequest("depth must be 1 or 2 (got %q)", s)
		}
		depth = int(s[0] - '0')
	}
	types := map[string]bool{}
	if s := r.URL.Query().Get("relationshipTypes"); strings.TrimSpace(s) != "" {
		for _, t := range strings.Split(s, ",") {
			t = strings.TrimSpace(t)
			if !slices.Contains(RelationTypes, t) {
				return nil, badRequest("invalid relationship type %q: valid values are %s", t, strings.Join(RelationTypes, ", "))
			}
			types[t] = true
		}
	}
	// Edges inside the project only: both ends either entities of this project or
	// things that are not entities at all (sources, videos); an end that is another
	// project's entity hides the edge.
	isForeign := func(id string) bool {
		for _, x := range a.data.Entities {
			if strings.EqualFold(x.ID, id) {
				return x.ProjectID != p.ID
			}
		}
		return false
	}
	var edges []*Relationship
	for _, rel := range a.data.Relationships {
		if rel.ProjectID != p.ID || (len(types) > 0 && !types[rel.RelationType]) || isForeign(rel.FromEntityID) || isForeign(rel.ToEntityID) {
			continue
		}
		edges = append(edges, rel)
	}
	// Breadth first: the root's edges, then (depth 2) the edges of its neighbours,
	// expanded in id order; an edge is reported once, with the end away from the
	// entity it was reached through.
	seen := map[string]bool{}
	var out []*graphEdge
	frontier := []string{root.ID}
	visited := map[string]bool{root.ID: true}
	for level := 1; level <= depth; level++ {
		var next []string
		for _, id := range frontier {
			for _, rel := range edges {
				if seen[rel.ID] || (rel.FromEntityID != id && rel.ToEntityID != id) {
					continue
				}
				seen[rel.ID] = true
				other := rel.ToEntityID
				if other == id {
					other = rel.FromEntityID
				}
				ge := &graphEdge{Relationship: rel}
				if x := a.entity(p, other); x != nil {
					ge.RelatedEntity = &relatedEntity{ID: x.ID, EntityType: x.EntityType, Title: x.Title, Slug: x.Slug, Status: x.Status}
					if !visited[x.ID] {
						visited[x.ID] = true
						next = append(next, x.ID)
					}
				}
				out = append(out, ge)
			}
		}
		slices.Sort(next)
		frontier = next
	}
	slices.SortFunc(out, func(x, y *graphEdge) int { return desc(x.CreatedAt, x.ID, y.CreatedAt, y.ID) })
	if out == nil {
		out = []*graphEdge{}
	}
	return map[string]any{"data": map[string]any{"rootEntity": root, "relationships": out, "depth": depth}}, nil
}

func (a *API) listPerformance(r *http.Request, p *Project) (any, *apiError) {
	q := r.URL.Query()
	entityID, e := uuidParam(r, "entityId")
	if e != nil {
		return nil, e
	}
	start, hasStart, e := dateParam(r, "dateStart")
	if e != nil {
		return nil, e
	}
	end, hasEnd, e := dateParam(r, "dateEnd")
	if e != nil {
		return nil, e
	}
	if hasStart && hasEnd && start.After(end) {
		return nil, badRequest("dateStart (%s) is after dateEnd (%s)", q.Get("dateStart"), q.Get("dateEnd"))
	}
	query, pageURL := q.Get("query"), q.Get("pageUrl")
	var out []*SearchPerformance
	for _, x := range a.data.Performance {
		if x.ProjectID != p.ID || (query != "" && !containsFold(x.Query, query)) || (pageURL != "" && !containsFold(x.PageURL, pageURL)) ||
			(entityID != "" && (x.EntityID == nil || !strings.EqualFold(*x.EntityID, entityID))) {
			continue
		}
		ds, _ := ParseDate(x.DateStart)
		de, _ := ParseDate(x.DateEnd)
		if (hasStart && ds.Before(start)) || (hasEnd && de.After(end)) {
			continue
		}
		out = append(out, x)
	}
	slices.SortFunc(out, func(x, y *SearchPerformance) int {
		for _, c := range []int{strings.Compare(y.DateStart, x.DateStart), strings.Compare(y.DateEnd, x.DateEnd),
			strings.Compare(x.Query, y.Query), strings.Compare(x.PageURL, y.PageURL), strings.Compare(y.ID, x.ID)} {
			if c != 0 {
				return c
			}
		}
		return 0
	})
	return page(r, out)
}

func (a *API) listBlocks(r *http.Request, p *Project) (any, *apiError) {
	entityID, e := uuidParam(r, "entityId")
	if e != nil {
		return nil, e
	}
	claim, e := enumParam(r, "claimType", ClaimTypes)
	if e != nil {
		return nil, e
	}
	before, hasBefore, e := dateParam(r, "verifiedUntilBefore")
	if e != nil {
		return nil, e
	}
	after, hasAfter, e := dateParam(r, "verifiedUntilAfter")
	if e != nil {
		return nil, e
	}
	tag := r.URL.Query().Get("topicTag")
	var out []*QuotableBlock
	for _, x := range a.data.Blocks {
		if x.ProjectID != p.ID || (entityID != "" && !strings.EqualFold(x.EntityID, entityID)) || (claim != "" && x.ClaimType != claim) ||
			(tag != "" && (x.TopicTag == nil || !containsFold(*x.TopicTag, tag))) {
			continue
		}
		if hasBefore || hasAfter {
			if x.VerifiedUntil == nil {
				continue
			}
			v, _ := ParseDate(*x.VerifiedUntil)
			if (hasBefore && !v.Before(before)) || (hasAfter && !v.After(after)) {
				continue
			}
		}
		out = append(out, x)
	}
	slices.SortFunc(out, func(x, y *QuotableBlock) int { return desc(x.CreatedAt, x.ID, y.CreatedAt, y.ID) })
	return page(r, out)
}
