package depcheck

import (
	"os/exec"
	"strings"
	"testing"
)

// nonStandardDeps lists the non-standard-library packages that pkgs depend on.
func nonStandardDeps(t *testing.T, pkgs ...string) []string {
	t.Helper()
	args := append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}"}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var deps []string
	for _, l := range strings.Fields(string(out)) {
		deps = append(deps, l)
	}
	return deps
}

func allowed(dep string, prefixes []string) bool {
	for _, p := range prefixes {
		if dep == p || strings.HasPrefix(dep, p+"/") {
			return true
		}
	}
	return false
}

func TestDependencyRules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go tool is not on PATH")
	}
	const mod = "github.com/wiremcp/wiremcp"
	// The body reader the HTTP transports share with auth.RequireBearer
	// (transport/httpbody, with transport/clientaddr): standard library only, as
	// the transports' rule checks.
	shared := []string{mod + "/transport/httpbody", mod + "/transport/clientaddr"}
	cases := []struct {
		name    string
		pkgs    []string
		allowed []string
	}{
		{"jsonrpc and transports: standard library only", []string{"./jsonrpc/...", "./transport/..."},
			[]string{mod + "/jsonrpc", mod + "/transport"}},
		// The one schema validator of the repository, and what it depends on
		// (golang.org/x/text, for its messages).
		// Authorization stands beside mcp on the standard library alone.
		{"auth: standard library only", []string{"./auth/..."}, append([]string{mod + "/auth"}, shared...)},
		{"mcp: jsonrpc and jsonschema/v6", []string{"./mcp/..."},
			[]string{mod + "/jsonrpc", mod + "/mcp", mod + "/transport/revision", "github.com/santhosh-tekuri/jsonschema/v6", "golang.org/x/text"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, d := range nonStandardDeps(t, c.pkgs...) {
				if !allowed(d, c.allowed) {
					t.Errorf("forbidden dependency %s", d)
				}
			}
		})
	}
	t.Run("go-cmp only in tests", func(t *testing.T) {
		for _, d := range nonStandardDeps(t, "./...") {
			if strings.HasPrefix(d, "github.com/google/go-cmp") {
				t.Errorf("non-test code depends on %s", d)
			}
		}
	})
	t.Run("jsonrpc, transports and mcp never import auth", func(t *testing.T) {
		for _, d := range nonStandardDeps(t, "./jsonrpc/...", "./transport/...", "./mcp/...") {
			if allowed(d, []string{mod + "/auth"}) {
				t.Errorf("a protocol package imports %s", d)
			}
		}
	})
	t.Run("transports never import mcp", func(t *testing.T) {
		for _, d := range nonStandardDeps(t, "./transport/...") {
			if allowed(d, []string{mod + "/mcp"}) {
				t.Errorf("a transport imports %s", d)
			}
		}
	})
}
