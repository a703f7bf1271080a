package engine

import (
	"fmt"
	"regexp"
	"strings"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// The column types execute_query gives for a DuckDB query are written as DuckDB
// writes them itself (typeof(), DESCRIBE, information_schema.columns, which give
// describe its columns): STRUCT(k VARCHAR, "Odd Name" INTEGER) with a field's
// name quoted only where DuckDB quotes it, ENUM('a', 'b') with its values,
// TIMESTAMP WITH TIME ZONE. duckdb-go's own names (STRUCT("k" VARCHAR), ENUM,
// TIMESTAMPTZ) are kept for converting the values (duckValue), not shown.

// duckTypeString writes the type ti as DuckDB's typeof() does; false for a
// type it cannot write (one holding a type without a name here).
func duckTypeString(ti duckdb.TypeInfo) (string, bool) {
	if a := ti.Alias(); a != "" {
		return a, true // JSON
	}
	switch d := ti.Details().(type) {
	case *duckdb.DecimalDetails:
		return fmt.Sprintf("DECIMAL(%d,%d)", d.Width, d.Scale), true
	case *duckdb.EnumDetails:
		vals := make([]string, len(d.Values))
		for i, v := range d.Values {
			vals[i] = quoteLit(v)
		}
		return "ENUM(" + strings.Join(vals, ", ") + ")", true
	case *duckdb.ListDetails:
		s, ok := duckTypeString(d.Child)
		return s + "[]", ok
	case *duckdb.ArrayDetails:
		s, ok := duckTypeString(d.Child)
		return fmt.Sprintf("%s[%d]", s, d.Size), ok
	case *duckdb.MapDetails:
		k, kok := duckTypeString(d.Key)
		v, vok := duckTypeString(d.Value)
		return "MAP(" + k + ", " + v + ")", kok && vok
	case *duckdb.StructDetails:
		parts := make([]string, len(d.Entries))
		for i, e := range d.Entries {
			s, ok := duckTypeString(e.Info())
			if !ok {
				return "", false
			}
			parts[i] = duckOptionalQuote(e.Name()) + " " + s
		}
		return "STRUCT(" + strings.Join(parts, ", ") + ")", true
	case *duckdb.UnionDetails:
		parts := make([]string, len(d.Members))
		for i, m := range d.Members {
			s, ok := duckTypeString(m.Type)
			if !ok {
				return "", false
			}
			parts[i] = duckOptionalQuote(m.Name) + " " + s
		}
		return "UNION(" + strings.Join(parts, ", ") + ")", true
	case nil:
		if s, ok := duckTypeShown[ti.InternalType()]; ok {
			return s, true
		}
		if s, ok := duckPrimitiveNames[ti.InternalType()]; ok {
			return s, true
		}
	}
	return "", false
}

// duckTypeShown are the types DuckDB writes otherwise than duckdb-go names
// them.
var duckTypeShown = map[duckdb.Type]string{
	duckdb.TYPE_TIMESTAMP_TZ: "TIMESTAMP WITH TIME ZONE",
	duckdb.TYPE_TIME_TZ:      "TIME WITH TIME ZONE",
	duckdb.TYPE_VARIANT:      "VARIANT",
}

// plainName is a name DuckDB writes without quotes in a type, unless it is
// one of its keywords.
var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// duckOptionalQuote writes the name of a STRUCT's field or a UNION's member as
// DuckDB does in a type: as it is when it is ASCII letters, digits and _ (not
// first a digit) and not one of DuckDB's keywords in any case, else quoted.
func duckOptionalQuote(name string) string {
	if name != "" && plainName.MatchString(name) && !duckKeywords[strings.ToLower(name)] {
		return name
	}
	return quoteIdent(name)
}

// duckKeywords are DuckDB 1.5.6's keywords, of every category (as
// duckdb_keywords() lists them; TestDuckKeywords holds the list to it): a
// field named so is quoted.
var duckKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(duckKeywordList) {
		m[w] = true
	}
	return m
}()

const duckKeywordList = `
abort absolute access action add admin after aggregate all also alter always analyse
analyze and anti any array as asc asof assertion assignment asymmetric at attach
attribute authorization backward before begin between bigint binary bit boolean both by
cache call called cascade cascaded case cast catalog centuries century chain char
character characteristics check checkpoint class close cluster coalesce collate collation
column columns comment comments commit committed compression concurrently configuration
conflict connection constraint constraints content continue conversion copy cost create
cross csv cube current cursor cycle data database day days deallocate dec decade decades
decimal declare default defaults deferrable deferred definer delete delimiter delimiters
depends desc describe detach dictionary disable discard distinct do document domain
double drop each else enable encoding encrypted end enum error escape event except
exclude excluding exclusive execute exists explain export export_state extension
extensions external extract false family fetch filter first float following for force
foreign forward freeze from full function functions generated glob global grant granted
group grouping grouping_id groups handler having header hold hour hours identity if
ignore ilike immediate immutable implicit import in include including increment index
indexes inherit inherits initially inline inner inout input insensitive insert install
instead int integer intersect interval into invoker is isnull isolation join json key
label lambda language large last lateral leading leakproof left level like limit listen
load local location lock locked logged macro map mapping match matched materialized
maxvalue merge method microsecond microseconds millennia millennium millisecond
milliseconds minute minutes minvalue mode month months move name names national natural
nchar new next no none not nothing notify notnull nowait null nullif nulls numeric object
of off offset oids old on only operator option options or order ordinality others out
outer over overlaps overlay overriding owned owner parallel parser partial partition
partitioned passing password percent persistent pivot pivot_longer pivot_wider placing
plans policy position positional pragma preceding precision prepare prepared preserve
primary prior privileges procedural procedure program publication qualify quarter
quarters quote range read real reassign recheck recursive ref references referencing
refresh reindex relative release rename repeatable replace replica reset respect restart
restrict returning returns revoke right role rollback rollup row rows rule sample
savepoint schema schemas scope scroll search second seconds secret security select semi
sequence sequences serializable server session set setof sets share show similar simple
skip smallint snapshot some sorted source sql stable standalone start statement
statistics stdin stdout storage stored strict strip struct subscription substring
summarize symmetric sysid system table tables tablesample tablespace target temp template
temporary text then ties time timestamp to trailing transaction transform treat trigger
trim true truncate trusted try_cast type types unbounded uncommitted unencrypted union
unique unknown unlisten unlogged unpack unpivot until update use user using vacuum valid
validate validator value values varchar variable variadic varying verbose version view
views virtual volatile week weeks when where whitespace window with within without work
wrapper write xml xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces
xmlparse xmlpi xmlroot xmlserialize xmltable year years yes zone`
