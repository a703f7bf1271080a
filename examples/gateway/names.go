package main

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// allNameRE is what the names on /mcp/all match: what clients accept most widely.
var allNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

const maxAllName = 64

// qualified is a server's item (tool or prompt) on /mcp/all.
type qualified struct{ Server, Name string }

// allNames maps every (server, name) to its name on /mcp/all: "server__name" with
// every character outside [A-Za-z0-9_-] replaced by "_"; a name longer than 64
// characters is cut and ends with "_" and 8 hex digits of the SHA-256 of the
// original pair. When two pairs would get the same name, a name that needed no
// change wins over a sanitised one, and otherwise the first in (server, name) order
// keeps it; the other gets the hashed form (and, if that is taken too, a counter). The result depends only on the set of pairs.
func allNames(items []qualified) map[qualified]string {
	sorted := append([]qualified(nil), items...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Server != sorted[j].Server {
			return sorted[i].Server < sorted[j].Server
		}
		return sorted[i].Name < sorted[j].Name
	})
	// Names that need no change first, then sanitised ones, then hashed ones, so
	// that a changed name never takes an unchanged one's place.
	out := make(map[qualified]string, len(items))
	taken := map[string]bool{}
	var sanitised, later []qualified
	for _, q := range sorted {
		if n := plainName(q); n == q.Server+"__"+q.Name && len(n) <= maxAllName && !taken[n] {
			out[q] = n
			taken[n] = true
		} else {
			sanitised = append(sanitised, q)
		}
	}
	for _, q := range sanitised {
		if n := plainName(q); len(n) <= maxAllName && !taken[n] {
			out[q] = n
			taken[n] = true
		} else {
			later = append(later, q)
		}
	}
	for _, q := range later {
		n := hashedName(q)
		for i := 2; taken[n]; i++ {
			suffix := "_" + strconv.Itoa(i)
			n = hashedName(q)[:maxAllName-len(suffix)] + suffix
		}
		out[q] = n
		taken[n] = true
	}
	return out
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func plainName(q qualified) string { return sanitize(q.Server + "__" + q.Name) }

// hashedName is always exactly 64 characters or shorter: a prefix of the plain name,
// "_" and 8 hex digits of the SHA-256 of the original pair.
func hashedName(q qualified) string {
	sum := sha256.Sum256([]byte(q.Server + "\x00" + q.Name))
	h := hex.EncodeToString(sum[:4])
	base := plainName(q)
	if len(base) > maxAllName-9 {
		base = base[:maxAllName-9]
	}
	return base + "_" + h
}
