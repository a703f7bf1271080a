package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Verifier checks an access token and returns the principal it stands for.
//
// Verify is called concurrently from the goroutines serving requests. It returns an
// error wrapping ErrInvalidToken when the token is not acceptable (bad signature,
// wrong issuer or audience, expired, unknown, malformed); any other error means the
// token could not be checked now (for example the JWKS or the introspection endpoint
// is unreachable).
type Verifier interface {
	Verify(ctx context.Context, token string) (*Principal, error)
}

// ErrInvalidToken is wrapped by every Verifier error that refuses the token itself.
var ErrInvalidToken = errors.New("auth: invalid token")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidToken, fmt.Sprintf(format, args...))
}

// JWTVerifierOptions configures a JWTVerifier. Issuer and Audience are required; the
// other fields document their zero values. The struct is copied by NewJWTVerifier.
type JWTVerifierOptions struct {
	// Issuer is the authorization server's issuer identifier; a token's "iss" must
	// equal it exactly.
	Issuer string
	// Audience is this server's canonical resource URI (RFC 8707); a token's "aud"
	// must contain it.
	Audience string
	// JWKSURL is where the issuer's signing keys are. Empty means the jwks_uri of the
	// issuer's metadata (FetchAuthServerMetadata), looked up on first use.
	JWKSURL string
	// Algorithms lists the accepted JWS algorithms. Nil means Algorithms (RS256, PS256,
	// ES256, EdDSA). "none" and HMAC algorithms are refused whatever this says.
	Algorithms []string
	// Types lists the accepted "typ" header values, compared case-insensitively. Nil
	// means "at+jwt" and "application/at+jwt" (RFC 9068 section 4), which keeps ID
	// tokens and other JWTs of the same issuer from being used as access tokens.
	Types []string
	// Leeway is the clock skew allowed on "exp" and "nbf". Zero means 30 seconds.
	Leeway time.Duration
	// CacheTTL is how long fetched keys are used before they are fetched again. Zero
	// means one hour.
	CacheTTL time.Duration
	// MinRefreshInterval is the least time between two fetches caused by a token
	// whose "kid" is unknown, so that made-up kids cannot make the verifier hammer
	// the issuer. Zero means 30 seconds.
	MinRefreshInterval time.Duration
	// HTTPClient fetches metadata and keys. Nil means a client with a 15 second
	// timeout.
	HTTPClient *http.Client
	// Now returns the current time. Nil means time.Now.
	Now func() time.Time
}

// JWTVerifier verifies JWT access tokens (RFC 9068) signed with the issuer's keys.
// It is safe for concurrent use. Keys are cached; a token naming an unknown "kid"
// causes at most one fetch per MinRefreshInterval. Verifications wait while a fetch
// is under way (at most 15 seconds). When a fetch fails, the keys fetched before
// stay in use (an issuer briefly unreachable does not lock every client out), and
// without such keys Verify returns the fetch's error (RequireBearer answers 503)
// without fetching again for 5 seconds.
type JWTVerifier struct {
	opts JWTVerifierOptions

	mu       sync.Mutex // held while fetching; guards the fields below
	jwksURL  string
	keys     []publicKey
	fetched  time.Time // when keys were fetched; zero before the first fetch
	lastMiss time.Time // when an unknown kid last caused a fetch
	failErr  error     // the error of the last fetch, when it failed
	failedAt time.Time // when that fetch failed
}

// fetchRetryAfter is how long a failed JWKS fetch is not repeated: meanwhile tokens
// that need it are answered with its error at once, instead of each waiting for
// its own fetch behind the others.
const fetchRetryAfter = 5 * time.Second

