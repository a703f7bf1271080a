package main

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/wiremcp/wiremcp/auth"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// The OAuth client scenarios (official-suite.md §5.3, §5.5, §5.6, §5.7). The mock
// authorization server redirects at once, so the authorization step is driven
// headlessly: GET the authorization URL without following redirects and take the
// redirect from Location. The flow is the reference client's: list the tools, call
// the first one.

// authScenarios are the auth scenarios this program runs, all with one flow.
var authScenarios = []string{
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd",
	"auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
	"auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration",
	"auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
	"auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
	"auth/authorization-server-migration",
	"auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing", "auth/iss-wrong-issuer",
	"auth/iss-unexpected", "auth/iss-normalized", "auth/metadata-issuer-mismatch",
	"auth/client-credentials-basic", "auth/client-credentials-jwt",
}

func init() {
	for _, s := range authScenarios {
		scenarios[s] = authFlow
	}
}

// redirectURI is the reference client's; nothing listens there (the redirect is
// read from Location).
const redirectURI = "http://localhost:3000/callback"

// cimdURL is the Client ID Metadata Document URL the suite expects.
const cimdURL = "https://conformance-test.local/client-metadata.json"

// headlessAuthorize fetches the authorization URL and returns the redirect it
// answers with, without following it.
func headlessAuthorize(ctx context.Context, authURL string) (*url.URL, error) {
	c := &http.Client{
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode/100 != 3 || loc == "" {
		return nil, fmt.Errorf("the authorization endpoint answered %d without a redirect", resp.StatusCode)
	}
	return resp.Request.URL.Parse(loc)
}

// scenarioContext is MCP_CONFORMANCE_CONTEXT of the auth scenarios that have one.
type scenarioContext struct {
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
}

// authOptions builds the auth.ClientOptions of a scenario.
func authOptions(name string) (*auth.ClientOptions, error) {
	opts := &auth.ClientOptions{
		RedirectURI:         redirectURI,
		Authorize:           headlessAuthorize,
		ClientIDMetadataURL: cimdURL,
		ClientName:          "wiremcp-everything-client",
	}
	var sc scenarioContext
	if conformanceContext != "" {
		if err := json.Unmarshal([]byte(conformanceContext), &sc); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	if sc.ClientID != "" {
		cc := auth.ClientCredentials{ClientID: sc.ClientID, ClientSecret: sc.ClientSecret}
		switch name {
		case "auth/client-credentials-jwt":
			key, err := parsePrivateKey(sc.PrivateKeyPEM)
			if err != nil {
				return nil, err
			}
			opts.PrivateKey, opts.PrivateKeyAlg = key, sc.SigningAlgorithm
			if opts.PrivateKeyAlg == "" {
				opts.PrivateKeyAlg = "ES256"
			}
			cc.AuthMethod = "private_key_jwt"
			opts.ClientCredentialsGrant = true
		case "auth/client-credentials-basic":
			cc.AuthMethod = "client_secret_basic"
			opts.ClientCredentialsGrant = true
		}
		// The suite gives the credentials without the issuer they belong to; this
		// program talks to one authorization server per run.
		opts.Credentials = func(string) (auth.ClientCredentials, bool) { return cc, true }
	}
	return opts, nil
}

func parsePrivateKey(pemText string) (crypto.Signer, error) {
	b, _ := pem.Decode([]byte(pemText))
	if b == nil {
		return nil, errors.New("private_key_pem: no PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("private_key_pem: %w", err)
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, errors.New("private_key_pem: not a signing key")
	}
	return s, nil
}

// authFlow connects through an auth.Transport, lists the tools and calls the first.
func authFlow(ctx context.Context, serverURL string) error {
	name := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	opts, err := authOptions(name)
	if err != nil {
		return err
	}
	tr, err := auth.NewTransport(opts)
	if err != nil {
		return err
	}
	httpClient := &http.Client{Transport: tr}
	o := &mcp.ClientOptions{ProtocolVersion: protocolVersion}
	t, err := streamable.NewClient(serverURL, &streamable.ClientOptions{HTTPClient: httpClient})
	if err != nil {
		return err
	}
	cs, err := mcp.NewClient(clientInfo, o).Connect(ctx, t)
	if err != nil {
		t.Close()
		return fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if len(res.Tools) == 0 {
		return errors.New("the server lists no tools")
	}
	call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: res.Tools[0].Name, Arguments: json.RawMessage(`{}`)})
	if err != nil {
		return fmt.Errorf("tools/call: %w", err)
	}
	fmt.Fprintf(os.Stderr, "%s: %s\n", res.Tools[0].Name, text(call))
	return nil
}
