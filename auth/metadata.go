package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ProtectedResourceMetadata is the OAuth 2.0 Protected Resource Metadata of an MCP
// server (RFC 9728), the members MCP uses. Unknown members are dropped.
type ProtectedResourceMetadata struct {
	// Resource is the resource identifier: the canonical URI of the MCP server.
	Resource string `json:"resource"`
	// AuthorizationServers lists the issuers whose tokens the server accepts.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// ScopesSupported lists the scopes clients may request for this resource.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported is how tokens may be sent; MCP allows only "header".
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a human-readable name.
	ResourceName string `json:"resource_name,omitempty"`
	// ResourceDocumentation is a URL of documentation for people.
	ResourceDocumentation string `json:"resource_documentation,omitempty"`
}

// AuthServerMetadata is the metadata of an authorization server (RFC 8414, or an
// OpenID Provider configuration), the members this package uses.
type AuthServerMetadata struct {
	Issuer                                     string   `json:"issuer"`
	AuthorizationEndpoint                      string   `json:"authorization_endpoint,omitempty"`
	TokenEndpoint                              string   `json:"token_endpoint,omitempty"`
	RegistrationEndpoint                       string   `json:"registration_endpoint,omitempty"`
	IntrospectionEndpoint                      string   `json:"introspection_endpoint,omitempty"`
	JWKSURI                                    string   `json:"jwks_uri,omitempty"`
	ScopesSupported                            []string `json:"scopes_supported,omitempty"`
	ResponseTypesSupported                     []string `json:"response_types_supported,omitempty"`
	GrantTypesSupported                        []string `json:"grant_types_supported,omitempty"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported,omitempty"`
	ClientIDMetadataDocumentSupported          bool     `json:"client_id_metadata_document_supported,omitempty"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported,omitempty"`
}

// maxMetadataBytes bounds a metadata document, token response or registration
// response read from the network.
const maxMetadataBytes = 1 << 20

// defaultHTTPTimeout bounds each request this package makes itself when the caller's
// context has no earlier deadline.
const defaultHTTPTimeout = 15 * time.Second

var defaultHTTP = &http.Client{Timeout: defaultHTTPTimeout}

// getJSON fetches url and decodes a JSON object into v. It returns the HTTP status
// (0 on a transport error).
func getJSON(ctx context.Context, c *http.Client, u string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return resp.StatusCode, fmt.Errorf("GET %s: HTTP %d", u, resp.StatusCode)
	}
	return resp.StatusCode, decodeJSONBody(resp, v)
}

// decodeJSONBody decodes a bounded JSON object response body into v.
func decodeJSONBody(resp *http.Response, v any) error {
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "application/json" && !strings.HasSuffix(mt, "+json") {
			return fmt.Errorf("%s: content type %q is not JSON", resp.Request.URL, mt)
		}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return err
	}
	if len(b) > maxMetadataBytes {
		return fmt.Errorf("%s: response larger than %d bytes", resp.Request.URL, maxMetadataBytes)
	}
	if !jsonDepthOK(b, maxJSONDepth) {
		return fmt.Errorf("%s: JSON nested too deeply", resp.Request.URL)
	}
	if err := strictUnmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", resp.Request.URL, err)
	}
	return nil
}

// AuthServerMetadataURLs returns the URLs at which the metadata of issuer is looked
// for, in the order the MCP specification (2025-11-25) gives: for an issuer with a
// path, RFC 8414 with the path appended, OpenID Connect with the path appended, then
// OpenID Connect with the well-known suffix after the path; for an issuer without a
// path, RFC 8414 then OpenID Connect.
func AuthServerMetadataURLs(issuer string) ([]string, error) {
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("auth: issuer %q is not an http(s) URL", issuer)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("auth: issuer %q has a query or fragment", issuer)
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return []string{
			origin + "/.well-known/oauth-authorization-server",
			origin + "/.well-known/openid-configuration",
		}, nil
	}
	return []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
		origin + path + "/.well-known/openid-configuration",
	}, nil
}

