package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
	"github.com/wiremcp/wiremcp/mcp"
)

const instructions = `This server is a data catalog. Discover with list_catalog (one level of the tree at a time: projects, packages, models and notebooks, sources and queries) or search_catalog (names, columns, descriptions); read an object with describe; run read-only SQL with execute_query against a model (ad-hoc SELECT over its sources by name) or run a named query with its parameters. Results carry columns with types, rows, rowCount and whether a limit truncated them.`

// Item is one object in a listing.
type Item struct {
	Path        string `json:"path"`
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

type listIn struct {
	Path   string `json:"path,omitempty" description:"project, project/package or project/package/model (or notebook); empty lists the projects"`
	Cursor string `json:"cursor,omitempty" description:"nextCursor of the previous page"`
}

type listOut struct {
	Items      []Item `json:"items"`
	NextCursor string `json:"nextCursor,omitempty"`
	// Note says why a listing is empty: the object listed has no children (a
	// source, a named query, a notebook cell), or nothing of it loaded.
	Note string `json:"note,omitempty"`
}

type describeIn struct {
	Path string `json:"path" description:"path of any object: project, project/package, project/package/model, project/package/model/source (or query), project/package/notebook; empty: the catalog itself (its projects, and what was skipped at its top)"`
}

type searchIn struct {
	Query string `json:"query" description:"words to find in names, column names and descriptions (at most 32 words and 1000 characters)" mcp:"minLength=1"`
	Limit int    `json:"limit,omitempty" description:"results at most (default 20, at most 100)" mcp:"minimum=1;maximum=100"`
}

// The bounds of a search: its words (every one must match, so a few distinctive
// words find more than many) and characters, the results it returns, and the
// words that match nothing it looks for close names to (the costly part), each
// with up to 5 names and 2 objects bearing each name. They keep a search's work
// and answer small whatever the call sends.
const (
	maxSearchWords     = 32
	maxSearchChars     = 1000
	defaultSearchLimit = 20
	maxSearchLimit     = 100 // the schema's maximum of limit
	maxSearchHelpWords = 8
)

// SearchResult is one search hit.
type SearchResult struct {
	Item
	Match string  `json:"match"`
	Score float64 `json:"score"`
}

type searchOut struct {
	Results []SearchResult `json:"results"`
	// Total is how many objects match in all; Truncated says limit left some out
	// (the hint then says how to see more).
	Total     int  `json:"total"`
	Truncated bool `json:"truncated,omitempty"`
	// When nothing matched: what to try (in words), and the existing names closest
	// to each word that matches nothing. When limit cut the results: how to see
	// more.
	Hint        string             `json:"hint,omitempty"`
	Suggestions []SearchSuggestion `json:"suggestions,omitempty"`
}

// SearchSuggestion is an existing name close to a word of a search that matched
// nothing, with one object that bears it.
type SearchSuggestion struct {
	Word    string `json:"word"`    // the word of the query that matches nothing
	Closest string `json:"closest"` // an existing name near it
	Path    string `json:"path"`    // an object so named, or with a column so named
	Kind    string `json:"kind"`
	Match   string `json:"match"` // "name" or "column NAME"
}

type executeIn struct {
	Path       string      `json:"path" description:"a model (project/package/model) for ad-hoc SQL or with queryName; a named query (project/package/model/query) or a notebook cell; a source (runs SELECT * from it when sql is absent)"`
	SQL        string      `json:"sql,omitempty" description:"one read-only SELECT (or WITH … SELECT) over the model's sources, referenced by name"`
	QueryName  string      `json:"queryName,omitempty" description:"a named query of the model (or a cell of the notebook) to run instead of sql"`
	Parameters paramValues `json:"parameters,omitempty" description:"values of the named query's parameters, by name"`
	RowLimit   int         `json:"rowLimit,omitempty" description:"rows to return at most (the tool's description gives the default and the most allowed)" mcp:"minimum=1"`
}

// toolError is the structured content of an isError result.
type toolError struct {
	Error       string   `json:"error"`
	Kind        string   `json:"kind"` // not_found, invalid, refused, sql_error, timeout, out_of_memory, unavailable, cancelled
	Suggestions []string `json:"suggestions,omitempty"`
	Position    int      `json:"position,omitempty"`
	SQLState    string   `json:"sqlstate,omitempty"` // PostgreSQL's error code
	Hint        string   `json:"hint,omitempty"`
}

// okResult is a successful result: v as structuredContent and the same JSON as text.
//
// The tools declare no output schema on purpose: their error results carry
// structured content too (what went wrong, the closest names), and clients such as
// the TypeScript SDK validate any structuredContent against a declared output schema,
// error or not.
func okResult(v any) (*mcp.CallToolResult, any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{StructuredContent: json.RawMessage(raw), Content: []mcp.Content{&mcp.TextContent{Text: string(raw)}}}, nil, nil
}

func errorResult(te toolError) *mcp.CallToolResult {
	// An error can echo what the call sent (a path, a search) or what the query
	// made (DuckDB's error(repeat('x', 5000000))): the answer keeps its start.
	te.Error, te.Hint = cutText(te.Error, maxErrorText), cutText(te.Hint, maxErrorText)
	raw, _ := json.Marshal(te)
	// The text says all the structured content says (some clients show only text):
	// the message (with the closest names and the position) and what to try.
	msg := te.Error
	if te.Hint != "" && !strings.Contains(msg, te.Hint) {
		msg += "\n" + te.Hint
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}, StructuredContent: json.RawMessage(raw)}
}

// maxErrorText is the most of an error's message, and of its hint, that an error
// result carries (in bytes).
const maxErrorText = 8 << 10

// cutText returns s cut to at most n bytes on a character boundary, saying how
// much was left out.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := runeFloor(s, n)
	return s[:i] + fmt.Sprintf("… (%d more bytes not shown)", len(s)-i)
}