// NewJWTVerifier returns a verifier for tokens of opts.Issuer meant for
// opts.Audience. It fetches nothing until the first token arrives.
func NewJWTVerifier(opts *JWTVerifierOptions) (*JWTVerifier, error) {
	o := *opts
	if o.Issuer == "" || o.Audience == "" {
		return nil, errors.New("auth: JWTVerifierOptions needs Issuer and Audience")
	}
	if o.Algorithms == nil {
		o.Algorithms = Algorithms
	}
	o.Algorithms = slices.DeleteFunc(slices.Clone(o.Algorithms), func(a string) bool {
		return a == "" || strings.EqualFold(a, "none") || strings.HasPrefix(strings.ToUpper(a), "HS")
	})
	if o.Types == nil {
		o.Types = []string{"at+jwt", "application/at+jwt"}
	}
	if o.Leeway == 0 {
		o.Leeway = 30 * time.Second
	}
	if o.CacheTTL <= 0 {
		o.CacheTTL = time.Hour
	}
	if o.MinRefreshInterval <= 0 {
		o.MinRefreshInterval = 30 * time.Second
	}
	if o.HTTPClient == nil {
		o.HTTPClient = defaultHTTP
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &JWTVerifier{opts: o, jwksURL: o.JWKSURL}, nil
}

// jwtClaims are the registered claims this package checks.
type jwtClaims struct {
	Iss      string          `json:"iss"`
	Sub      string          `json:"sub"`
	Aud      json.RawMessage `json:"aud"`
	Exp      *json.Number    `json:"exp"`
	Nbf      *json.Number    `json:"nbf"`
	ClientID string          `json:"client_id"`
	Scope    string          `json:"scope"`
	Scp      json.RawMessage `json:"scp"`
}

// Verify implements Verifier.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*Principal, error) {
	j, err := parseJWT(token)
	if err != nil {
		return nil, invalid("%v", err)
	}
	alg := j.header.Alg
	if !slices.Contains(v.opts.Algorithms, alg) {
		return nil, invalid("algorithm %q is not accepted", alg)
	}
	if !slices.ContainsFunc(v.opts.Types, func(t string) bool { return strings.EqualFold(t, j.header.Typ) }) {
		return nil, invalid("token type %q is not an access token type", j.header.Typ)
	}
	keys, err := v.keysFor(ctx, j.header.Kid, alg)
	if err != nil {
		return nil, err
	}
	verified := false
	for _, k := range keys {
		if verifySignature(alg, k.key, j.signed, j.sig) == nil {
			verified = true
			break
		}
	}
	if !verified {
		return nil, invalid("%v", errBadSignature)
	}
	return v.checkClaims(j.payload)
}

func (v *JWTVerifier) checkClaims(payload []byte) (*Principal, error) {
	var c jwtClaims
	if err := strictUnmarshal(payload, &c); err != nil {
		return nil, invalid("claims: %v", err)
	}
	if c.Iss != v.opts.Issuer {
		return nil, invalid("issuer %q is not %q", c.Iss, v.opts.Issuer)
	}
	aud, err := audiences(c.Aud)
	if err != nil {
		return nil, invalid("%v", err)
	}
	if !slices.Contains(aud, v.opts.Audience) {
		return nil, invalid("token is not meant for %s", v.opts.Audience)
	}
	now := v.opts.Now()
	if c.Exp == nil {
		return nil, invalid("no exp claim")
	}
	exp, err := numericDate(*c.Exp)
	if err != nil {
		return nil, invalid("exp: %v", err)
	}
	if !now.Before(exp.Add(v.opts.Leeway)) {
		return nil, invalid("token expired")
	}
	if c.Nbf != nil {
		nbf, err := numericDate(*c.Nbf)
		if err != nil {
			return nil, invalid("nbf: %v", err)
		}
		if now.Add(v.opts.Leeway).Before(nbf) {
			return nil, invalid("token not valid yet")
		}
	}
	var all map[string]any
	_ = json.Unmarshal(payload, &all)
	scopes := splitScopes(c.Scope)
	if len(scopes) == 0 && len(c.Scp) > 0 {
		// "scp" is an array of scopes for some issuers and a space-delimited string
		// (like "scope") for others.
		var one string
		if json.Unmarshal(c.Scp, &one) == nil {
			scopes = splitScopes(one)
		} else if err := json.Unmarshal(c.Scp, &scopes); err != nil {
			return nil, invalid("scp is neither a string nor an array of strings")
		}
	}
	return &Principal{Issuer: c.Iss, Subject: c.Sub, ClientID: c.ClientID, Scopes: scopes, Audience: aud, Expiry: exp, Claims: all}, nil
}

