package auth

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiscoveryURLs: the well-known URLs, in the order of the specification
// (2025-11-25): authorization server metadata RFC 8414 first, OpenID Connect after,
// the path inserted before appended; protected resource metadata path-suffixed,
// then root.
func TestDiscoveryURLs(t *testing.T) {
	for issuer, want := range map[string][]string{
		"https://as.example.com": {
			"https://as.example.com/.well-known/oauth-authorization-server",
			"https://as.example.com/.well-known/openid-configuration",
		},
		"https://as.example.com/": {
			"https://as.example.com/.well-known/oauth-authorization-server",
			"https://as.example.com/.well-known/openid-configuration",
		},
		"https://as.example.com/tenant1": {
			"https://as.example.com/.well-known/oauth-authorization-server/tenant1",
			"https://as.example.com/.well-known/openid-configuration/tenant1",
			"https://as.example.com/tenant1/.well-known/openid-configuration",
		},
		"http://127.0.0.1:8080/a/b": {
			"http://127.0.0.1:8080/.well-known/oauth-authorization-server/a/b",
			"http://127.0.0.1:8080/.well-known/openid-configuration/a/b",
			"http://127.0.0.1:8080/a/b/.well-known/openid-configuration",
		},
	} {
		got, err := AuthServerMetadataURLs(issuer)
		if err != nil {
			t.Errorf("%s: %v", issuer, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", issuer, diff)
		}
	}
	for _, bad := range []string{"ftp://as", "https://as/x?q=1", "https://as#f", "/relative", "https://"} {
		if _, err := AuthServerMetadataURLs(bad); err == nil {
			t.Errorf("issuer %q accepted", bad)
		}
	}
	for resource, want := range map[string][2]string{
		"https://rs.example.com/mcp":    {"https://rs.example.com/.well-known/oauth-protected-resource/mcp", "https://rs.example.com/.well-known/oauth-protected-resource"},
		"https://rs.example.com/a/mcp/": {"https://rs.example.com/.well-known/oauth-protected-resource/a/mcp", "https://rs.example.com/.well-known/oauth-protected-resource"},
		"https://rs.example.com":        {"https://rs.example.com/.well-known/oauth-protected-resource", "https://rs.example.com/.well-known/oauth-protected-resource"},
		"http://localhost:3000/mcp?x=1": {"http://localhost:3000/.well-known/oauth-protected-resource/mcp", "http://localhost:3000/.well-known/oauth-protected-resource"},
	} {
		p, r, err := ProtectedResourceMetadataURLs(resource)
		if err != nil || p != want[0] || r != want[1] {
			t.Errorf("%s: %q %q %v, want %q", resource, p, r, err, want)
		}
	}
}