// runeFloor returns the largest index of s at most n (n < len(s)) where a
// character starts: s[:runeFloor(s, n)] cuts no character in two.
func runeFloor(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// brokenSourceError says a source exists in the catalog but did not load (its SQL
// or its data file failed when the model was opened).
type brokenSourceError struct {
	path, reason string
}

func (e *brokenSourceError) Error() string {
	return fmt.Sprintf("the source %s did not load, so it cannot be queried until its file or data is fixed: %s", e.path, e.reason)
}

// catalogSQLError is an engine's SQL error in a named query or notebook cell: the
// SQL is the catalog's, not the caller's, so "fix the SQL and call again" is no
// help.
type catalogSQLError struct {
	se     *engine.SQLError
	query  string // path of the named query or cell
	model  string // path of the model it runs against
	isCell bool
	params string // the call's parameter values, as JSON ("" for a query without parameters)
}

// valueDependent reports whether the error can come from the values the SQL ran
// with rather than from the SQL itself: not a syntax error, nor a name or type the
// engine could not bind (DuckDB's Parser and Catalog errors, and its Binder errors
// but those about LIMIT and OFFSET, which DuckDB binds with the parameters'
// values; PostgreSQL's SQLSTATE class 42).
func (e *catalogSQLError) valueDependent() bool {
	if e.se.Engine == "postgres" {
		return !strings.HasPrefix(e.se.SQLState, "42")
	}
	m, _, _ := strings.Cut(e.se.Message, "\n") // not DuckDB's excerpt of the SQL ("LINE 1: … LIMIT $n")
	switch {
	case strings.Contains(m, "Parser Error"), strings.Contains(m, "Catalog Error"):
		return false
	case strings.Contains(m, "Binder Error"):
		return strings.Contains(m, "LIMIT") || strings.Contains(m, "OFFSET")
	}
	return true
}

func (e *catalogSQLError) Error() string {
	what := "named query"
	if e.isCell {
		what = "notebook cell"
	}
	return fmt.Sprintf("the SQL of the %s %s fails: %s", what, e.query, e.se.Error())
}

func (e *catalogSQLError) Unwrap() error { return e.se }

// modelDownError is a query on a model that did not load (a PostgreSQL package
// whose connection variable is unset, a DuckDB model that could not be built).
// retry says when the server tries to open it again (snapshot.retryNote; ""
// when it does not, until its files change).
type modelDownError struct {
	err   error
	retry string
}

func (e *modelDownError) Error() string { return e.err.Error() }

// loadingError is a query on a model whose package has not loaded yet (the
// server started, or the package was added, moments ago).
type loadingError struct{ err error }

func (e *loadingError) Error() string { return e.err.Error() }

// catalogFaultError is a query the catalog itself keeps from running (a notebook
// naming a model its package does not have, a named query using a parameter it
// does not declare): nothing in the call can fix it.
type catalogFaultError struct{ err error }

// outsideLinkError is ad-hoc SQL on a DuckDB package whose folder holds a
// symbolic link out of it (catalog.Package.OutsideLinks): the operator's to
// fix; the package's named queries and sources still run.
type outsideLinkError struct{ err error }

func (e *outsideLinkError) Error() string { return e.err.Error() }

// roleUnlockedError is ad-hoc SQL on a PostgreSQL model whose role may still
// call what ad-hoc SQL must not (roleProblem): the operator's to fix; the
// package's named queries and sources still run.
type roleUnlockedError struct {
	err    error
	unread bool // the role's privileges could not be read (yet): no REVOKE is named
}

func (e *roleUnlockedError) Error() string { return e.err.Error() }

// noModelError is a notebook cell of a package that has no model at all:
// nothing of the package runs, and no other query is there to try.
type noModelError struct{ err error }

func (e *noModelError) Error() string { return e.err.Error() }

func (e *catalogFaultError) Error() string { return e.err.Error() }

// classify turns an error into what a model can act on.
func classify(err error) toolError {
	var nf *catalog.NotFoundError
	var ref *engine.RefusedError
	var se *engine.SQLError
	var to *engine.TimeoutError
	var busy *engine.BusyError
	var me *engine.MemoryError
	var ee *engine.EngineError
	var ae *engine.AnswerError
	var cse *catalogSQLError
	var sfe *sourceFileError
	var rue *roleUnlockedError
	var qt *queryTimeoutError
	var cb *clientBusyError
	var down *modelDownError
	var ce *engine.ConnectError
	switch {
	case errors.As(err, &cse) && cse.params != "" && cse.valueDependent():
		// A run-time error of a query with parameters: the values given may be
		// what it cannot run with (a negative LIMIT, a date out of range).
		return toolError{Error: err.Error(), Kind: "sql_error", Position: cse.se.Position, SQLState: cse.se.SQLState,
			Hint: fmt.Sprintf("The named query failed with the parameter values of this call (%s): check them against its parameters (describe %s) and call again; if they are right, the error is in the catalog's SQL — run a corrected query with sql against the model %s.", cse.params, cse.query, cse.model)}
	case errors.As(err, &cse):
		return toolError{Error: err.Error(), Kind: "sql_error", Position: cse.se.Position, SQLState: cse.se.SQLState,
			Hint: fmt.Sprintf("The error is in the catalog's SQL, not in this call: describe %s to read it, and run a corrected query with sql against the model %s; the catalog's file needs fixing.", cse.query, cse.model)}
	case errors.As(err, &nf) && nf.Far:
		// The first names there, which the message lists: not suggestions.
		return toolError{Error: err.Error(), Kind: "not_found"}
	case errors.As(err, &nf):
		return toolError{Error: err.Error(), Kind: "not_found", Suggestions: nf.Closest}
	case errors.As(err, &ref):
		return toolError{Error: err.Error(), Kind: "refused"}
	case errors.As(err, &se):
		return toolError{Error: err.Error(), Kind: "sql_error", Position: se.Position, SQLState: se.SQLState, Hint: "Fix the SQL and call again; describe the model to see its sources and columns."}
	case errors.As(err, new(*loadingError)):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Call again in a few seconds: the package's models are being opened. The server's other packages answer meanwhile."}
	case errors.As(err, &down) && down.retry != "":
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: down.retry + ". If the reason above does not pass on its own (a wrong password or address, a database that does not exist), it is the catalog's or the server's to fix (tell its operator). Other models still answer."}
	case errors.As(err, &down):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Calling again will not help until the model loads: the reason above is the catalog's or the server's to fix (tell its operator). Other models still answer."}
	case errors.As(err, new(*noModelError)):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Nothing in this call can fix it: the package needs a model (a .sql file beside its manifest.json) for its notebook's cells to run against; tell the catalog's owner."}
	case errors.As(err, new(*outsideLinkError)):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Nothing in this call can fix it: the catalog's operator must remove the links or copy the data into the package (tell them). The package's named queries and sources still run: call them by path without sql."}
	case errors.As(err, &rue) && rue.unread:
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Nothing in this call can fix it: the server could not read its PostgreSQL role's privileges (the reason above), and serves ad-hoc SQL on the model once a reading shows the role locked down; it reads them again at the next ad-hoc query, at most every 30 s. Call again shortly; if it lasts, tell the catalog's operator. The model's named queries and sources still run: call them by path without sql."}
	case rue != nil:
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Nothing in this call can fix it: the PostgreSQL server's administrator must run the REVOKE statements above (tell the catalog's operator). The model's named queries and sources still run: call them by path without sql."}
	case errors.As(err, new(*catalogFaultError)):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Nothing in this call can fix it: the catalog's file needs fixing (tell its owner). The model's other queries still run."}
	case errors.As(err, &sfe):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: sfe.hint()}
	case errors.As(err, new(*brokenSourceError)):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Query the model's other sources (describe the model to see which loaded); the source is picked up again once its file is fixed."}
	case errors.As(err, &cb):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: cb.hint()}
	case errors.As(err, &busy) && busy.Server:
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: serverCapHint(busy.Conns)}
	case errors.As(err, &busy):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Call again in a few seconds."}
	case errors.As(err, &ce) && ce.Lost:
		// A restart, a failover or an administrator ended the session the query
		// ran on: neither the SQL's fault nor the call's.
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "The query was cut off, not refused: the PostgreSQL server ended its connection (a restart, a failover, or its administrator). Call again in a few seconds; if it keeps failing, tell the server's operator (the server's log has the details). Other models still answer."}
	case ce != nil:
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Nothing in this call can fix it: call again later; if it keeps failing, tell the server's operator (the server's log has the details). Other models still answer."}
	case errors.As(err, &ae) && ae.TooLarge:
		return toolError{Error: err.Error(), Kind: "invalid", Hint: "Ask for less: select fewer or smaller columns, or cut long values (left(col, 1000)); the same query fails the same way again."}
	case errors.As(err, &ae):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Call again; if it fails again, tell the server's operator (the server's log has what was read)."}
	case errors.As(err, new(*rebuildFailedError)):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "The server builds the model's database again in the background, at growing intervals: call again after the time the error gives. Tell the server's operator: the last try failed (the server's log says why), and files are being removed from the server's temporary folder while it runs."}
	case errors.As(err, &ee) && ee.Gone:
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "The server is loading the model again, which builds its database anew: call again in a few seconds. If this keeps happening, tell the server's operator: files are being removed from the server's temporary folder while it runs."}
	case errors.As(err, &ee) && ee.Broken:
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Calling again will not help: the server cannot start the process that runs this model's queries. Tell the server's operator (the server's log says why)."}
	case errors.As(err, &ee):
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Call again; if it fails again, ask for less work."}
	case errors.Is(err, engine.ErrClosed):
		// Met twice in a row (Execute runs a query again once): reloads keep
		// replacing the model.
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Call again in a few seconds."}
	case errors.As(err, &me) && me.Advice != "":
		return toolError{Error: err.Error(), Kind: "out_of_memory", Hint: me.Advice}
	case errors.As(err, &me):
		return toolError{Error: err.Error(), Kind: "out_of_memory", Hint: "Aggregate, filter or select fewer columns to hold less data."}
	case errors.As(err, &qt):
		return toolError{Error: err.Error(), Kind: "timeout", Hint: qt.hint()}
	case errors.As(err, &to) && to.Busy() && to.Server:
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: serverCapHint(to.Slots)}
	case errors.As(err, &to) && to.Busy():
		return toolError{Error: err.Error(), Kind: "unavailable", Hint: "Call again in a few seconds; if it runs out of time again, aggregate or filter to read less data."}
	case errors.As(err, &to) && to.Advice != "":
		return toolError{Error: err.Error(), Kind: "timeout", Hint: to.Advice}
	case errors.As(err, &to):
		return toolError{Error: err.Error(), Kind: "timeout", Hint: "Aggregate or filter to read less data."}
	case errors.Is(err, context.Canceled):
		return toolError{Error: "the request was cancelled before it finished (by the client, or because the server is stopping)", Kind: "cancelled", Hint: "Call again if the answer is still needed."}
	}
	return toolError{Error: err.Error(), Kind: "invalid"}
}

// serverCapHint is what to do when a query waited for one of the n query
// processes the server runs at once over all models (-max-query-processes).
func serverCapHint(n int) string {
	held := fmt.Sprintf("at most %d query processes at once over all its models (its -max-query-processes %d), and other queries held them", n, n)
	if n == 1 {
		held = "one query process at a time over all its models (its -max-query-processes 1), and another query held it"
	}
	return "Call again in a few seconds: the server runs " + held + ". If this happens often, the server's operator can raise -max-query-processes."
}

// toolInputs are the input types of the tools, for what invalidArguments says.
var toolInputs = map[string]reflect.Type{
	"list_catalog":   reflect.TypeFor[listIn](),
	"describe":       reflect.TypeFor[describeIn](),
	"search_catalog": reflect.TypeFor[searchIn](),
	"execute_query":  reflect.TypeFor[executeIn](),
}