// audiences decodes "aud": a string or an array of strings.
func audiences(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, errors.New("no aud claim")
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("aud is neither a string nor an array of strings")
	}
	return many, nil
}

// numericDate converts a JWT NumericDate (seconds, possibly fractional).
func numericDate(n json.Number) (time.Time, error) {
	f, err := n.Float64()
	if err != nil || f < 0 || f > 1e11 {
		return time.Time{}, errors.New("not a valid NumericDate")
	}
	sec := int64(f)
	return time.Unix(sec, int64((f-float64(sec))*1e9)), nil
}

// keysFor returns the cached keys that may have signed a token with kid and alg,
// fetching the JWKS when the cache is empty or stale, or (rate-limited) when no key
// has that kid.
func (v *JWTVerifier) keysFor(ctx context.Context, kid, alg string) ([]publicKey, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	now := v.opts.Now()
	if v.fetched.IsZero() || now.Sub(v.fetched) > v.opts.CacheTTL {
		if err := v.fetchLocked(ctx, now); err != nil && v.fetched.IsZero() {
			return nil, err
		}
		// A failed refresh of stale keys: they stay in use until a fetch works.
	}
	match := matchKeys(v.keys, kid, alg)
	if len(match) == 0 && kid != "" && now.Sub(v.lastMiss) >= v.opts.MinRefreshInterval && now.Sub(v.fetched) >= time.Second {
		// An unknown kid: the issuer may have rotated its keys.
		v.lastMiss = now
		if err := v.fetchLocked(ctx, now); err != nil {
			return nil, err
		}
		match = matchKeys(v.keys, kid, alg)
	}
	if len(match) == 0 {
		return nil, invalid("no key of the issuer matches kid %q and alg %q", kid, alg)
	}
	return match, nil
}

func matchKeys(keys []publicKey, kid, alg string) []publicKey {
	var out []publicKey
	for _, k := range keys {
		if (kid == "" || k.kid == kid) && keyFits(k, alg) {
			out = append(out, k)
		}
	}
	return out
}

// fetchLocked fetches the JWKS (and first, when needed, the issuer metadata), unless
// a fetch failed less than fetchRetryAfter before now: then it returns that error.
func (v *JWTVerifier) fetchLocked(ctx context.Context, now time.Time) error {
	if v.failErr != nil && now.Sub(v.failedAt) < fetchRetryAfter {
		return v.failErr
	}
	err := v.fetchNowLocked(ctx)
	v.failErr, v.failedAt = err, now
	return err
}

func (v *JWTVerifier) fetchNowLocked(ctx context.Context) error {
	// Not the request's context: a fetch serves every request waiting for it, and
	// one client going away must not make it fail for the others.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), defaultHTTPTimeout)
	defer cancel()
	if v.jwksURL == "" {
		m, err := FetchAuthServerMetadata(ctx, v.opts.HTTPClient, v.opts.Issuer)
		if err != nil {
			return fmt.Errorf("auth: cannot find the keys of %s: %w", v.opts.Issuer, err)
		}
		if m.JWKSURI == "" {
			return fmt.Errorf("auth: the metadata of %s has no jwks_uri", v.opts.Issuer)
		}
		v.jwksURL = m.JWKSURI
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.jwksURL, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json, application/jwk-set+json")
	resp, err := v.opts.HTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("auth: fetching JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("auth: fetching JWKS %s: HTTP %d", v.jwksURL, resp.StatusCode)
	}
	b, err := readLimited(resp, maxJWKSBytes)
	if err != nil {
		return fmt.Errorf("auth: fetching JWKS: %w", err)
	}
	keys, err := parseJWKS(b)
	if err != nil {
		return fmt.Errorf("auth: %s: %w", v.jwksURL, err)
	}
	v.keys = keys
	v.fetched = v.opts.Now()
	return nil
}
