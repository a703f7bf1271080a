package catalog

import (
	"slices"
	"sort"
	"strings"
	"unicode"
)

// MatchAll is the query text that browses the whole catalog.
const MatchAll = "*"

// Query selects patterns. Zero fields do not filter.
type Query struct {
	// Text is free text scored against titles, tags and descriptions. Every
	// meaningful word must match somewhere; blank text, MatchAll, or text made
	// only of stop words matches every pattern with score 0.
	Text       string
	Category   Category
	Difficulty Difficulty
}

// Match is one search hit.
type Match struct {
	Pattern *Pattern
	Score   int
}

// Score weights: a word in the title counts most, then tags, then the category
// name, then the description. Prefix matches count less than whole words.
const (
	scoreTitleWord    = 10
	scoreTitlePrefix  = 6
	scoreTag          = 8
	scoreTagPrefix    = 4
	scoreCategory     = 4
	scoreDescWord     = 3
	scoreDescPrefix   = 1
	scoreTitlePhrase  = 15
	minPrefixLen      = 3
	minDescPrefixLen  = 4
	maxQueryTerms     = 32
	maxTermRunes      = 64
	suggestIDDistance = 3
)

var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "the": true, "of": true, "to": true, "in": true,
	"for": true, "with": true, "on": true, "or": true, "is": true, "how": true, "go": true,
	"golang": true, "pattern": true, "patterns": true, "i": true, "my": true, "do": true,
	"as": true, "at": true, "be": true, "by": true, "it": true, "its": true, "from": true,
	"that": true, "this": true, "are": true, "so": true, "you": true, "your": true, "what": true,
	"when": true, "use": true, "using": true, "can": true, "should": true, "into": true,
}

type indexEntry struct {
	title    []string
	titleLow string
	tags     []string
	tagWords []string
	desc     map[string]bool
	descList []string
	category string
}

func newIndexEntry(p *Pattern) indexEntry {
	e := indexEntry{
		title:    words(p.Title),
		titleLow: strings.Join(words(p.Title), " "),
		tags:     p.Tags,
		desc:     map[string]bool{},
		category: string(p.Category),
	}
	for _, t := range p.Tags {
		e.tagWords = append(e.tagWords, words(t)...)
	}
	for _, w := range words(p.Description) {
		if !e.desc[w] {
			e.desc[w] = true
			e.descList = append(e.descList, w)
		}
	}
	return e
}

// words splits s into lower-case runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// Terms returns the meaningful search words of text: lower case, stop words
// removed, at most 32 words of at most 64 runes each.
func Terms(text string) []string {
	var out []string
	for _, w := range words(text) {
		if stopWords[w] || slices.Contains(out, w) {
			continue
		}
		if r := []rune(w); len(r) > maxTermRunes {
			w = string(r[:maxTermRunes])
		}
		out = append(out, w)
		if len(out) == maxQueryTerms {
			break
		}
	}
	return out
}

// termScore scores one term against one pattern; 0 means no match. A term
// ending in "s" also matches its singular ("tests" finds "test").
func (e *indexEntry) termScore(t string) int {
	alt := t
	if len(t) > 3 && strings.HasSuffix(t, "s") {
		alt = t[:len(t)-1]
	}
	prefixOK := len(t) >= minPrefixLen
	s := 0
	for _, w := range e.title {
		if w == t || w == alt {
			s += scoreTitleWord
			break
		}
		if prefixOK && strings.HasPrefix(w, t) {
			s += scoreTitlePrefix
			break
		}
	}
	tagScore := 0
	for _, tag := range e.tags {
		if tag == t || tag == alt {
			tagScore = scoreTag
			break
		}
	}
	if tagScore == 0 {
		for _, w := range e.tagWords {
			if w == t || w == alt || (prefixOK && strings.HasPrefix(w, t)) {
				tagScore = scoreTagPrefix
				break
			}
		}
	}
	s += tagScore
	if e.category == t || e.category == alt {
		s += scoreCategory
	}
	if e.desc[t] || e.desc[alt] {
		s += scoreDescWord
	} else if len(t) >= minDescPrefixLen {
		for _, w := range e.descList {
			if strings.HasPrefix(w, t) {
				s += scoreDescPrefix
				break
			}
		}
	}
	return s
}

// Search returns every pattern that passes the filters and matches all terms of
// q.Text, best score first, ties broken by id.
func (c *Catalog) Search(q Query) []Match {
	terms := Terms(q.Text)
	phrase := strings.Join(words(q.Text), " ")
	var out []Match
	for i, p := range c.patterns {
		if q.Category != "" && p.Category != q.Category {
			continue
		}
		if q.Difficulty != "" && p.Difficulty != q.Difficulty {
			continue
		}
		e := &c.index[i]
		total, ok := 0, true
		for _, t := range terms {
			s := e.termScore(t)
			if s == 0 {
				ok = false
				break
			}
			total += s
		}
		if !ok {
			continue
		}
		if len(terms) > 1 && phrase != "" && strings.Contains(e.titleLow, phrase) {
			total += scoreTitlePhrase
		}
		out = append(out, Match{Pattern: p, Score: total})
	}
	sortMatches(out)
	return out
}

func sortMatches(m []Match) {
	sort.SliceStable(m, func(i, j int) bool {
		if m[i].Score != m[j].Score {
			return m[i].Score > m[j].Score
		}
		return m[i].Pattern.ID < m[j].Pattern.ID
	})
}

// Suggest returns up to n pattern ids that look like what text was meant to name:
// patterns matching any of its words (rather than all), and ids within a small
// edit distance or containing text. Used when an id is unknown.
func (c *Catalog) Suggest(text string, n int) []string {
	if n <= 0 {
		return nil
	}
	terms := Terms(text)
	low := strings.ToLower(strings.TrimSpace(text))
	var ms []Match
	for i, p := range c.patterns {
		e := &c.index[i]
		total := 0
		for _, t := range terms {
			total += e.termScore(t)
		}
		if low != "" {
			if strings.Contains(p.ID, low) {
				total += 20
			}
			if d := editDistance(low, p.ID, suggestIDDistance+1); d <= suggestIDDistance {
				total += 30 - 5*d
			}
		}
		if total > 0 {
			ms = append(ms, Match{Pattern: p, Score: total})
		}
	}
	sortMatches(ms)
	var ids []string
	for _, m := range ms {
		if len(ids) == n {
			break
		}
		ids = append(ids, m.Pattern.ID)
	}
	return ids
}

// editDistance is the Levenshtein distance between a and b, or limit when it is
// at least limit (so long inputs cost little).
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit)
}

// Counts tallies matches by category and difficulty.
func Counts(ms []Match) (byCategory map[Category]int, byDifficulty map[Difficulty]int) {
	byCategory, byDifficulty = map[Category]int{}, map[Difficulty]int{}
	for _, m := range ms {
		byCategory[m.Pattern.Category]++
		byDifficulty[m.Pattern.Difficulty]++
	}
	return byCategory, byDifficulty
}

// TopTags returns the n most used tags, most used first, ties by name.
func (c *Catalog) TopTags(n int) []string {
	count := map[string]int{}
	for _, p := range c.patterns {
		for _, t := range p.Tags {
			count[t]++
		}
	}
	tags := make([]string, 0, len(count))
	for t := range count {
		tags = append(tags, t)
	}
	sort.Slice(tags, func(i, j int) bool {
		if count[tags[i]] != count[tags[j]] {
			return count[tags[i]] > count[tags[j]]
		}
		return tags[i] < tags[j]
	})
	if len(tags) > n {
		tags = tags[:n]
	}
	return tags
}
