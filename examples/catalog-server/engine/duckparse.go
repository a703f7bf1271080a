package engine

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// duckParserConns is how many texts the process's DuckDB parser splits at once.
// Splitting takes time in proportion to the text's length, less than the gate's
// query on the same text, and evaluates nothing (mayHoldPragma). A query never
// waits for one: when all are busy (long texts, many queries at once), it is
// judged by the gate on its own model's connection instead, as it would be
// without the parser — so no caller, whatever it sends, can hold up the queries
// of another model here.
const duckParserConns = 4

// duckParser is DuckDB's own parser with nothing to plan or run on: an in-memory
// database of its own (one thread, no file access, its configuration locked,
// nothing in it) whose connections only split a text into statements
// (duckdb_extract_statements). It tells whether the caller's SQL, by itself, is
// exactly one statement without running a query to find out — what the gate's
// json_serialize_sql query costs three to four times as long to say.
//
// Splitting also expands PRAGMA statements into the SQL they stand for: it
// evaluates their arguments (PRAGMA table_info(<any constant expression>)),
// with no deadline and no way to interrupt it, and PRAGMA import_database
// reads files. So a text that could hold a PRAGMA statement is never split
// here (mayHoldPragma): the gate, which only parses, judges it. Everything else
// is split on an empty database that may read no file, and nothing split here
// is ever run.
type duckParser struct {
	db    mapping.Database
	conns chan mapping.Connection
}

// processParser opens the process's parser on first use; a parser that could
// not be opened (an error) leaves every query to the gate.
var processParser = sync.OnceValues(openDuckParser)

func openDuckParser() (*duckParser, error) {
	var cfg mapping.Config
	if mapping.CreateConfig(&cfg) == mapping.StateError {
		return nil, errors.New("duckdb parser: cannot create a configuration")
	}
	defer mapping.DestroyConfig(&cfg)
	for _, kv := range [][2]string{
		{"threads", "1"},
		{"memory_limit", "64MB"},
		{"enable_external_access", "false"},
		{"autoinstall_known_extensions", "false"},
		{"autoload_known_extensions", "false"},
		{"allow_community_extensions", "false"},
		{"allow_persistent_secrets", "false"},
		{"lock_configuration", "true"},
	} {
		if mapping.SetConfig(cfg, kv[0], kv[1]) == mapping.StateError {
			return nil, errors.New("duckdb parser: cannot set " + kv[0])
		}
	}
	p := &duckParser{conns: make(chan mapping.Connection, duckParserConns)}
	var msg string
	if mapping.OpenExt(":memory:", &p.db, cfg, &msg) == mapping.StateError {
		return nil, errors.New("duckdb parser: " + msg)
	}
	for range duckParserConns {
		var c mapping.Connection
		if mapping.Connect(p.db, &c) == mapping.StateError {
			p.close()
			return nil, errors.New("duckdb parser: cannot connect")
		}
		p.conns <- c
	}
	return p, nil
}

// close disconnects the connections in the pool and closes the database (for
// tests; the process's parser lives as long as the process).
func (p *duckParser) close() {
	for {
		select {
		case c := <-p.conns:
			mapping.Disconnect(&c)
		default:
			mapping.Close(&p.db)
			return
		}
	}
}

// oneStatement reports whether DuckDB's parser reads sqlText as exactly one
// statement. False means anything else — none, several, a syntax error, every
// connection busy, ctx ended — and the caller asks the gate, which says which.
func (p *duckParser) oneStatement(ctx context.Context, sqlText string) bool {
	if lower := strings.ToLower(sqlText); ctx.Err() != nil || strings.Contains(lower, "pragma") || callsStateful(lower) {
		return false
	}
	var c mapping.Connection
	select {
	case c = <-p.conns:
	default:
		return false
	}
	defer func() { p.conns <- c }()
	var st mapping.ExtractedStatements
	n := mapping.ExtractStatements(c, sqlText, &st)
	mapping.DestroyExtracted(&st)
	return n == 1
}

