package engine

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
)

// pgBound is SQL whose named parameters (@name) were replaced by PostgreSQL's
// positional ones ($1, $2, …), with the values to bind in their order.
type pgBound struct {
	text  string
	args  []any
	names []string     // by number less one: the name $n stands for
	spans []pgBindSpan // in order of the text
}

// pgBindSpan is one @name replaced by $n: where it was in the SQL as given
// and where $n is in the text run, in characters from 0.
type pgBindSpan struct {
	orig, origLen int
	at, length    int
}

// pgBind replaces each @name of sqlText, as catalog.PlaceholderSpans reads
// them (not in strings, quoted names, comments or dollar quotes, and not an
// @ that ends an operator such as <@ or @@), with $n: one number per distinct
// name, in order of first use, the same number for each use of a name. Its
// values are params' by name, nil (NULL) for a name params lacks (a named
// query's SQL uses only declared parameters, each given a value). The server
// binds the values positionally, so nothing else reads @ as a parameter: an
// operator written without a space stays an operator in every query.
func pgBind(sqlText string, params map[string]any) *pgBound {
	b := &pgBound{}
	num := map[string]int{}
	var sb strings.Builder
	last, origChars, outChars := 0, 0, 0
	for _, sp := range catalog.PlaceholderSpans(sqlText, catalog.EnginePostgres) {
		k, ok := num[sp.Name]
		if !ok {
			b.names = append(b.names, sp.Name)
			b.args = append(b.args, params[sp.Name])
			k = len(b.names)
			num[sp.Name] = k
		}
		before := utf8.RuneCountInString(sqlText[last:sp.Start])
		origChars += before
		outChars += before
		ph := "$" + strconv.Itoa(k)
		sb.WriteString(sqlText[last:sp.Start])
		sb.WriteString(ph)
		b.spans = append(b.spans, pgBindSpan{orig: origChars, origLen: sp.End - sp.Start, at: outChars, length: len(ph)})
		origChars += sp.End - sp.Start // a name is ASCII
		outChars += len(ph)
		last = sp.End
	}
	sb.WriteString(sqlText[last:])
	b.text = sb.String()
	return b
}

// position maps a 1-based character position in the text run to the SQL as
// given; one inside a $n is its @name's. Positions up to 0 stay.
func (b *pgBound) position(pos int) int {
	if b == nil || pos <= 0 {
		return pos
	}
	p := pos - 1
	shift := 0
	for _, sp := range b.spans {
		switch {
		case p < sp.at:
			return p - shift + 1
		case p < sp.at+sp.length:
			return sp.orig + 1
		}
		shift += sp.length - sp.origLen
	}
	return p - shift + 1
}

// pgParamRef is how PostgreSQL's messages name a positional parameter: in a
// syntax error (at or near "$1") and about its type (could not determine data
// type of parameter $1).
var pgParamRef = regexp.MustCompile(`("\$|parameter \$)(\d+)\b`)

// message names the parameters in PostgreSQL's message msg as the SQL
// writes them (@name), not as they ran ($n).
func (b *pgBound) message(msg string) string {
	if b == nil || len(b.names) == 0 {
		return msg
	}
	return pgParamRef.ReplaceAllStringFunc(msg, func(m string) string {
		sub := pgParamRef.FindStringSubmatch(m)
		k, err := strconv.Atoi(sub[2])
		if err != nil || k < 1 || k > len(b.names) {
			return m
		}
		return strings.TrimSuffix(sub[1], "$") + "@" + b.names[k-1]
	})
}