// invalidArguments describes arguments a tool's input schema refused: what is
// wrong, the arguments the tool takes and, for an argument it does not know, the
// closest one it does.
func invalidArguments(tool string, args json.RawMessage, err error) toolError {
	te := toolError{Error: err.Error(), Kind: "invalid"}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) && ute.Field != "" {
		// The schema let it through; Go's decoding did not (the library
		// decodes 10.0 and 1e1 as integers, so the number is out of range):
		// say so in the caller's terms, not Go's.
		want := "a " + ute.Type.Kind().String()
		switch ute.Type.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			want = fmt.Sprintf("a whole number within %d bits", ute.Type.Bits())
		case reflect.String:
			want = "a string"
		}
		te.Error = fmt.Sprintf("invalid arguments for tool %q: %s must be %s, got %s", tool, ute.Field, want, ute.Value)
	}
	t, ok := toolInputs[tool]
	if !ok {
		return te
	}
	names, takes := argNames(t)
	te.Hint = fmt.Sprintf("Call again with the arguments %s takes: %s.", tool, strings.Join(takes, ", "))
	var given map[string]json.RawMessage
	if json.Unmarshal(args, &given) == nil {
		for _, k := range slices.Sorted(maps.Keys(given)) {
			if knownArg(names, k) {
				continue
			}
			te.Error += fmt.Sprintf("; %s takes no argument %q", tool, k)
			if c := catalog.Closest(k, names, 1); len(c) > 0 {
				te.Suggestions = append(te.Suggestions, c...)
				te.Error += fmt.Sprintf(" (did you mean %q?)", c[0])
			}
		}
	}
	return te
}

// argNames returns the argument names of a tool's input type t (its fields' JSON
// names), and the same marked "(required)" where the field is not omitempty.
func argNames(t reflect.Type) (names, takes []string) {
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
		if strings.Contains(opts, "omitempty") {
			takes = append(takes, name)
		} else {
			takes = append(takes, name+" (required)")
		}
	}
	return names, takes
}

// knownArg reports whether k names one of a tool's arguments, exactly: JSON member
// names are case-sensitive, and the input schema checks "rowLimit", not "RowLimit"
// (which encoding/json would decode into the same field, unchecked).
func knownArg(names []string, k string) bool {
	return slices.Contains(names, k)
}

// unknownArguments refuses a call with an argument its tool does not take: its
// value would be dropped without a word (a "limit" taken for rowLimit, and a
// thousand rows where five were asked for). It returns nil when every argument is
// known.
func unknownArguments(req *mcp.CallToolRequest) *mcp.CallToolResult {
	t, ok := toolInputs[req.Params.Name]
	if !ok {
		return nil
	}
	var given map[string]json.RawMessage
	if json.Unmarshal(req.Params.Arguments, &given) != nil {
		return nil
	}
	names, _ := argNames(t)
	for k := range given {
		if !knownArg(names, k) {
			return errorResult(invalidArguments(req.Params.Name, req.Params.Arguments, fmt.Errorf("invalid arguments for tool %q", req.Params.Name)))
		}
	}
	return nil
}

// addTool registers a typed tool whose calls with an argument it does not take
// are refused (unknownArguments) before h runs.
func addTool[In any](s *mcp.Server, t *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, any, error)) {
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		if r := unknownArguments(req); r != nil {
			return r, nil, nil
		}
		return h(ctx, req, in)
	})
}

// searchHelp says what to try after a search of q that found nothing: for each
// word that matches nothing, the closest existing names (of objects and columns)
// and objects that bear them; when every word matches something, that no object
// matches all of them.
func searchHelp(cat *catalog.Catalog, q string) (string, []SearchSuggestion) {
	un, more := cat.Unmatched(q, 5, 2, maxSearchHelpWords)
	if len(un) == 0 {
		return fmt.Sprintf("each word of %q matches some object, but no object matches all of them: search with fewer words", q), nil
	}
	var b strings.Builder
	var sugg []SearchSuggestion
	for i, u := range un {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "nothing matches %q", u.Word)
		if len(u.Closest) == 0 {
			b.WriteString(" and no name is close to it")
			continue
		}
		b.WriteString("; closest names: ")
		for j, m := range u.Closest {
			if j > 0 {
				b.WriteString(", ")
			}
			var where []string
			for k, e := range m.Entries {
				s := SearchSuggestion{Word: u.Word, Closest: m.Name, Path: e.Path, Kind: string(e.Kind), Match: "name"}
				w := e.Path
				if m.Column[k] {
					s.Match = "column " + m.Name
					w = "column of " + e.Path
				}
				sugg = append(sugg, s)
				where = append(where, w)
			}
			fmt.Fprintf(&b, "%s (%s)", m.Name, strings.Join(where, ", "))
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "; %d more words match nothing (close names are looked for the first %d only)", more, maxSearchHelpWords)
	}
	if len(sugg) > 0 {
		b.WriteString(". Search again with one of these names, or call list_catalog to browse.")
	} else {
		b.WriteString(". Try other words, or call list_catalog to browse.")
	}
	return cutText(b.String(), maxErrorText), sugg
}

// checkSearch refuses a search past its bounds (maxSearchChars, maxSearchWords),
// saying which. It returns the words search compares (the query folded, split
// at spaces, punctuation around words left out: catalog.SplitWords), for
// catalog.SearchWords: the query is folded once.
func checkSearch(q string) ([]string, *toolError) {
	if strings.TrimSpace(q) == "" {
		return nil, &toolError{Error: "the query holds no words: give words of a name, column or description (call list_catalog to browse instead)", Kind: "invalid"}
	}
	const fewer = "every word must match, so a few distinctive words (a name, a column, a word of a description) find more than many"
	if n := utf8.RuneCountInString(q); n > maxSearchChars {
		return nil, &toolError{Error: fmt.Sprintf("the query is %d characters long; search_catalog takes at most %d characters and %d words", n, maxSearchChars, maxSearchWords), Kind: "invalid", Hint: "Search again with fewer words: " + fewer + "."}
	}
	// The bounds hold for the words and characters search compares: the query
	// folded (catalog.Fold), where a character can become several ("´" folds to
	// a space and an accent, so "a´a´…" is one word as sent and many folded;
	// "ﷺ" is 18 characters). The raw count above bounds what folding costs.
	folded := catalog.Fold(q)
	if n := utf8.RuneCountInString(folded); n > maxSearchChars {
		return nil, &toolError{Error: fmt.Sprintf("the query is %d characters long once folded as search compares it (case, accents and compatibility forms such as \"ﬁ\" → \"fi\" undone); search_catalog takes at most %d characters and %d words", n, maxSearchChars, maxSearchWords), Kind: "invalid", Hint: "Search again with fewer words: " + fewer + "."}
	}
	words := catalog.SplitWords(folded)
	if len(words) == 0 {
		return nil, &toolError{Error: "the query holds no words, only punctuation: give words of a name, column or description (call list_catalog to browse instead)", Kind: "invalid"}
	}
	if n, raw := len(words), len(strings.Fields(q)); n > maxSearchWords {
		how := ""
		if n != raw {
			how = fmt.Sprintf(" once folded as search compares it (%d as sent: some characters fold to a space and an accent, as \"´\" does)", raw)
		}
		return nil, &toolError{Error: fmt.Sprintf("the query has %d words%s; search_catalog takes at most %d words (and %d characters)", n, how, maxSearchWords, maxSearchChars), Kind: "invalid", Hint: "Search again with fewer words: " + fewer + "."}
	}
	return words, nil
}

// moreResults says how to see the results limit left out of total.
func moreResults(total, limit int) string {
	if limit < maxSearchLimit {
		return fmt.Sprintf("%d objects match; the first %d are shown (limit %d): call again with a larger limit (at most %d) to see more, or add words to narrow the search.", total, limit, limit, maxSearchLimit)
	}
	return fmt.Sprintf("%d objects match; the first %d are shown (limit %d, the most allowed): add words to narrow the search.", total, limit, limit)
}

func itemOf(e *catalog.Entry) Item {
	return Item{Path: e.Path, Kind: string(e.Kind), Name: e.Name, Description: e.Description}
}

// emptyListNote says why the listing of path is empty: what the object is and
// where its contents are, or that nothing of it loaded (see its problems).
func emptyListNote(cat *catalog.Catalog, path string) string {
	if len(catalog.Segments(path)) == 0 {
		return "the catalog has no projects; describe with an empty path says what was skipped at its top, if anything"
	}
	e := cat.Lookup(path)
	if e == nil {
		return ""
	}
	switch e.Kind {
	case catalog.KindSource:
		return fmt.Sprintf("%s is a source: it has no children; describe it for its columns, row count and sample rows", e.Path)
	case catalog.KindQuery:
		if e.Notebook != nil {
			return fmt.Sprintf("%s is a notebook cell: it has no children; describe it for its SQL, or run it with execute_query", e.Path)
		}
		return fmt.Sprintf("%s is a named query: it has no children; describe it for its SQL and parameters, or run it with execute_query", e.Path)
	case catalog.KindNotebook:
		return fmt.Sprintf("the notebook %s has no SQL cells (```sql blocks); describe it for its Markdown", e.Path)
	}
	return fmt.Sprintf("the %s %s has nothing in it that loaded (describe it: its problems, if any, say which files were skipped, and why)", e.Kind, e.Path)
}