// ErrIssuerMismatch is returned when a metadata document names another issuer than
// the one it was fetched for; such metadata is never used.
var ErrIssuerMismatch = errors.New("auth: authorization server metadata names another issuer")

// FetchAuthServerMetadata discovers the metadata of issuer at the URLs of
// AuthServerMetadataURLs, using the first that answers 200. The document's issuer
// must equal issuer exactly (no normalisation); otherwise it is not used and the
// error wraps ErrIssuerMismatch. c nil means a client with a 15 second timeout.
func FetchAuthServerMetadata(ctx context.Context, c *http.Client, issuer string) (*AuthServerMetadata, error) {
	if c == nil {
		c = defaultHTTP
	}
	urls, err := AuthServerMetadataURLs(issuer)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, u := range urls {
		var m AuthServerMetadata
		status, err := getJSON(ctx, c, u, &m)
		if err != nil {
			errs = append(errs, err)
			if status == http.StatusOK {
				// A document that does not decode is a broken server, not absence.
				return nil, err
			}
			if ctx.Err() != nil {
				break
			}
			continue // not here: try the next location
		}
		if m.Issuer != issuer {
			return nil, fmt.Errorf("%w: fetched %s for %q, document says %q", ErrIssuerMismatch, u, issuer, m.Issuer)
		}
		return &m, nil
	}
	return nil, fmt.Errorf("auth: no metadata for issuer %s: %w", issuer, errors.Join(errs...))
}

// ProtectedResourceMetadataURLs returns the path-suffixed and the root well-known
// URLs of the protected resource metadata of resource (RFC 9728 section 3.1). For a
// resource without a path both are the same URL.
func ProtectedResourceMetadataURLs(resource string) (pathURL, rootURL string, err error) {
	u, err := url.Parse(resource)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", "", fmt.Errorf("auth: resource %q is not an http(s) URL", resource)
	}
	origin := u.Scheme + "://" + u.Host
	root := origin + "/.well-known/oauth-protected-resource"
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	if path == "" {
		return root, root, nil
	}
	return root + path, root, nil
}

// ProtectedResourceHandler serves meta as JSON (RFC 9728 section 3.2) to GET and
// HEAD, with a CORS header so browser clients can read it. Mount it at both URLs of
// ProtectedResourceMetadataURLs (see Mount).
func ProtectedResourceHandler(meta *ProtectedResourceMetadata) http.Handler {
	m := *meta
	if m.BearerMethodsSupported == nil {
		m.BearerMethodsSupported = []string{"header"}
	}
	body, err := json.Marshal(&m)
	if err != nil {
		panic("auth: ProtectedResourceMetadata does not encode: " + err.Error())
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Cache-Control", "max-age=3600")
		if r.Method == http.MethodGet {
			w.Write(body)
		}
	})
}

// MountProtectedResourceMetadata registers ProtectedResourceHandler(meta) on mux at
// the path-suffixed and the root well-known paths of meta.Resource. It returns the
// path-suffixed URL, the one to name in WWW-Authenticate (ResourceServerOptions
// .ResourceMetadataURL). It panics when meta.Resource is not an http(s) URL (a
// programmer error).
func MountProtectedResourceMetadata(mux *http.ServeMux, meta *ProtectedResourceMetadata) string {
	pathURL, rootURL, err := ProtectedResourceMetadataURLs(meta.Resource)
	if err != nil {
		panic(err.Error())
	}
	h := ProtectedResourceHandler(meta)
	pu, _ := url.Parse(pathURL)
	mux.Handle(pu.EscapedPath(), h)
	if pathURL != rootURL {
		ru, _ := url.Parse(rootURL)
		mux.Handle(ru.EscapedPath(), h)
	}
	return pathURL
}

// readLimited reads a response body of at most max bytes.
func readLimited(resp *http.Response, max int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(resp.Body, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, fmt.Errorf("response larger than %d bytes", max)
	}
	return b, nil
}
