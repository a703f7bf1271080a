package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
	"github.com/wiremcp/wiremcp/mcp"
)

// sampleRows is how many rows a source description shows.
const sampleRows = 5

// sampleBytes is the JSON bytes of a source description's sample rows (and
// their columns) at most.
const sampleBytes = 64 << 10

// describeTimeout bounds the queries of one source's description (its row count
// and sample rows together), or the server's query timeout if that is shorter.
const describeTimeout = 10 * time.Second

// Description is what describe and resources/read return for any object.
type Description struct {
	URI         string          `json:"uri,omitempty"` // none for the catalog itself, which is no resource
	Path        string          `json:"path"`
	Kind        string          `json:"kind"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Engine      string          `json:"engine,omitempty"`
	Contents    []Item          `json:"contents,omitempty"` // project, package, model, notebook
	Sources     []SourceSummary `json:"sources,omitempty"`  // model
	Queries     []QuerySummary  `json:"queries,omitempty"`  // model, notebook
	Columns     []engine.Column `json:"columns,omitempty"`  // source
	RowCount    *int64          `json:"rowCount,omitempty"` // source
	SampleRows  [][]any         `json:"sampleRows,omitempty"`
	SQL         string          `json:"sql,omitempty"`        // source, query
	Parameters  []catalog.Param `json:"parameters,omitempty"` // query
	Model       string          `json:"model,omitempty"`      // query, notebook: the model it runs against
	Title       string          `json:"title,omitempty"`      // notebook
	Markdown    string          `json:"markdown,omitempty"`   // notebook
	Error       string          `json:"error,omitempty"`      // why a source or model cannot be read
	// Problems lists what the catalog found wrong when it loaded: for the
	// catalog (an empty path), a project or a package, the files and folders
	// skipped or not read, and why, and the problems of its models; for a model,
	// a source or a named query, that its file no longer parses (its previous
	// version is served) and the problems of its named queries.
	Problems []string `json:"problems,omitempty"`
}

// SourceSummary is a source as its model's description lists it.
type SourceSummary struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Columns     []engine.Column `json:"columns,omitempty"`
	Error       string          `json:"error,omitempty"`
}

// QuerySummary is a named query as its model or notebook lists it.
type QuerySummary struct {
	Name        string          `json:"name"`
	Path        string          `json:"path"`
	Description string          `json:"description"`
	SQL         string          `json:"sql"`
	Parameters  []catalog.Param `json:"parameters"`
}

func uriOf(e *catalog.Entry) string {
	return "catalog://" + string(e.Kind) + "/" + e.Path
}

// Describe describes the object at path.
func (s *Service) Describe(ctx context.Context, path string) (*Description, error) {
	sn := s.snap()
	if len(catalog.Segments(path)) == 0 {
		// The catalog itself: its projects, and what was skipped at its top.
		d := &Description{Kind: "catalog", Description: "The catalog: its projects.", Contents: []Item{}, Problems: sn.cat.Problems}
		for _, r := range sn.cat.Roots() {
			d.Contents = append(d.Contents, itemOf(r))
		}
		return d, nil
	}
	e, err := sn.cat.Resolve(path)
	if err != nil {
		return nil, err
	}
	d := &Description{URI: uriOf(e), Path: e.Path, Kind: string(e.Kind), Name: e.Name, Description: e.Description}
	if e.Package != nil {
		d.Engine = e.Package.Engine
	}
	switch e.Kind {
	case catalog.KindProject, catalog.KindPackage:
		if e.Kind == catalog.KindProject {
			d.Problems = e.Project.Problems
		} else {
			// A copy: the engines' findings are appended to it, and the
			// catalog's slice is shared by concurrent calls.
			d.Problems = slices.Clone(e.Package.Problems)
			// The engines' findings, which the catalog's load could not know
			// (the package's problems hold its queries' own).
			for _, m := range e.Package.Models {
				d.Problems = sn.engineFindings(d.Problems, m, false)
			}
			for _, nb := range e.Package.Notebooks {
				for _, q := range nb.Cells {
					d.Problems = append(d.Problems, sn.checks[e.Path+"/"+nb.Name+"/"+q.Name]...)
				}
			}
		}
		d.Problems = capProblems(d.Problems, "its models")
		d.Contents = []Item{}
		for _, c := range e.Children {
			d.Contents = append(d.Contents, itemOf(c))
		}
	case catalog.KindModel:
		d.Problems = capProblems(sn.modelProblems(e.Model), "its named queries")
		eng := sn.engines[e.Model]
		if eng == nil {
			d.Error = sn.broken[e.Model]
		}
		for _, src := range e.Model.Sources {
			ss := SourceSummary{Name: src.Name, Description: src.Description}
			if eng != nil {
				ss.Columns, ss.Error = eng.Columns()[src.Name], sourceProblem(e.Model, eng.Broken()[src.Name])
			}
			d.Sources = append(d.Sources, ss)
		}
		d.Queries = querySummaries(e.Path, e.Model.Queries)
	case catalog.KindNotebook:
		nb := e.Notebook
		d.Title, d.Markdown, d.Model = nb.Title, nb.Markdown, nb.ModelName
		if len(nb.Cells) > 0 && nb.Cells[0].Model == nil {
			d.Model = ""
			if nb.ModelName != "" {
				d.Error = fmt.Sprintf("its cells cannot run: it names the model %q (<!-- model: … --> line), which the package does not have", nb.ModelName)
			} else {
				d.Error = "its cells cannot run: the package has no model"
			}
		} else if nb.ModelName != "" {
			d.Model = e.Parent + "/" + nb.ModelName
		}
		d.Queries = querySummaries(e.Path, nb.Cells)
		d.Problems = slices.Clone(nb.Problems)
		for _, q := range nb.Cells {
			d.Problems = append(d.Problems, q.Problems...)
			d.Problems = append(d.Problems, sn.checks[e.Path+"/"+q.Name]...)
		}
		d.Problems = capProblems(d.Problems, "its cells")
	case catalog.KindQuery:
		d.SQL, d.Parameters = e.Query.SQL, e.Query.Params
		if m := e.Query.Model; m != nil && e.Notebook == nil {
			d.Problems = slices.Clone(m.Problems)
			d.Problems = append(d.Problems, sn.checks[e.Path]...)
		}
		d.Problems = append(d.Problems, e.Query.Problems...)
		if e.Notebook != nil {
			d.Problems = append(d.Problems, sn.checks[e.Path]...)
		}
		if d.Parameters == nil {
			d.Parameters = []catalog.Param{}
		}
		if e.Query.Model != nil {
			d.Model = modelPath(e.Query.Model)
		}
	case catalog.KindSource:
		d.SQL = e.Source.SQL
		d.Problems = e.Model.Problems
		eng := sn.engines[e.Model]
		if eng == nil {
			d.Error = sn.broken[e.Model]
			break
		}
		if msg := eng.Broken()[e.Name]; msg != "" {
			d.Error = sourceProblem(e.Model, msg)
			break
		}
		d.Columns = eng.Columns()[e.Name]
		// The row count and the sample rows share one time limit, so a source
		// whose SQL is slow holds a describe (or a resources/read) no longer
		// than one query would; what did not finish is said, not left out.
		budget := min(s.cfg.QueryTimeout, describeTimeout)
		var deadline time.Time // set as the first query starts, with the whole budget
		var problems []string
		// Its queries count towards the client's share, as execute_query's do:
		// one count, held until describe is done and each of its queries has
		// given its connection back (Limits.Done: with -isolate=false, DuckDB may
		// go on computing past a query's answer).
		release, err := s.shares.take(ctx, e.Model, modelPath(e.Model))
		if err != nil {
			d.Error = "row count and sample rows: not read: " + err.Error() + "; the columns above are complete"
			break
		}
		var holders atomic.Int32 // describe itself, and its queries not done
		holders.Store(1)
		done := func() {
			if holders.Add(-1) == 0 {
				release()
			}
		}
		defer done()
		run := func(what, sqlText string) *engine.Result {
			left := budget
			if deadline.IsZero() {
				// The first query has the whole budget: time this machine
				// took before it (a preempted goroutine) is not told to the
				// caller as part of the limit spent.
				deadline = time.Now().Add(budget)
			} else {
				left = time.Until(deadline)
			}
			if left <= 0 {
				problems = append(problems, fmt.Sprintf("%s: not read, describe's %s limit was spent; %s with execute_query may still answer", what, budget, sqlText))
				return nil
			}
			holders.Add(1)
			client, group := turnOf(ctx)
			res, err := eng.Query(ctx, sqlText, nil, engine.Limits{RowLimit: sampleRows, ByteBudget: sampleBytes, Timeout: left, Done: done, Client: client, Group: group})
			if to := (*engine.TimeoutError)(nil); errors.As(err, &to) {
				err = errors.New(describeTimeoutProblem(to, e.Name, sqlText, budget, s.cfg.QueryTimeout))
			} else if be := (*engine.BusyError)(nil); errors.As(err, &be) {
				err = errors.New(describeBusyProblem(be, budget))
			}
			if err != nil {
				problems = append(problems, what+": "+packageRelative(e.Model, err.Error()))
				return nil
			}
			return res
		}
		if res := run("row count", "SELECT count(*) FROM "+quoteIdent(e.Name)); res != nil && len(res.Rows) == 1 {
			if n, ok := toInt64(res.Rows[0][0]); ok {
				d.RowCount = &n
			}
		}
		if res := run("sample rows", "SELECT * FROM "+quoteIdent(e.Name)+fmt.Sprintf(" LIMIT %d", sampleRows)); res != nil {
			d.SampleRows = res.Rows
			if res.TruncatedBy == "byteBudget" {
				// Said, not dropped without a word.
				problems = append(problems, fmt.Sprintf("sample rows: %d of the first %d rows shown: they take more than describe's %d KB of JSON for sample rows; read them with execute_query (its byte budget is %d KB), selecting fewer or shorter columns (left(col, 100))", len(res.Rows), sampleRows, sampleBytes>>10, s.cfg.ByteBudget>>10))
			}
		}
		d.Error = strings.Join(problems, "; ")
	}
	return d, nil
}

// maxDescribedProblems is how many problems a description lists at most; a
// last line counts the others and says where each is told.
const maxDescribedProblems = 200

// capProblems is ps cut to maxDescribedProblems, the last line saying how many
// more there are and that describing where (its models, its named queries)
// tells each.
func capProblems(ps []string, where string) []string {
	if len(ps) <= maxDescribedProblems {
		return ps
	}
	out := slices.Clone(ps[:maxDescribedProblems-1])
	return append(out, fmt.Sprintf("… and %d more problems: describe %s to read each", len(ps)-len(out), where))
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int:
		return int64(x), true
	case uint64:
		return int64(x), true
	case *json.RawMessage: // a value as a query process wrote it
		var n int64
		err := json.Unmarshal(*x, &n)
		return n, err == nil
	case fmt.Stringer:
		var n int64
		_, err := fmt.Sscan(x.String(), &n)
		return n, err == nil
	}
	var n int64
	_, err := fmt.Sscan(fmt.Sprint(v), &n)
	return n, err == nil
}

func querySummaries(parent string, qs []*catalog.Query) []QuerySummary {
	out := []QuerySummary{}
	for _, q := range qs {
		ps := q.Params
		if ps == nil {
			ps = []catalog.Param{}
		}
		out = append(out, QuerySummary{Name: q.Name, Path: parent + "/" + q.Name, Description: q.Description, SQL: q.SQL, Parameters: ps})
	}
	return out
}

// templates are the resource templates, one per kind; the URI of an object is
// catalog://KIND/PATH.
var templates = []struct {
	kind catalog.Kind
	uri  string
	desc string
}{
	{catalog.KindProject, "catalog://project/{project}", "A project: its description and packages."},
	{catalog.KindPackage, "catalog://package/{project}/{package}", "A package: its description, engine and contents (models and notebooks)."},
	{catalog.KindModel, "catalog://model/{project}/{package}/{model}", "A model: its sources with columns, and its named queries."},
	{catalog.KindSource, "catalog://source/{project}/{package}/{model}/{source}", "A source: columns with types, row count and sample rows."},
	{catalog.KindQuery, "catalog://query/{project}/{package}/{model}/{query}", "A named query (or notebook cell): SQL and typed parameters."},
	{catalog.KindNotebook, "catalog://notebook/{project}/{package}/{notebook}", "A notebook: its Markdown and its SQL cells."},
}

var templateVars = map[catalog.Kind][]string{
	catalog.KindProject:  {"project"},
	catalog.KindPackage:  {"project", "package"},
	catalog.KindModel:    {"project", "package", "model"},
	catalog.KindSource:   {"project", "package", "model", "source"},
	catalog.KindQuery:    {"project", "package", "model", "query"},
	catalog.KindNotebook: {"project", "package", "notebook"},
}

// registerResources adds the templates and one listed resource per object of the
// current catalog. followReloads keeps the listed resources in step with reloads.
func registerResources(s *mcp.Server, svc *Service) {
	for _, t := range templates {
		kind := t.kind
		s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: t.uri, Name: string(kind), Description: t.desc, MIMEType: "application/json"},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				var segs []string
				for _, v := range templateVars[kind] {
					segs = append(segs, req.Vars[v])
				}
				return svc.readResource(ctx, req.Params.URI, kind, strings.Join(segs, "/"))
			})
	}
	// Last, so the templates above match first: any other catalog:// URI (an
	// object under the wrong kind, a kind that does not exist, too few or too
	// many segments) is answered with what is wrong and the right URI, not with
	// a bare "Resource not found".
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: anyObjectTemplate, Name: "object", Description: "Any catalog object: catalog://KIND/PATH, KIND one of project, package, model, source, query, notebook (the templates above, one per kind).", MIMEType: "application/json"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			rest, ok := strings.CutPrefix(req.Vars["rest"], "//")
			k, path, _ := strings.Cut(rest, "/")
			kind := catalog.Kind(k)
			if _, known := templateVars[kind]; !ok || !known {
				var uris []string
				for _, t := range templates {
					uris = append(uris, t.uri)
				}
				return nil, resourceNotFound("%s: the catalog has no kind %q; its URIs are %s", echoURI(req.Params.URI), echoURI(string(kind)), strings.Join(uris, ", "))
			}
			return svc.readResource(ctx, req.Params.URI, kind, path)
		})
	syncResources(s, svc, nil, svc.Catalog())
}

// subscribable says why uri names no object of the current catalog (nil when
// it does): an error wrapping mcp.ErrResourceNotFound, with the right URI of
// an object named under another kind, or the closest URIs: those of the
// closest names resources/read gives (catalog.ResolveAs), else the URIs
// closest to it of the URI's kind (of every kind when it names none).
func (svc *Service) subscribable(uri string) error {
	rest, _ := strings.CutPrefix(uri, "catalog://")
	k, path, _ := strings.Cut(rest, "/")
	cat := svc.Catalog()
	e := cat.Lookup(path)
	if e != nil && uriOf(e) == uri {
		return nil
	}
	if e != nil && string(e.Kind) != k && strings.HasPrefix(uri, "catalog://") {
		return resourceNotFound("%s: %s is a %s; its URI is %s", echoURI(uri), e.Path, e.Kind, uriOf(e))
	}
	_, known := templateVars[catalog.Kind(k)]
	var nf *catalog.NotFoundError
	if _, err := cat.ResolveAs(path, catalog.Kind(k)); known && errors.As(err, &nf) {
		// Why, as resources/read says it: the path is too deep for the kind,
		// or the object's file was skipped when the catalog loaded.
		var why []string
		if nf.TooDeep != "" {
			why = append(why, "too deep for a "+k+" URI: "+nf.TooDeep) // a cell's URI is a query's
		}
		if nf.Skipped != "" {
			// The object whose file was skipped: Parent/Name, not the path
			// asked for, which may go deeper (catalog://model/p/e/bad/x).
			why = append(why, fmt.Sprintf("the file of %s was skipped when the catalog loaded (%s); fix the file and it is picked up", strings.TrimPrefix(nf.Parent+"/"+nf.Name, "/"), nf.Skipped))
		}
		if len(nf.SkippedNear) > 0 {
			why = append(why, "close to it, skipped when the catalog loaded (fix the file and it is picked up): "+strings.Join(nf.SkippedNear, "; "))
		}
		if nf.NoneThere != "" {
			why = append(why, nf.NoneThere)
		}
		head := echoURI(uri) + " names no object of the catalog"
		if len(why) > 0 {
			head += ": " + strings.Join(why, "; ")
		}
		// The closest names as resources/read gives them, as URIs of the
		// URI's kind only (a path too deep for it may fail on a deeper name).
		var near []string
		for _, p := range nf.Closest {
			if e := cat.Lookup(p); e != nil && string(e.Kind) == k && (!nf.Far || nf.TooDeep != "") {
				near = append(near, uriOf(e))
			}
		}
		switch {
		case len(near) > 0 && nf.Far:
			return resourceNotFound("%s; no name there is close to it; the first there: %s", head, strings.Join(near, ", "))
		case len(near) > 0:
			return resourceNotFound("%s; closest: %s", head, strings.Join(near, ", "))
		case len(why) > 0:
			return resourceNotFound("%s; subscribe to a URI resources/list gives", head)
		}
	}
	var uris []string
	for _, e := range cat.Entries() {
		if !known || e.Kind == catalog.Kind(k) {
			uris = append(uris, uriOf(e))
		}
	}
	if near := catalog.Closest(uri, uris, 3); len(near) > 0 {
		return resourceNotFound("%s names no object of the catalog; closest: %s", echoURI(uri), strings.Join(near, ", "))
	}
	return resourceNotFound("%s names no object of the catalog; subscribe to a URI resources/list gives", echoURI(uri))
}

// anyObjectTemplate matches every catalog URI the kinds' templates do not. Its
// expression is after the scheme rather than in the host (catalog://{kind}/…,
// which RFC 6570 allows): validators of the official schema's uri-template
// format, such as santhosh-tekuri/jsonschema's, accept expressions in the path
// only, and refused the whole resources/templates/list answer.
const anyObjectTemplate = "catalog:{+rest}"

// followReloads keeps the resources s lists in step with svc's reloads, for a
// server whose sessions outlive a reload (stdio): objects that went are removed,
// new ones added at the end of the listing (and clients told the list changed),
// unchanged ones keep their place. Call it before the catalog is watched.
//
// Subscribers of an object that stayed are sent notifications/resources/updated
// when a file of its package changed (a model, a notebook, the manifest, a data
// file), and of a project when its project.json or one of its packages did.
// Subscribers of an object that went are sent it too (a read then answers that
// it is not found), and so are those of an object that comes back (a file
// deleted and written again, as some editors and git checkout do): their
// subscriptions are kept while the object is gone. A new object's URI has no
// subscribers but those kept from before it went (resources/subscribe refuses
// a URI that names nothing), so announcing it reaches no one else.
func followReloads(s *mcp.Server, svc *Service) {
	stamps := svc.snap().stamps
	svc.OnReload(func(old, cur *catalog.Catalog) {
		syncResources(s, svc, old, cur)
		next := svc.snap().stamps
		for _, o := range old.Entries() {
			if e := cur.Lookup(o.Path); e == nil || e.Kind != o.Kind {
				s.ResourceUpdated(context.Background(), uriOf(o)) // gone
			}
		}
		for _, e := range cur.Entries() {
			if o := old.Lookup(e.Path); o == nil || o.Kind != e.Kind || changedSince(e, stamps, next) {
				s.ResourceUpdated(context.Background(), uriOf(e)) // (back) or changed
			}
		}
		stamps = next
	})
}

// changedSince reports whether a reload from the files stamped before to those
// stamped now (dirStamps) changed what e shows: its package's files, or for a project, its
// project.json or any of its packages (a project shows its packages).
func changedSince(e *catalog.Entry, before, now map[string]string) bool {
	if e.Kind != catalog.KindProject {
		if e.Package == nil {
			return false
		}
		key := packagePath(e.Package)
		return before[key] != now[key]
	}
	for k, v := range now {
		if (k == e.Path || strings.HasPrefix(k, e.Path+"/")) && before[k] != v {
			return true
		}
	}
	for k := range before {
		if (k == e.Path || strings.HasPrefix(k, e.Path+"/")) && now[k] == "" && before[k] != "" {
			return true
		}
	}
	return false
}

// syncResources registers the objects of cur that are new or changed since old
// (every object when old is nil) and removes those that went.
func syncResources(s *mcp.Server, svc *Service, old, cur *catalog.Catalog) {
	if old != nil {
		var gone []string
		for _, e := range old.Entries() {
			if n := cur.Lookup(e.Path); n == nil || n.Kind != e.Kind {
				gone = append(gone, uriOf(e))
			}
		}
		s.RemoveResources(gone...)
	}
	for _, e := range cur.Entries() {
		if old != nil {
			if o := old.Lookup(e.Path); o != nil && o.Kind == e.Kind && o.Description == e.Description {
				continue // unchanged: keep its place in the listing
			}
		}
		kind := e.Kind
		path := e.Path
		s.AddResource(&mcp.Resource{URI: uriOf(e), Name: e.Path, Title: e.Name, Description: fmt.Sprintf("%s: %s", e.Kind, e.Description), MIMEType: "application/json"},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return svc.readResource(ctx, req.Params.URI, kind, path)
			})
	}
}

// maxEchoURI is the most of a URI (in bytes) that a resource error repeats in
// its detail; the library cuts the URI it puts in the error's data likewise.
const maxEchoURI = 1 << 10

// echoURI is uri (or a part of it) cut to maxEchoURI bytes, saying how much
// was left out.
func echoURI(uri string) string { return cutText(uri, maxEchoURI) }

// resourceNotFound is a resource error wrapping mcp.ErrResourceNotFound, its
// detail (the library's data.detail) cut at maxErrorText, as a tool error's
// message is: the names it repeats come from the URI the client sent.
func resourceNotFound(format string, args ...any) error {
	return fmt.Errorf("%w: %s", mcp.ErrResourceNotFound, cutText(fmt.Sprintf(format, args...), maxErrorText))
}

func (s *Service) readResource(ctx context.Context, uri string, kind catalog.Kind, path string) (*mcp.ReadResourceResult, error) {
	// A name that is not found gets the closest names of the URI's kind (an
	// unknown source the model's closest sources, not its named queries).
	if _, err := s.Catalog().ResolveAs(path, kind); err != nil {
		var nf *catalog.NotFoundError
		if errors.As(err, &nf) {
			return nil, resourceNotFound("%s: %v", echoURI(uri), err)
		}
	}
	d, err := s.Describe(ctx, path)
	if err != nil {
		return nil, resourceNotFound("%s: %v", echoURI(uri), err)
	}
	if d.Kind != string(kind) {
		return nil, resourceNotFound("%s: %s is a %s; its URI is %s", echoURI(uri), path, d.Kind, d.URI)
	}
	raw, err := marshalIndent(d)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: raw}}}, nil
}