// newMCPServer builds the MCP server over svc: tools and resources from one model.
//
// The capabilities say what the server does: its four tools never change (no
// tools listChanged), and it sends clients no log messages (no logging). stateless
// is for a server behind stateless HTTP, whose connections last one POST: it can
// tell no client of a change later, so it declares neither listChanged nor
// subscribe for resources either (and the library refuses resources/subscribe,
// which it had accepted without ever being able to serve it).
func newMCPServer(svc *Service, version string, stateless bool) *mcp.Server {
	caps := &mcp.ServerCapabilities{Tools: &mcp.ListChangedCapability{}, Resources: &mcp.ResourcesCapability{Subscribe: true, ListChanged: true}}
	if stateless {
		caps.Resources = &mcp.ResourcesCapability{}
	}
	s := mcp.NewServer(mcp.Implementation{Name: "wiremcp-catalog-server", Version: version}, &mcp.ServerOptions{
		Capabilities:   caps,
		DisableLogging: true,
		// A subscription is to an object that exists (a misspelt URI would
		// never be told of a change).
		SubscribeHandler: func(_ context.Context, _ *mcp.ServerSession, uri string) error {
			return svc.subscribable(uri)
		},
		Instructions: instructions,
		PageSize:     svc.cfg.PageSize,
		CacheScope:   "public",
		// resources/list in URI order, its cursor the last URI sent: a listing
		// continues across replicas and reloads without repeating or skipping.
		ListResourcesByURI: true,
		// Arguments the tools' input schemas refuse get the tools' own error shape.
		InvalidArgumentsHandler: func(_ context.Context, req *mcp.CallToolRequest, err *mcp.InvalidArgumentsError) *mcp.CallToolResult {
			return errorResult(invalidArguments(req.Params.Name, req.Params.Arguments, err))
		},
	})
	ro := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Bool(true), DestructiveHint: mcp.Bool(false), IdempotentHint: mcp.Bool(true), OpenWorldHint: mcp.Bool(false)}

	addTool(s, &mcp.Tool{Name: "list_catalog", Description: "List one level of the catalog: projects (no path), a project's packages, a package's models and notebooks, a model's sources and named queries. Paginated: pass nextCursor back as cursor.", Annotations: ro},
		func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, any, error) {
			page, err := svc.Catalog().List(in.Path, in.Cursor, svc.cfg.PageSize)
			if err != nil {
				return errorResult(classify(err)), nil, nil
			}
			out := listOut{Items: make([]Item, 0, len(page.Items)), NextCursor: page.NextCursor}
			for _, e := range page.Items {
				out.Items = append(out.Items, itemOf(e))
			}
			if len(out.Items) == 0 && in.Cursor == "" {
				out.Note = emptyListNote(svc.Catalog(), in.Path)
			}
			return okResult(out)
		})

	addTool(s, &mcp.Tool{Name: "describe", Description: "Describe any catalog object by path: a project or package with its contents (and the problems of its files that did not load); a model with its sources (columns) and named queries; a source with columns, types, row count and sample rows; a named query with its SQL and typed parameters; a notebook with its Markdown and SQL cells.", Annotations: ro},
		func(ctx context.Context, req *mcp.CallToolRequest, in describeIn) (*mcp.CallToolResult, any, error) {
			d, err := svc.Describe(ctx, in.Path)
			if err != nil {
				return errorResult(classify(err)), nil, nil
			}
			return okResult(d)
		})

	addTool(s, &mcp.Tool{Name: "search_catalog", Description: "Search names, column names, named queries' parameters, descriptions and notebooks' text of every catalog object; results are ranked (exact name first, then name prefix, substring, a column or parameter, a description, then a parameter's description or a notebook's text). Every word must match (at most 32 words, 1000 characters); case, accents and compatibility forms do not count. Returns total (the objects that match) and truncated when limit (default 20, at most 100) left some out. When nothing matches, the result suggests the closest existing names.", Annotations: ro},
		func(ctx context.Context, req *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
			words, te := checkSearch(in.Query)
			if te != nil {
				return errorResult(*te), nil, nil
			}
			limit := in.Limit
			if limit == 0 {
				limit = defaultSearchLimit
			}
			out := searchOut{Results: []SearchResult{}}
			cat := svc.Catalog()
			hits, total := cat.SearchWords(words, limit)
			for _, h := range hits {
				out.Results = append(out.Results, SearchResult{Item: itemOf(h.Entry), Match: h.Match, Score: math.Round(h.Score*100) / 100})
			}
			out.Total = total
			if total > len(hits) {
				out.Truncated = true
				out.Hint = moreResults(total, limit)
			}
			if len(out.Results) == 0 {
				out.Hint, out.Suggestions = searchHelp(cat, in.Query)
			}
			return okResult(out)
		})

	execTool := &mcp.Tool{Name: "execute_query", Annotations: ro,
		Description: fmt.Sprintf("Run one read-only query. Either sql (a single SELECT or WITH … SELECT over the model's sources, by name) against path = project/package/model, or a named query: queryName with path = the model, or path = the query itself; parameters by name. Returns columns with types, rows, rowCount, truncated (and by which limit), rowLimit and elapsedMs. rowLimit defaults to %d, at most %d; each query is answered within %s (%s).", svc.cfg.DefaultRowLimit, svc.cfg.MaxRowLimit, svc.cfg.QueryTimeout, stopNote(svc.cfg))}
	addTool(s, execTool, func(ctx context.Context, req *mcp.CallToolRequest, in executeIn) (*mcp.CallToolResult, any, error) {
		res, err := svc.Execute(ctx, in)
		if err != nil {
			return errorResult(classify(err)), nil, nil
		}
		return okResult(res)
	})

	registerResources(s, svc)
	return s
}

// stopNote says what becomes of a query at its time limit: with queries in
// processes of their own (-isolate), a calculation DuckDB cannot interrupt
// ends with its process.
func stopNote(cfg Config) string {
	if cfg.Duck.Worker != nil {
		return "stopped there"
	}
	return "stopped there, or, inside a calculation the engine cannot interrupt, left to finish in the background"
}

// Execute runs the query a call asks for. A query that meets a model closed by a
// concurrent reload runs again on the new catalog.
func (s *Service) Execute(ctx context.Context, in executeIn) (*engine.Result, error) {
	res, err := s.execute(ctx, in)
	if errors.Is(err, engine.ErrClosed) {
		res, err = s.execute(ctx, in)
	}
	if ee := (*engine.EngineError)(nil); errors.As(err, &ee) && ee.Broken && !ee.Gone {
		// Rate-limited: a client can meet it at every call. A database file
		// gone is logged once per load it starts (rebuild).
		s.brokenNotes.Note(s.log, slog.LevelError, "a query process could not serve a model", "path", in.Path, "err", ee.Detail)
	}
	if ce := (*engine.ConnectError)(nil); errors.As(err, &ce) {
		s.logConnError(in.Path, ce)
	}
	if err == nil && res.RowCount == 0 && res.TruncatedBy == "byteBudget" {
		// Else an empty answer, truncated, would not say why no row came.
		res.Hint = fmt.Sprintf("No row was returned: the first row alone is over the byte budget (%d bytes of JSON for the columns and rows). Select fewer or narrower columns (left(text, 200) for long text, or an aggregate), or ask the server's operator for a larger -byte-budget.", res.ByteBudget)
	}
	return res, err
}

