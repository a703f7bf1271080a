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
	if ctx.Err() != nil || mayHoldPragma(sqlText) {
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