// mayHoldPragma reports whether sqlText has the letters of PRAGMA anywhere, in
// any case (DuckDB reads keywords with ASCII letters only): the only statement
// whose splitting evaluates expressions. It judges nothing — a text it names
// goes to the gate — so a false alarm (a string, a name such as pragma_version)
// only costs the gate's query.
func mayHoldPragma(sqlText string) bool {
	return strings.Contains(strings.ToLower(sqlText), "pragma")
}

// statefulFunctions are DuckDB's functions that a SELECT may call but that change
// something beyond the query, or run SQL held in a string (which the gate never
// sees): logging and profiling (which write files in the package folder, change
// settings the configuration lock does not cover, and show one client's queries to
// another), checkpoints (checkpoint('system') invalidates the database), the
// PEG parser switch, the connection's random seed, and SQL from strings or plans;
// and those that show what other queries of the database did (watchFunctions) or
// wait without working (idleFunctions). A query calling one is refused.
var statefulFunctions = joinSets(map[string]bool{
	"enable_logging": true, "disable_logging": true, "truncate_duckdb_logs": true, "write_log": true,
	"enable_profiling": true, "disable_profiling": true,
	"checkpoint": true, "force_checkpoint": true,
	"enable_peg_parser": true, "disable_peg_parser": true, "check_peg_parser": true,
	"setseed":                     true,
	"json_execute_serialized_sql": true, "json_serialize_plan": true, "query": true, "query_table": true,
}, watchFunctions, idleFunctions, folderFunctions)

// joinSets returns the union of sets.
func joinSets(sets ...map[string]bool) map[string]bool {
	out := map[string]bool{}
	for _, set := range sets {
		for k := range set {
			out[k] = true
		}
	}
	return out
}

// watchFunctions are the statefulFunctions that change nothing but show what
// other queries of the same database — other clients' in the server's process, or
// earlier ones in a reused query process — did: the files and byte ranges they
// read (duckdb_external_file_cache), their spill files (duckdb_temporary_files),
// the memory they hold (duckdb_memory, pragma_database_size), the connections
// open (duckdb_connection_count).
var watchFunctions = map[string]bool{
	"duckdb_external_file_cache": true, "duckdb_temporary_files": true, "duckdb_memory": true, "pragma_database_size": true, "duckdb_connection_count": true,
}

// folderFunctions are the statefulFunctions that read a folder of the server's
// own, outside every package, and so cannot run under the file-access lock:
// duckdb_extensions lists the extension folder (DuckDB then answered
// "Permission Error: Cannot access directory …/extensions/…", which the
// server read as a file the caller named). It would change nothing, but
// letting it read that folder would let every query read it; the extensions
// the server has are built in and loaded, and duckdb_functions() lists what
// they provide.
var folderFunctions = map[string]bool{"duckdb_extensions": true}

// folderReason is why a query calling name (one of folderFunctions) is refused.
func folderReason(name string) string {
	return "the query calls " + name + ", which lists the extensions installed in the server's extension folder, and a query may read no folder outside its package; the extensions this server has are built in and already loaded (nothing can be installed), and duckdb_functions() lists the functions they provide"
}

// idleFunctions are the statefulFunctions of DuckDB's that wait without working:
// sleep_ms, and its macro pg_sleep. A query calling one would hold its model's
// connection (and a query process) for as long as it asks, up to its time limit,
// using no processor or memory that any other limit would notice first.
var idleFunctions = map[string]bool{"sleep_ms": true, "pg_sleep": true}

// waitsIdle reports whether the function name (as statefulCall returns it) is
// one of idleFunctions.
func waitsIdle(name string) bool { return idleFunctions[strings.ToLower(name)] }

// waitsIdleReason is why a query calling name (waitsIdle) is refused.
func waitsIdleReason(name string) string {
	return "the query calls " + name + ", which waits without doing any work while it holds one of the model's connections that other queries wait for; queries may not sleep"
}

// statefulOptions are the options of DuckDB's readers that make a query create
// tables (read_csv's rejects tables, which would then hide the model's sources on
// that connection).
var statefulOptions = map[string]bool{"store_rejects": true, "rejects_table": true, "rejects_scan": true}