func (s *Service) execute(ctx context.Context, in executeIn) (*engine.Result, error) {
	sn := s.snap()
	e, err := sn.cat.Resolve(in.Path)
	if err != nil {
		return nil, err
	}
	rowLimit := in.RowLimit
	if rowLimit == 0 {
		rowLimit = s.cfg.DefaultRowLimit
	}
	if rowLimit > s.cfg.MaxRowLimit {
		return nil, fmt.Errorf("rowLimit %d is above this server's maximum of %d; ask for fewer rows or aggregate", rowLimit, s.cfg.MaxRowLimit)
	}
	if in.SQL != "" && in.QueryName != "" {
		return nil, errors.New("give either sql or queryName, not both")
	}
	var q *catalog.Query
	sqlText := in.SQL
	switch e.Kind {
	case catalog.KindModel, catalog.KindNotebook:
		if in.QueryName != "" {
			qe, err := sn.cat.Resolve(e.Path + "/" + strings.TrimSpace(in.QueryName))
			var nf *catalog.NotFoundError
			if errors.As(err, &nf) {
				// queryName names a named query (or a cell): the closest of
				// those, not of the model's sources.
				return nil, queryNameNotFound(nf, e)
			}
			if err != nil {
				return nil, err
			}
			if qe.Kind != catalog.KindQuery {
				// Anything else (a source, a column) would run as no query at all.
				return nil, fmt.Errorf("queryName %q is a %s of %s, not a named query; read a source with path %s (without queryName), or give queryName one of the named queries list_catalog shows under %s", in.QueryName, qe.Kind, e.Path, qe.Path, e.Path)
			}
			q = qe.Query
		} else if sqlText == "" && e.Kind == catalog.KindModel {
			return nil, fmt.Errorf("%s is a %s: give sql (a SELECT over its sources) or queryName (one of its named queries)", e.Path, e.Kind)
		}
		if e.Kind == catalog.KindNotebook && q == nil {
			// A notebook runs its cells; ad-hoc SQL goes to its model, by path.
			nb := e.Notebook
			where := "one of the package's models (the notebook names " + strconv.Quote(nb.ModelName) + ", which the package does not have)"
			for _, pm := range nb.Package.Models {
				if pm.Name == nb.ModelName {
					where = "the model " + modelPath(pm)
				}
			}
			return nil, fmt.Errorf("%s is a notebook: give queryName (one of its cells, e.g. cell-1) to run a cell, or run sql with path %s", e.Path, where)
		}
	case catalog.KindQuery:
		if in.SQL != "" {
			return nil, fmt.Errorf("%s is a named query: drop sql, or run sql against the model %s", e.Path, e.Parent)
		}
		if in.QueryName != "" && in.QueryName != e.Name {
			// The path already names the query to run: another name must not be
			// dropped without a word (it would run this one instead).
			return nil, fmt.Errorf("path %s is already the named query %s, and queryName names %q: drop queryName, or give path %s with queryName", e.Path, e.Name, in.QueryName, e.Parent)
		}
		q = e.Query
	case catalog.KindSource:
		if in.QueryName != "" {
			return nil, fmt.Errorf("path %s is a source, which has no named queries, and queryName names %q: drop queryName to read the source, or give path %s (its model) with queryName", e.Path, in.QueryName, e.Parent)
		}
		if sqlText == "" {
			sqlText = "SELECT * FROM " + quoteIdent(e.Name)
		}
	default:
		return nil, fmt.Errorf("%s is a %s; queries run against a model (project/package/model), a named query or a source", e.Path, e.Kind)
	}
	if q != nil && q.Model != nil && len(sn.refuse) > 0 {
		// Checking it when its model loaded crashed DuckDB or ran out of the
		// load's memory: running it would do that again (with -isolate=false,
		// to the server), so nothing of the call runs. Nor when its check
		// never ran, the load process having crashed too often before it.
		qpath, mpath := namedPaths(q)
		if chk := sn.refuse[qpath]; chk.Refuse != "" {
			return nil, refusedAtLoad(q, qpath, mpath, chk)
		}
	}
	params := map[string]any(in.Parameters)
	var typed *typedSQL // the named query's SQL with its parameters cast to their types
	if q != nil {
		if params, err = checkParams(q, in.Parameters); err != nil {
			return nil, err
		}
		typed = castParams(q, queryEngine(q))
		sqlText = typed.text
	} else if len(in.Parameters) > 0 {
		if in.SQL == "" {
			return nil, fmt.Errorf("parameters go with a named query; reading the source %s takes none", e.Path)
		}
		return nil, errors.New("parameters go with a named query (queryName); ad-hoc sql takes none")
	}
	m := e.Model
	if q != nil {
		m = q.Model
	}
	if m == nil {
		if q != nil && q.Notebook != nil {
			var models []string
			for _, pm := range q.Notebook.Package.Models {
				models = append(models, pm.Name)
			}
			if len(models) == 0 {
				// No other query of the package runs either: say so, not "its
				// models: ." and that the model's other queries still run.
				what := "the package has no model to run it against"
				if q.Notebook.ModelName != "" {
					what = fmt.Sprintf("its notebook names the model %q (<!-- model: … --> line), and the package has no models at all", q.Notebook.ModelName)
				}
				return nil, &noModelError{fmt.Errorf("%s cannot run: %s (describe %s/%s for its problems: a model file that did not load is listed there)", e.Path, what, q.Notebook.Package.Project.Name, q.Notebook.Package.Name)}
			}
			return nil, &catalogFaultError{fmt.Errorf("%s cannot run: its notebook names the model %q (<!-- model: … --> line), which the package does not have; its models: %s. Run the cell's SQL with sql against one of them", e.Path, q.Notebook.ModelName, strings.Join(models, ", "))}
		}
		return nil, fmt.Errorf("%s has no model to run against", e.Path)
	}
	mpath, qpath := modelPath(m), "" // qpath: the named query's or the cell's path
	if q != nil {
		qpath, _ = namedPaths(q) // q.Model is m
	}
	eng := sn.engines[m]
	if eng == nil && sn.loading[packagePath(m.Package)] {
		return nil, &loadingError{fmt.Errorf("the model %s is unavailable for now: %s", mpath, sn.broken[m])}
	}
	if eng == nil {
		retry := sn.retryNote(packagePath(m.Package))
		if mpath == e.Path {
			return nil, &modelDownError{fmt.Errorf("the model %s is unavailable: %s", mpath, sn.broken[m]), retry}
		}
		return nil, &modelDownError{fmt.Errorf("the model of %s (%s) is unavailable: %s", e.Path, mpath, sn.broken[m]), retry}
	}
	if e.Kind == catalog.KindSource && in.SQL == "" && eng.Broken()[e.Name] != "" {
		// Reading the source itself; SQL of the caller's own may not need it
		// (and is told the same below if it does).
		return nil, &brokenSourceError{path: e.Path, reason: sourceProblem(m, eng.Broken()[e.Name])}
	}
	if in.SQL != "" && len(m.Package.OutsideLinks) > 0 {
		return nil, &outsideLinkError{fmt.Errorf("ad-hoc SQL on %s is refused: the folder of package %s/%s holds symbolic links out of it (%s): a glob pattern through a link to a folder lists the names of files outside the package, and what a link leads to (a file's link too) can change outside the catalog without the server seeing it. Its named queries and sources still run; the catalog's author can remove the links or copy the data into the package", mpath, m.Package.Project.Name, m.Package.Name, strings.Join(m.Package.OutsideLinks, ", "))}
	}
	if in.SQL != "" {
		// A reading of the role's privileges that failed is made again first
		// (it goes on in the background when the query stops waiting for it).
		rctx, cancel := context.WithTimeout(ctx, roleRecheckWait(s.cfg.QueryTimeout))
		why, unread := roleProblem(rctx, eng)
		cancel()
		if why != "" {
			return nil, &roleUnlockedError{fmt.Errorf("ad-hoc SQL on %s is refused: %s", mpath, why), unread}
		}
	}
	if in.SQL != "" && m.Package.Engine == catalog.EngineDuckDB {
		if err := specialFileRead(sqlText, m.Package.Dir); err != nil {
			return nil, err
		}
	}
	// Counted from here, running or waiting for the model's turn: a client past
	// its share is answered at once. The engine releases the count (Limits.Done)
	// once the query holds none of its connections: with -isolate=false, a
	// calculation DuckDB cannot interrupt goes on past its answer, and counts
	// until it ends.
	release, err := s.shares.take(ctx, m, mpath)
	if err != nil {
		return nil, err
	}
	client, group := turnOf(ctx) // its turn for a connection comes round-robin by client
	res, err := eng.Query(ctx, sqlText, params, engine.Limits{RowLimit: rowLimit, ByteBudget: s.cfg.ByteBudget, Timeout: s.cfg.QueryTimeout, Done: release, Client: client, Group: group})
	if ee := (*engine.EngineError)(nil); errors.As(err, &ee) && ee.Gone {
		err = s.rebuild(m, eng, err) // its database file was removed: the model loads again (or its last load failed: err says so)
	}
	castOf := "" // the parameter whose cast the error is at
	if err != nil {
		// Positions and DuckDB's excerpt about the author's SQL, not the
		// casts it ran with.
		err, castOf = typed.restore(err)
		// The SQL the error is now about: a named query's as its author wrote
		// it (restore moved the positions and excerpt there), not its casts.
		errSQL := sqlText
		if q != nil {
			errSQL = q.SQL
		}
		// The files DuckDB names (a CSV that fails to convert) by their place in
		// the package, not on the server's disk.
		err = withPackageRelative(err, m, errSQL)
		// DuckDB knows nothing of a source whose view could not be made: say why
		// it is missing rather than "no such table, did you mean …".
		var se *engine.SQLError
		if errors.As(err, &se) && se.Engine == "duckdb" {
			// Reading a source's file failed (a CSV value of another type than
			// detected): the catalog's to fix, not the caller's SQL.
			callerText, given := in.SQL, ""
			if q != nil {
				callerText, given = "", jsonText(in.Parameters)
			}
			if fe := sourceFileFault(se, m, callerText, given); fe != nil {
				return nil, fe
			}
			miss := duckNoTable.FindStringSubmatch(se.Message)
			for name, reason := range eng.Broken() {
				// DuckDB compares names without case: "Gone" is the source gone.
				if miss != nil && strings.EqualFold(strings.Trim(miss[1], `"`), name) {
					return nil, &brokenSourceError{path: mpath + "/" + name, reason: sourceProblem(m, reason)}
				}
			}
			if ce := catalogPathName(se, errSQL, m); ce != nil {
				err = ce
			} else {
				err = withClosestSources(timeZoneAdvice(se), m, sn.cat, eng.Columns())
			}
		}
		// A file named by a relative path: said in the package's terms.
		var ref *engine.RefusedError
		if errors.As(err, &ref) {
			if fe := fileRefusal(ref, m); fe != nil {
				err = fe
			}
		}
		// Out of time or memory on SQL the caller did not write (a named
		// query or cell, a source read whole): what to change instead, not
		// "aggregate, filter".
		var notTheirs *queryTimeoutError
		switch {
		case q != nil:
			notTheirs = &queryTimeoutError{path: qpath, model: mpath, params: q.Params, given: jsonText(in.Parameters), cell: q.Notebook != nil}
		case e.Kind == catalog.KindSource && in.SQL == "":
			notTheirs = &queryTimeoutError{path: e.Path, model: mpath, source: e.Name}
		}
		if notTheirs != nil {
			if to := (*engine.TimeoutError)(nil); errors.As(err, &to) && !to.Busy() {
				notTheirs.to = to
				return nil, notTheirs
			}
			if me := (*engine.MemoryError)(nil); errors.As(err, &me) && me.Advice == "" {
				me.Advice = notTheirs.hintFor(true)
			}
		}
		// Out of time or memory on the caller's own SQL: advice that fits it.
		if in.SQL != "" {
			adviseOnFailure(ctx, err, sqlText)
		}
	}
	if pe := paramValueError(q, in.Parameters, castOf, err); pe != nil {
		return nil, pe
	}
	if te := unknownParamType(q, err); te != nil {
		return nil, te
	}
	if ref := (*engine.RefusedError)(nil); q != nil && errors.As(err, &ref) {
		if ref.RowLocks() {
			return nil, rowLocksNamed(q, qpath, mpath)
		}
		// A refusal met while the query ran (a file it opened, its columns)
		// may be the values' doing (read_csv($path)): the caller's to change.
		if !ref.AtRun || len(q.Params) == 0 {
			return nil, refusedNamed(q, qpath, mpath, ref)
		}
	}
	var ub *engine.UnboundParamError
	if errors.As(err, &ub) {
		if q == nil {
			// Ad-hoc SQL takes no parameters (above): say what to do instead,
			// naming the parameter as the SQL writes it (?, not DuckDB's $1).
			return nil, unboundAdHoc(sqlText, ub.Name)
		}
		// checkParams gave every parameter the query declares: the catalog's SQL
		// uses one it does not declare.
		return nil, unboundNamed(q, ub.Name)
	}
	var se *engine.SQLError
	if q != nil && errors.As(err, &se) {
		cse := &catalogSQLError{se: se, query: qpath, model: mpath, isCell: q.Notebook != nil}
		if len(q.Params) > 0 {
			cse.params = jsonText(in.Parameters) // as the call wrote them
		}
		return nil, cse
	}
	return res, err
}

