package conformance

import (
	"os"
	"strings"
	"testing"
)

func TestCheckURITemplate(t *testing.T) {
	valid := []string{
		"report://{id}",
		"file:///{path}",
		"test://template/{id}/data",
		"http://example.com/{+path}{?q,lang}{&x*}{#frag}",
		"{/list*,path:4}",
		"users/{user.id}/{a%20b}",
		"https://example.com/caf\u00e9/{x}",
		"no-expressions-at-all",
		"",
	}
	for _, s := range valid {
		if err := checkURITemplate(s); err != nil {
			t.Errorf("checkURITemplate(%q) = %v, want nil", s, err)
		}
	}
	invalid := map[string]string{
		"report://{id":        "unclosed",
		"report://{}":         "empty expression",
		"report://{a{b}}":     "not allowed in variable name",
		"report://{=a}":       "reserved",
		"report://{a b}":      "not allowed in variable name",
		"report://{.a.}":      "bad variable name",
		"report://{a..b}":     "bad variable name",
		"report://{x:0}":      "prefix modifier",
		"report://{x:10000}":  "prefix modifier",
		"report://{x,}":       "empty variable name",
		"report://a b/{x}":    "not allowed in a literal",
		"report://a}b":        "not allowed in a literal",
		"report://%zz/{x}":    "percent-encoding",
		"report://<x>/{y}":    "not allowed in a literal",
		"report://{%2}":       "percent-encoding",
		"report://x/{a}/{b*}": "",
	}
	for s, want := range invalid {
		err := checkURITemplate(s)
		if want == "" {
			if err != nil {
				t.Errorf("checkURITemplate(%q) = %v, want nil", s, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("checkURITemplate(%q) = %v, want an error containing %q", s, err, want)
		}
	}
}

// TestSchemaFormatPolicy checks, against the official schemas, that a
// valid template passes under every revision and that a relative resource
// URI fails under the draft-07 and the 2020-12 schemas alike.
func TestSchemaFormatPolicy(t *testing.T) {
	dir := os.Getenv("MCP_SCHEMA_DIR")
	if dir == "" {
		t.Skip("MCP_SCHEMA_DIR is not set: the official schemas live outside the repository (../shared/spec/schema)")
	}
	for _, rev := range Revisions {
		t.Run(rev, func(t *testing.T) {
			s, err := loadSchema(dir, rev)
			if err != nil {
				t.Fatal(err)
			}
			extra := ""
			if isModern(rev) {
				extra = `,"resultType":"complete","ttlMs":0,"cacheScope":"public"`
			}
			good := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resourceTemplates":[{"uriTemplate":"report://{id}","name":"report"}]` + extra + `}}`)
			if err := s.validate("resources/templates/list", parseMsg(good, "test")); err != nil {
				t.Errorf("valid template refused: %v", err)
			}
			bad := []byte(`{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"not a uri","text":"x"}]` + extra + `}}`)
			err = s.validate("resources/read", parseMsg(bad, "test"))
			if err == nil {
				t.Fatalf("a resource uri %q passed", "not a uri")
			}
			if !strings.Contains(err.Error(), `[at /contents/0`) {
				t.Errorf("evidence does not point at the offending member: %v", err)
			}
		})
	}
}