// stateMacros are DuckDB's built-in macros whose definitions call one of
// statefulFunctions, directly or through another such macro (the table macros
// histogram_values and histogram run query_table on their first argument,
// get_block_size reads pragma_database_size): by name, in lower case, the
// function of statefulFunctions each comes to. A query calling one is refused
// as a query calling that function is: the gate reads the caller's syntax
// tree, where only the macro's name is. A table macro is refused as a table
// function only (FROM histogram('t', c)), a scalar macro as a scalar call only:
// the aggregate histogram(c) is another function of the same name.
//
// They are those of the DuckDB this program is built with (DuckDB 1.5.6),
// written here, not listed when the program runs: listing them from
// duckdb_functions() opens a second DuckDB database in the process, and a
// query process that had listed them ran its queries slower for good
// (p90-by-key's overhead 14.8–20.9 % against 7.7–10.9 % without, in one
// interleaved run). TestStateMacrosLive lists them from DuckDB and fails when
// they differ (an upgrade of DuckDB), so that this list is brought up to date.
func stateMacros() macroSet { return knownStateMacros }

// macroSet is stateMacros: scalar macros and table macros apart.
type macroSet struct{ scalar, table map[string]string }

// knownStateMacros are stateMacros.
var knownStateMacros = macroSet{
	scalar: map[string]string{"get_block_size": "pragma_database_size"},
	table:  map[string]string{"histogram_values": "query_table", "histogram": "query_table"},
}

// statefulTarget returns the function of statefulFunctions a call of name (as
// statefulCall returns it) comes to: name itself (pg_sleep, a macro listed there
// by name, too), or what the macro calls.
func statefulTarget(name string) string {
	if statefulFunctions[strings.ToLower(name)] {
		return name
	}
	ms := stateMacros()
	if f := ms.table[strings.ToLower(name)]; f != "" {
		return f
	}
	if f := ms.scalar[strings.ToLower(name)]; f != "" {
		return f
	}
	return name
}

// mayCallStateful reports whether sqlText has, in any case, the letters of one of
// statefulFunctions or statefulOptions anywhere (a function's name can be written
// no other way: DuckDB has no escapes in identifiers). Like mayHoldPragma it
// judges nothing: such a text goes to the gate, which reads DuckDB's syntax tree
// (statefulCall); a false alarm (a column named query_id) only costs the gate's
// query.
func mayCallStateful(sqlText string) bool { return callsStateful(strings.ToLower(sqlText)) }

// callsStateful is mayCallStateful of a text already in lower case.
func callsStateful(lower string) bool {
	if strings.Contains(lower, "rejects") {
		return true
	}
	for name := range statefulFunctions {
		if strings.Contains(lower, name) {
			return true
		}
	}
	ms := stateMacros()
	for _, set := range []map[string]string{ms.scalar, ms.table} {
		for name := range set {
			if strings.Contains(lower, name) {
				return true
			}
		}
	}
	return false
}

// statefulCall returns the first call in a statement's syntax tree (as
// json_serialize_sql writes it) of one of statefulFunctions — by its name,
// whatever its schema, as a table function, a scalar function or a method
// (x.write_log()) — or of one of stateMacros, or of a function with one of
// statefulOptions, and "" when there is none.
func statefulCall(stmt any) string {
	found := ""
	ms := stateMacros()
	eachNode(stmt, func(n map[string]any) {
		if found != "" {
			return
		}
		if n["type"] == "TABLE_FUNCTION" {
			// FROM f(…): a table macro of that name is what runs.
			fn, _ := n["function"].(map[string]any)
			if name, _ := fn["function_name"].(string); ms.table[strings.ToLower(name)] != "" {
				found = name
			}
			return
		}
		if n["class"] != "FUNCTION" {
			return
		}
		name, _ := n["function_name"].(string)
		if statefulFunctions[strings.ToLower(name)] || ms.scalar[strings.ToLower(name)] != "" {
			found = name
			return
		}
		ch, _ := n["children"].([]any)
		for _, c := range ch {
			if opt, ok := optionName(c); ok && statefulOptions[strings.ToLower(opt)] {
				found = name + " with " + opt
				return
			}
		}
	})
	return found
}