// queryNameNotFound is the answer to a queryName that names nothing in e (a model
// or a notebook): the closest of its named queries or cells, not of its sources,
// which no queryName runs.
func queryNameNotFound(nf *catalog.NotFoundError, e *catalog.Entry) error {
	var names []string
	for _, ch := range e.Children {
		if ch.Kind == catalog.KindQuery {
			names = append(names, ch.Name)
		}
	}
	out := *nf
	out.Kind = "query"
	if e.Kind == catalog.KindNotebook {
		out.Kind = "cell"
	}
	out.Closest, out.Far = catalog.Near(nf.Name, names, e.Path, 3)
	out.LookAlike = ""
	if match, note := catalog.LookAlike(nf.Name, names); match != "" {
		out.Closest, out.Far = catalog.FirstOf(e.Path+"/"+match, out.Closest, out.Far)
		out.LookAlike = note
	}
	return &out
}

// sourceModels returns the paths of the models, other than m, that have a source
// named name (compared without case, as DuckDB compares names).
func sourceModels(cat *catalog.Catalog, name string, m *catalog.Model) []string {
	var out []string
	for _, p := range cat.Projects {
		for _, k := range p.Packages {
			for _, mm := range k.Models {
				if mm == m {
					continue
				}
				for _, src := range mm.Sources {
					if strings.EqualFold(src.Name, name) {
						out = append(out, p.Name+"/"+k.Name+"/"+mm.Name)
						break
					}
				}
			}
		}
	}
	return out
}

var (
	duckNoColumn    = regexp.MustCompile(`does not have a column named "([^"]+)"`)
	duckCatalogPath = regexp.MustCompile(`Catalog "[^"]*" does not exist|NameListToString NOT IMPLEMENTED`)
	duckNoTable     = regexp.MustCompile(`Table with name ([^ ]+) does not exist`)
	duckDidYouMean  = regexp.MustCompile(`Did you mean "([^"]+)"`)
	duckGuessLine   = regexp.MustCompile(`\nDid you mean "[^"]+"\?`)
)

// dottedName is a name of three parts or more (a.b.c, "a".b.c.d), as a
// catalog path written with dots reads in SQL.
var dottedName = regexp.MustCompile(`(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")(?:\s*\.\s*(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")){2,}`)

// plainName is a name SQL reads as written, without quotes.
var plainName = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// catalogPathName replaces DuckDB's error about a source named by its catalog
// path (retail.shop.sales.orders: "NameListToString NOT IMPLEMENTED", which is
// DuckDB's own text, or Catalog "shop" does not exist) with what it is: the
// catalog's path is not a SQL name, and within the model a source is named
// alone. nil when the error is another one, or sqlText holds no such name.
func catalogPathName(se *engine.SQLError, sqlText string, m *catalog.Model) *engine.SQLError {
	if !duckCatalogPath.MatchString(se.Message) {
		return nil
	}
	loc := dottedName.FindStringIndex(sqlText)
	if loc == nil {
		return nil
	}
	name := sqlText[loc[0]:loc[1]]
	parts := strings.Split(name, ".")
	last := strings.Trim(strings.TrimSpace(parts[len(parts)-1]), `"`)
	alone := ""
	for _, src := range m.Sources {
		if strings.EqualFold(src.Name, last) {
			alone = src.Name
		}
	}
	msg := fmt.Sprintf("%s is a catalog path, not a SQL name: within the model (the call's path), name a source by its name alone", name)
	if alone != "" {
		if !plainName.MatchString(alone) {
			alone = quoteIdent(alone)
		}
		msg += fmt.Sprintf(" (FROM %s)", alone)
	} else {
		var names []string
		for _, src := range m.Sources {
			names = append(names, src.Name)
		}
		sort.Strings(names)
		msg += fmt.Sprintf("; the model's sources: %s", strings.Join(names, ", "))
	}
	return &engine.SQLError{Engine: se.Engine, Message: msg, Position: utf8.RuneCountInString(sqlText[:loc[0]]) + 1}
}

// withClosestSources adds the model's sources closest to a table DuckDB did not
// find when DuckDB's own guess is not one of them: it guesses among every table
// it knows, its system views included ("sales_orders": Did you mean "pg_class"?).
//
// It also helps where DuckDB gives no names: a column missing from a table
// named by an alias ("o.quantty") gets the model's closest columns, a source named
// with the catalog's path ("shop.sales.orders") is told to be named alone, and a
// missing table that is a source of another model is told where it is.
func withClosestSources(se *engine.SQLError, m *catalog.Model, cat *catalog.Catalog, cols map[string][]engine.Column) error {
	out := closestSources(se, m, cat, cols)
	// A name that only looks like one the model has ("оrders" with a Cyrillic
	// "о"): which characters differ, whatever else was said.
	if note := lookAlikeNote(se.Message, m, cols); note != "" {
		var o *engine.SQLError
		if errors.As(out, &o) {
			c := *o
			c.Message += "\n(" + note + ")"
			return &c
		}
	}
	return out
}

