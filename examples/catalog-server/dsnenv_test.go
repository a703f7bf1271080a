package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/wiremcp/wiremcp/mcp"
)

// TestDSNEnvAllowed: a manifest's dsnEnv may name only the variables the
// operator allows (CATALOG_* unless -dsn-env says otherwise), and no answer
// quotes a variable's value. Before, a manifest naming AUDIT_SECRET had every
// client read the secret in the error pgx gave for a string it could not parse.
func TestDSNEnvAllowed(t *testing.T) {
	const secret = "sk-live-TOPSECRET-123"
	t.Setenv("AUDIT_SECRET", secret)
	t.Setenv("CATALOG_AUDIT_DSN", secret)
	t.Setenv("CATALOG_AUDIT_HALF", "host=x password='SECRET3 unterminated")
	t.Setenv("CATALOG_AUDIT_EMPTY", "")
	os.Unsetenv("CATALOG_AUDIT_UNSET")
	dir := t.TempDir()
	model := "-- @source s\nSELECT 1 AS v;\n"
	writeFiles(t, dir, map[string]string{
		"p/env/manifest.json":   `{"engine": "postgres", "dsnEnv": "AUDIT_SECRET"}`,
		"p/env/m.sql":           model,
		"p/bad/manifest.json":   `{"engine": "postgres", "dsnEnv": "CATALOG_AUDIT_DSN"}`,
		"p/bad/m.sql":           model,
		"p/half/manifest.json":  `{"engine": "postgres", "dsnEnv": "CATALOG_AUDIT_HALF"}`,
		"p/half/m.sql":          model,
		"p/empty/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_AUDIT_EMPTY"}`,
		"p/empty/m.sql":         model,
		"p/unset/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_AUDIT_UNSET"}`,
		"p/unset/m.sql":         model,
	})
	for _, tc := range []struct {
		name  string
		allow []string
		path  string
		want  string
	}{
		{"not allowed", nil, "p/env/m", "dsnEnv names the environment variable AUDIT_SECRET, which this server does not let a manifest read (it lets manifests read CATALOG_*)"},
		{"none allowed", []string{}, "p/bad/m", "(it lets manifests read none)"},
		{"not readable", nil, "p/bad/m", "the environment variable CATALOG_AUDIT_DSN (dsnEnv in the manifest) does not hold a PostgreSQL connection string PostgreSQL's driver can read (its value is not shown"},
		{"half readable", nil, "p/half/m", "the environment variable CATALOG_AUDIT_HALF (dsnEnv in the manifest) does not hold"},
		// An empty variable, and one the environment does not have.
		{"empty", nil, "p/empty/m", "the environment variable CATALOG_AUDIT_EMPTY (dsnEnv in the manifest) is empty: set it"},
		{"unset", nil, "p/unset/m", "the environment variable CATALOG_AUDIT_UNSET (dsnEnv in the manifest) is not set in the server's environment: set it"},
		// Allowed by name: the manifest's variable is read (and cannot be parsed).
		{"allowed by name", []string{"AUDIT_SECRET"}, "p/env/m", "the environment variable AUDIT_SECRET (dsnEnv in the manifest) does not hold"},
		{"allowed by prefix", []string{"AUDIT_*"}, "p/env/m", "the environment variable AUDIT_SECRET (dsnEnv in the manifest) does not hold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc := newTestService(t, dir, Config{DSNEnv: tc.allow})
			cs := connectHTTP(t, startHTTP(t, svc).URL+"/mcp", "")
			var all strings.Builder
			d := call(t, cs, "describe", map[string]any{"path": tc.path}, nil)
			all.WriteString(text(d))
			q := call(t, cs, "execute_query", map[string]any{"path": tc.path, "sql": "SELECT 1"}, nil)
			if !q.IsError {
				t.Fatalf("execute_query answered: %s", text(q))
			}
			all.WriteString(text(q))
			res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "catalog://model/" + tc.path})
			if err == nil {
				for _, c := range res.Contents {
					all.WriteString(c.Text)
				}
			} else {
				all.WriteString(err.Error())
			}
			got := all.String()
			if !strings.Contains(got, tc.want) {
				t.Errorf("answers lack %q:\n%s", tc.want, got)
			}
			for _, leak := range []string{secret, "SECRET3", "unterminated"} {
				if strings.Contains(got, leak) {
					t.Errorf("an answer quotes the variable's value (%q):\n%s", leak, got)
				}
			}
		})
	}
}

// TestDSNEnvFlag: -dsn-env takes names and prefixes, "" for none, and refuses
// what cannot be a variable's name.
func TestDSNEnvFlag(t *testing.T) {
	for _, tc := range []struct {
		arg     string
		want    []string
		refused string
	}{
		{"HR_DATABASE_URL, PG_*", []string{"HR_DATABASE_URL", "PG_*"}, ""},
		{"", []string{}, ""},
		{"A,,B", nil, `"": want an environment variable's name`},
		{"A*B", nil, `"A*B": want`},
		{"A=B", nil, `"A=B": want`},
	} {
		got, err := parseDSNEnv(tc.arg)
		if tc.refused != "" {
			if err == nil || !strings.Contains(err.Error(), tc.refused) {
				t.Errorf("-dsn-env %q: error %v, want %q", tc.arg, err, tc.refused)
			}
			continue
		}
		if err != nil {
			t.Fatalf("-dsn-env %q: %v", tc.arg, err)
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") || got == nil {
			t.Errorf("-dsn-env %q: %q, want %q", tc.arg, got, tc.want)
		}
	}
}