// closestSources is withClosestSources without the look-alike note.
func closestSources(se *engine.SQLError, m *catalog.Model, cat *catalog.Catalog, cols map[string][]engine.Column) error {
	if c := duckNoColumn.FindStringSubmatch(se.Message); c != nil {
		var names []string
		where := map[string][]string{}
		for src, cs := range cols {
			for _, col := range cs {
				if where[col.Name] == nil {
					names = append(names, col.Name)
				}
				where[col.Name] = append(where[col.Name], src)
			}
		}
		var hints []string
		for _, n := range catalog.Closest(c[1], names, 3) {
			srcs := where[n]
			sort.Strings(srcs)
			hints = append(hints, n+" ("+strings.Join(srcs, ", ")+")")
		}
		if len(hints) == 0 {
			return se
		}
		out := *se
		out.Message += "\n(closest columns of the model's sources: " + strings.Join(hints, ", ") + ")"
		return &out
	}
	if duckCatalogPath.MatchString(se.Message) {
		out := *se
		out.Message += "\n(name a source by itself, as in FROM orders: the model is the call's path, not part of the SQL)"
		return &out
	}
	miss := duckNoTable.FindStringSubmatch(se.Message)
	if miss == nil {
		return se
	}
	var names []string
	for _, src := range m.Sources {
		names = append(names, src.Name)
	}
	g := duckDidYouMean.FindStringSubmatch(se.Message)
	guessed := g != nil && slices.Contains(names, g[1])
	out := *se
	if !guessed {
		// DuckDB's guess is none of the model's sources (a system view such as
		// sqlite_master): dropped, the notes below say what the model has.
		out.Message = duckGuessLine.ReplaceAllString(out.Message, "")
	}
	if elsewhere := sourceModels(cat, strings.Trim(miss[1], `"`), m); len(elsewhere) > 0 && !slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, strings.Trim(miss[1], `"`)) }) {
		out.Message += fmt.Sprintf("\n(%s is a source of the model %s, not of this one: run the query with path %s)", strings.Trim(miss[1], `"`), strings.Join(elsewhere, ", the model "), elsewhere[0])
		return &out
	}
	if guessed {
		return se
	}
	if c := catalog.Closest(miss[1], names, 3); len(c) > 0 {
		out.Message += "\n(closest sources of the model: " + strings.Join(c, ", ") + ")"
	} else {
		sort.Strings(names)
		out.Message += "\n(the model's sources: " + strings.Join(names[:min(len(names), 10)], ", ") + ")"
	}
	return &out
}

// checkParams checks values against a named query's typed parameters.
func checkParams(q *catalog.Query, in map[string]any) (map[string]any, error) {
	// The SQL uses a parameter it does not declare: the catalog's fault, whatever
	// the call gives (on PostgreSQL an undeclared @y would even run, as
	// PostgreSQL's absolute-value operator before a name).
	if a, b, clash := catalog.ParamCaseClash(q, queryEngine(q)); clash {
		// DuckDB would bind one value to both (the other dropped).
		return nil, &catalogFaultError{fmt.Errorf("named query %s declares the parameters %q (%s) and %q (%s), whose names differ only in case, and DuckDB reads $%s and $%s as one parameter, so no call can run it; the catalog's file must rename one of them", q.Name, a.Name, a.Type, b.Name, b.Type, a.Name, b.Name)}
	}
	// On DuckDB names are compared without regard to case, as DuckDB does:
	// $ab is the parameter declared Ab.
	declared := map[string]bool{}
	for _, p := range q.Params {
		declared[catalog.ParamKey(p.Name, queryEngine(q))] = true
	}
	named, positional := catalog.Spans(q.SQL, queryEngine(q))
	for _, sp := range named {
		if !declared[catalog.ParamKey(sp.Name, queryEngine(q))] {
			return nil, unboundNamed(q, catalog.ParamSign(queryEngine(q))+sp.Name)
		}
	}
	if len(positional) > 0 {
		return nil, unboundPositional(q, positional[0])
	}
	out := map[string]any{}
	// Every parameter missing is named at once, with what each is.
	var missing, all []string
	for _, p := range q.Params {
		desc := p.Name + " (" + p.Type
		if p.Description != "" {
			desc += ": " + p.Description
		}
		all = append(all, desc+")")
		if _, ok := in[p.Name]; !ok {
			m := strconv.Quote(p.Name)
			for k := range in {
				if k != p.Name && (strings.EqualFold(k, p.Name) || strings.EqualFold(strings.TrimLeft(k, "$@:"), p.Name)) {
					m += fmt.Sprintf(" (given as %q: names are exact, without $)", k)
				}
			}
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		what := "parameter " + missing[0]
		if len(missing) > 1 {
			what = "parameters " + strings.Join(missing, ", ")
		}
		return nil, fmt.Errorf("named query %s needs %s; its parameters: %s", q.Name, what, strings.Join(all, ", "))
	}
	for _, p := range q.Params {
		v, err := bindParam(queryEngine(q), p, in[p.Name])
		if err != nil {
			return nil, err
		}
		out[p.Name] = v
	}
	for k := range in {
		if _, ok := out[k]; !ok {
			var known []string
			for _, p := range q.Params {
				known = append(known, p.Name)
			}
			sort.Strings(known)
			if len(known) == 0 {
				return nil, fmt.Errorf("named query %s takes no parameters; drop %q", q.Name, k)
			}
			if c := catalog.Closest(k, known, 3); len(c) > 0 {
				known = c
			}
			return nil, fmt.Errorf("named query %s has no parameter %q; its parameters include: %s", q.Name, k, strings.Join(known, ", "))
		}
	}
	return out, nil
}

// paramValueError turns the engine's failure to read a named query's
// parameter as its type (a DATE "yesterday", an INTERVAL it cannot read, a list
// element it cannot cast) into an error about the parameter: the caller wrote no
// SQL, so "fix the SQL" is no help. given are the call's values; castOf is the
// parameter whose cast the error's position falls in ("" for none). The engine's
// message quotes the value, or the time zone it does not know; where it quotes
// nothing (DuckDB's time beyond its range in a TIMESTAMPTZ's zone, PostgreSQL's
// JSON nested past its stack or jsonb number past its numeric), a parameter whose
// value can cause it, and no ordinary value can, is blamed. It returns nil for
// any other error.
func paramValueError(q *catalog.Query, given map[string]any, castOf string, err error) error {
	var se *engine.SQLError
	if q == nil || !errors.As(err, &se) {
		return nil
	}
	if se.SQLState == pgStackDepth {
		// PostgreSQL reads JSON by recursion, as deep as its stack allows: blame
		// JSON nested deeper than any SQL would take it.
		for _, p := range q.Params {
			t := strings.ToUpper(strings.TrimSpace(p.Type))
			v, ok := given[p.Name].(string)
			if !ok || t != "JSON" && t != "JSONB" {
				continue
			}
			if depth := jsonDepth(v); depth > 1000 {
				return fmt.Errorf("parameter %q must be a %s nested less deeply (%d levels; %s); call again with a value PostgreSQL can read", p.Name, p.Type, depth, se.Message)
			}
		}
		return nil
	}
	if se.SQLState == pgNumericOverflow && strings.Contains(se.Message, "value overflows numeric format") {
		// A jsonb's numbers are PostgreSQL's numeric, which holds 131072 digits
		// before the point and 16383 after: blame a number past any double.
		for _, p := range q.Params {
			if v, ok := given[p.Name].(string); ok && strings.EqualFold(strings.TrimSpace(p.Type), "JSONB") && jsonHugeNumber(v) {
				return fmt.Errorf("parameter %q must be a %s whose numbers PostgreSQL's numeric holds (%s); call again with a value PostgreSQL can read", p.Name, p.Type, se.Message)
			}
		}
		return nil
	}
	if se.Engine == "postgres" && se.SQLState == pgDataException && strings.HasPrefix(se.Message, "range lower bound must be less than or equal to range upper bound") {
		// PostgreSQL quotes no value: blame the range parameter given one, when
		// it is the only one (a range the SQL builds may be the one instead).
		var ranges []catalog.Param
		for _, p := range q.Params {
			if pgRangeType.MatchString(compactType(p.Type)) && given[p.Name] != nil {
				ranges = append(ranges, p)
			}
		}
		if len(ranges) != 1 {
			return nil
		}
		p := ranges[0]
		return fmt.Errorf("parameter %q must be %s %s whose lower bound is at most its upper bound, and %s is not one (%s); call again with the bounds in order (\"[1,5)\")", p.Name, typeArticle(p.Type), p.Type, jsonText(given[p.Name]), se.Message)
	}
	if !strings.Contains(se.Message, "Conversion Error") && !strings.Contains(se.Message, "invalid input syntax") && !pgValueStates[se.SQLState] {
		return nil
	}
	// Only the message's first line: after it, DuckDB quotes the SQL (LINE 1:
	// …), whose literals (an empty one, 'x') would match any short value.
	first, _, _ := strings.Cut(se.Message, "\n")
	if strings.Contains(first, duckICUOverflow) {
		// DuckDB quotes nothing: blame a TIMESTAMPTZ whose zone may take it past
		// either end of the range (which the check before the query leaves to
		// DuckDB, whose zones are ICU's).
		for _, p := range q.Params {
			v, ok := given[p.Name].(string)
			if ok && typeKey(compactType(p.Type)) == "TIMESTAMPTZ" && duckZoneNearEnd(v) {
				return fmt.Errorf("parameter %q must be a %s within DuckDB's range once read in its time zone (290309-12-22 (BC) to 294247-01-10 04:00:54.775806 UTC), and %s is not (%s); call again with a time in range, or with an offset right after the seconds (+02:00)", p.Name, p.Type, jsonText(v), first)
			}
		}
		return nil
	}
	// Both engines name only the zone they do not know: PostgreSQL's time zone
	// "mars/olympus" not recognized, DuckDB's Unknown TimeZone 'Mars/Olympus'!
	zone := pgUnknownZone.FindStringSubmatch(first)
	if zone == nil {
		zone = duckUnknownZone.FindStringSubmatch(first)
	}
	// DuckDB names only the unit of an INTERVAL it does not know (extract
	// specifier "fortnight" not recognized, "dow" not supported for interval;
	// "" for a number it reads no unit
	// after, as in "1-0"): blame the INTERVAL parameter holding it, or the only
	// one given a value.
	unit := duckUnknownUnit.FindStringSubmatch(first)
	var intervals []string
	for _, p := range q.Params {
		if iv, _ := isIntervalType(p.Type); iv && given[p.Name] != nil {
			intervals = append(intervals, p.Name)
		}
	}
	for _, p := range q.Params {
		// DuckDB quotes the value either way: date field value out of range:
		// "2025-13-45"; Could not convert string 'yesterday' to INTERVAL.
		// PostgreSQL with double quotes: date/time field value out of range:
		// "2025-02-30 09:30"; time zone displacement out of range: "…+16".
		// A list's elements are quoted alone.
		quoted := p.Name == castOf
		for _, v := range stringValues(given[p.Name]) {
			if v != "" && (quotedFirst(se.Message, first, `"`+v+`"`) || quotedFirst(se.Message, first, `'`+v+`'`) ||
				zone != nil && strings.Contains(strings.ToLower(v), " "+strings.ToLower(zone[1]))) {
				quoted = true
			}
			if unit != nil && slices.Contains(intervals, p.Name) && (unit[1] != "" && strings.Contains(strings.ToLower(v), strings.ToLower(unit[1])) || unit[1] == "" && len(intervals) == 1) {
				quoted = true
			}
		}
		if quoted {
			// The first line: DuckDB's excerpt of the catalog's SQL after it
			// (LINE 1: SELECT $i …) is no help to the caller.
			why := throughQuote(se.Message, first, stringValues(given[p.Name]))
			if takesAnyText(p.Type) {
				// Any string is text: the value failed a conversion the named
				// query makes of it (CAST(trim($s) AS INTEGER), x = $s over an
				// INTEGER column), which the engine's message names.
				return fmt.Errorf("parameter %q (%s %s) is converted by the named query, and the engine could not convert %s (%s); call again with a value it converts (the message says to what; the query's description may say the form)", p.Name, typeArticle(p.Type), p.Type, jsonText(given[p.Name]), why)
			}
			again := "a value of that type"
			if iv, _ := isIntervalType(p.Type); iv {
				again = typeArticle(p.Type) + " " + p.Type + " written as " + intervalForms(queryEngine(q))
			}
			return fmt.Errorf("parameter %q must be %s %s, and the engine could not read %s as one (%s); call again with %s", p.Name, typeArticle(p.Type), p.Type, jsonText(given[p.Name]), why, again)
		}
	}
	return nil
}

// decimalComma is a comma between two digits in an INTERVAL's text ("1,5
// hours"): a decimal comma, which neither engine reads as one. DuckDB refuses
// any comma; PostgreSQL reads a comma as a space between fields ("1,5 hours"
// is 1 day 5 hours), which no caller who wrote it means: the check before the
// query refuses it on both.
var decimalComma = regexp.MustCompile(`[0-9],[0-9]`)

// decimalCommaError refuses the value s of the INTERVAL parameter p (or an
// element of it), which has a comma between digits: the caller's. Said for
// both readings of the comma — a decimal comma ("1,5 hours") and a thousands
// separator ("10,000 seconds") — since "a decimal point is written '.'" led a
// caller to write "10.000 seconds" (10 s) for ten thousand.
func decimalCommaError(p catalog.Param, eng, s string) error {
	reads := "is not an interval DuckDB reads"
	if eng == catalog.EnginePostgres {
		reads = `is refused: PostgreSQL would read its comma as a space between fields ("1,5 hours" as 1 day 5 hours)`
	}
	return fmt.Errorf("parameter %q must be %s %s, and %s %s: a comma between digits is neither a decimal point nor a thousands separator here: write \"1.5 hours\" for one and a half, \"10000 seconds\" for ten thousand; call again with %s %s written as %s", p.Name, typeArticle(p.Type), p.Type, jsonText(s), reads, typeArticle(p.Type), p.Type, intervalForms(eng))
}

// textTypes are the types, as castType writes them, that the engines read any
// string as: DuckDB's VARCHAR and its aliases, PostgreSQL's text types.
var textTypes = map[string]bool{"VARCHAR": true, "TEXT": true, "STRING": true, "CHAR": true, "BPCHAR": true, "CHARACTER": true, "NAME": true, "CITEXT": true}

// takesAnyText reports whether a parameter declared as t (or a list of it)
// takes any string: VARCHAR, TEXT, CHAR(3)[] and the like.
func takesAnyText(t string) bool {
	ct := castType(t)
	if i := strings.IndexAny(ct, "(["); i >= 0 {
		ct = ct[:i]
	}
	return textTypes[ct]
}

// quotedFirst reports whether the engine's message msg quotes q (a value in
// its quotes) starting on its first line, first: a value holding a line
// break ("1 day\nxyz") is quoted across lines, and what follows the first
// line (DuckDB's LINE 1: excerpt of the SQL) is not searched.
func quotedFirst(msg, first, q string) bool {
	if !strings.Contains(q, "\n") {
		// For a q of one line the general case below agrees (a match starting
		// in first ends in it), but for q == "" it would not (first == ""
		// holds "", yet i < len(first) fails), and it would search all of msg:
		// so this branch stays.
		return strings.Contains(first, q)
	}
	i := strings.Index(msg, q)
	return i >= 0 && i < len(first)
}

// throughQuote is msg's first line, or, where msg quotes a value of vs
// across lines from its first, msg through the line the quote ends on.
func throughQuote(msg, first string, vs []string) string {
	for _, v := range vs {
		for _, q := range []string{`"` + v + `"`, `'` + v + `'`} {
			if strings.Contains(q, "\n") && quotedFirst(msg, first, q) {
				end := strings.Index(msg, q) + len(q)
				if nl := strings.IndexByte(msg[end:], '\n'); nl >= 0 {
					end += nl
				} else {
					end = len(msg)
				}
				return msg[:end]
			}
		}
	}
	return first
}

// stringValues returns v if it is a string, and the strings in v if it is a
// list (or a list of lists).
func stringValues(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, stringValues(e)...)
		}
		return out
	}
	return nil
}

// pgValueStates are PostgreSQL's SQLSTATEs for a value it cannot read as its
// type: invalid_datetime_format, datetime_field_overflow,
// invalid_time_zone_displacement_value, interval_field_overflow (its message
// quotes the value), invalid_parameter_value (a time zone it does not know),
// invalid_text_representation, untranslatable_character (\u0000 in a
// jsonb) and numeric_value_out_of_range (value "…" is out of range for type
// money; a message that quotes no value blames no parameter).
var pgValueStates = map[string]bool{"22003": true, "22007": true, "22008": true, "22009": true, "22015": true, "22023": true, "22P02": true, "22P05": true}

// pgDataException is PostgreSQL's SQLSTATE data_exception, which it gives a
// range whose bounds are out of order.
const pgDataException = "22000"

// pgRangeType matches PostgreSQL's range types (and their arrays), as
// compactType writes them.
var pgRangeType = regexp.MustCompile(`^(INT4|INT8|NUM|TS|TSTZ|DATE)(MULTI)?RANGE(\[[0-9]*\])*$`)

// pgStackDepth is PostgreSQL's SQLSTATE statement_too_complex: stack depth
// limit exceeded.
const pgStackDepth = "54001"

// pgNumericOverflow is PostgreSQL's SQLSTATE numeric_value_out_of_range.
const pgNumericOverflow = "22003"

var (
	pgUnknownZone   = regexp.MustCompile(`time zone "([^"]+)" not recognized`)
	duckUnknownZone = regexp.MustCompile(`Unknown TimeZone '([^']+)'`)
	duckUnknownUnit = regexp.MustCompile(`extract specifier "([^"]*)" not (?:recognized|supported for interval)`)
)

// duckICUOverflow is DuckDB's error for a time that a time zone's offset takes
// past either end of its timestamps.
const duckICUOverflow = "ICU date overflows timestamp range"

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
