package auth

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Limits on what the JWT and JWKS decoders accept; anything beyond is refused
// before it is decoded.
const (
	// MaxTokenBytes bounds a bearer token.
	MaxTokenBytes = 16 << 10
	// maxJSONDepth bounds the nesting of a JWT header, claims set or JWKS.
	maxJSONDepth = 16
	// maxJWKSBytes bounds a JWKS document.
	maxJWKSBytes = 1 << 20
	// maxJWKSKeys bounds the keys of a JWKS document.
	maxJWKSKeys = 64
	// minRSABits is the smallest RSA modulus accepted.
	minRSABits = 2048
)

// Algorithms lists the JWS algorithms a JWTVerifier accepts by default. "none" and
// the HMAC algorithms (HS256...) are never accepted: a public key is not a secret.
var Algorithms = []string{"RS256", "PS256", "ES256", "EdDSA"}

var errMalformedJWT = errors.New("malformed token")

// jwtHeader is the JOSE header of a JWS.
type jwtHeader struct {
	Alg  string   `json:"alg"`
	Kid  string   `json:"kid"`
	Typ  string   `json:"typ"`
	Crit []string `json:"crit"`
}

// parsedJWT is a JWS in compact serialisation, decoded but not verified.
type parsedJWT struct {
	header  jwtHeader
	payload []byte // the claims set, JSON
	signed  []byte // header.payload, the signing input
	sig     []byte
}

// b64 decodes unpadded base64url (RFC 7515 section 2); padding, the standard
// alphabet and embedded whitespace are refused.
func b64(s string) ([]byte, error) {
	return base64.RawURLEncoding.Strict().DecodeString(s)
}

// parseJWT splits and decodes a compact JWS. It checks sizes, base64url and JSON
// nesting, and nothing about the signature.
func parseJWT(token string) (*parsedJWT, error) {
	if len(token) > MaxTokenBytes {
		return nil, fmt.Errorf("%w: longer than %d bytes", errMalformedJWT, MaxTokenBytes)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%w: not three dot-separated parts", errMalformedJWT)
	}
	hb, err := b64(parts[0])
	if err != nil {
		return nil, fmt.Errorf("%w: header is not base64url", errMalformedJWT)
	}
	pb, err := b64(parts[1])
	if err != nil {
		return nil, fmt.Errorf("%w: payload is not base64url", errMalformedJWT)
	}
	sig, err := b64(parts[2])
	if err != nil {
		return nil, fmt.Errorf("%w: signature is not base64url", errMalformedJWT)
	}
	if !jsonDepthOK(hb, maxJSONDepth) || !jsonDepthOK(pb, maxJSONDepth) {
		return nil, fmt.Errorf("%w: JSON nested too deeply", errMalformedJWT)
	}
	j := &parsedJWT{payload: pb, sig: sig, signed: []byte(token[:len(parts[0])+1+len(parts[1])])}
	if err := strictUnmarshal(hb, &j.header); err != nil {
		return nil, fmt.Errorf("%w: header: %v", errMalformedJWT, err)
	}
	if len(j.header.Crit) > 0 {
		// RFC 7515 section 4.1.11: extensions we do not understand make the JWS invalid.
		return nil, fmt.Errorf("%w: unsupported critical header %q", errMalformedJWT, j.header.Crit)
	}
	return j, nil
}

// strictUnmarshal decodes one JSON object and refuses trailing data.
func strictUnmarshal(b []byte, v any) error {
	if len(b) == 0 || b[0] != '{' {
		return errors.New("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	if _, err := dec.Token(); err == nil {
		return errors.New("trailing data")
	}
	return nil
}

// jsonDepthOK reports whether the arrays and objects of b nest at most max deep. It
// looks only at brackets outside strings; b need not be valid JSON.
func jsonDepthOK(b []byte, max int) bool {
	depth, inStr, esc := 0, false, false
	for _, c := range b {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
			if depth > max {
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// publicKey is one verification key of a JWKS.
type publicKey struct {
	kid string
	alg string // the key's "alg", when it names one
	key crypto.PublicKey
}

// jwk is the JSON form of a public key (RFC 7517), the members this package reads.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	Crv string `json:"crv"`
	N   string `json:"n"`
	E   string `json:"e"`
	X   string `json:"x"`
	Y   string `json:"y"`
	D   string `json:"d"`
}

// parseJWKS decodes a JWK Set. Keys that are not signature keys of a supported type
// are skipped; a malformed document is an error.
func parseJWKS(b []byte) ([]publicKey, error) {
	if len(b) > maxJWKSBytes {
		return nil, errors.New("JWKS larger than 1 MiB")
	}
	if !jsonDepthOK(b, maxJSONDepth) {
		return nil, errors.New("JWKS nested too deeply")
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := strictUnmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("JWKS: %w", err)
	}
	if len(set.Keys) > maxJWKSKeys {
		return nil, fmt.Errorf("JWKS has more than %d keys", maxJWKSKeys)
	}
	var out []publicKey
	for _, raw := range set.Keys {
		var k jwk
		if err := strictUnmarshal(raw, &k); err != nil {
			return nil, fmt.Errorf("JWKS key: %w", err)
		}
		pk, err := parseJWK(&k)
		if err != nil {
			continue // a key we cannot use is not an error for the others
		}
		out = append(out, pk)
	}
	return out, nil
}

// parseJWK turns one JWK into a public key.
func parseJWK(k *jwk) (publicKey, error) {
	if k.Use != "" && k.Use != "sig" {
		return publicKey{}, errors.New("not a signature key")
	}
	if k.D != "" {
		return publicKey{}, errors.New("a private key in a public key set")
	}
	pk := publicKey{kid: k.Kid, alg: k.Alg}
	switch k.Kty {
	case "RSA":
		n, err := b64(k.N)
		if err != nil || len(n) == 0 {
			return pk, errors.New("bad RSA modulus")
		}
		e, err := b64(k.E)
		if err != nil || len(e) == 0 || len(e) > 4 {
			return pk, errors.New("bad RSA exponent")
		}
		var exp int
		for _, c := range e {
			exp = exp<<8 | int(c)
		}
		if exp < 3 || exp%2 == 0 {
			return pk, errors.New("bad RSA exponent")
		}
		mod := new(big.Int).SetBytes(n)
		if mod.BitLen() < minRSABits {
			return pk, fmt.Errorf("RSA key shorter than %d bits", minRSABits)
		}
		pk.key = &rsa.PublicKey{N: mod, E: exp}
	case "EC":
		var curve elliptic.Curve
		var size int
		switch k.Crv {
		case "P-256":
			curve, size = elliptic.P256(), 32
		case "P-384":
			curve, size = elliptic.P384(), 48
		default:
			return pk, errors.New("unsupported curve")
		}
		x, err1 := b64(k.X)
		y, err2 := b64(k.Y)
		if err1 != nil || err2 != nil || len(x) != size || len(y) != size {
			return pk, errors.New("bad EC point")
		}
		pt := append(append([]byte{4}, x...), y...)
		key, err := ecdsa.ParseUncompressedPublicKey(curve, pt)
		if err != nil {
			return pk, err
		}
		pk.key = key
	case "OKP":
		if k.Crv != "Ed25519" {
			return pk, errors.New("unsupported curve")
		}
		x, err := b64(k.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			return pk, errors.New("bad Ed25519 key")
		}
		pk.key = ed25519.PublicKey(x)
	default:
		return pk, errors.New("unsupported key type")
	}
	return pk, nil
}

// keyFits reports whether key can verify signatures of alg.
func keyFits(pk publicKey, alg string) bool {
	if pk.alg != "" && pk.alg != alg {
		return false
	}
	switch key := pk.key.(type) {
	case *rsa.PublicKey:
		return strings.HasPrefix(alg, "RS") || strings.HasPrefix(alg, "PS")
	case *ecdsa.PublicKey:
		return (alg == "ES256" && key.Curve == elliptic.P256()) || (alg == "ES384" && key.Curve == elliptic.P384())
	case ed25519.PublicKey:
		return alg == "EdDSA" || alg == "Ed25519"
	}
	return false
}

var errBadSignature = errors.New("signature does not verify")

// verifySignature checks sig over input with key under alg. alg must already be one
// the caller allows; "none" and HMAC fail here too.
func verifySignature(alg string, key crypto.PublicKey, input, sig []byte) error {
	hashOf := func(h crypto.Hash) []byte {
		switch h {
		case crypto.SHA384:
			s := sha512.Sum384(input)
			return s[:]
		case crypto.SHA512:
			s := sha512.Sum512(input)
			return s[:]
		}
		s := sha256.Sum256(input)
		return s[:]
	}
	var h crypto.Hash
	switch alg {
	case "RS256", "PS256", "ES256":
		h = crypto.SHA256
	case "RS384", "PS384", "ES384":
		h = crypto.SHA384
	case "RS512", "PS512":
		h = crypto.SHA512
	case "EdDSA", "Ed25519":
	default:
		return fmt.Errorf("algorithm %q is not accepted", alg)
	}
	switch k := key.(type) {
	case *rsa.PublicKey:
		switch alg[:2] {
		case "RS":
			if rsa.VerifyPKCS1v15(k, h, hashOf(h), sig) == nil {
				return nil
			}
		case "PS":
			// RFC 7518 section 3.5: the salt is as long as the hash.
			if rsa.VerifyPSS(k, h, hashOf(h), sig, &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash}) == nil {
				return nil
			}
		}
	case *ecdsa.PublicKey:
		// RFC 7518 section 3.4: R and S as fixed-size big-endian integers, concatenated.
		size := (k.Curve.Params().BitSize + 7) / 8
		if len(sig) != 2*size || !strings.HasPrefix(alg, "ES") {
			return errBadSignature
		}
		r := new(big.Int).SetBytes(sig[:size])
		s := new(big.Int).SetBytes(sig[size:])
		if ecdsa.Verify(k, hashOf(h), r, s) {
			return nil
		}
	case ed25519.PublicKey:
		if (alg == "EdDSA" || alg == "Ed25519") && ed25519.Verify(k, input, sig) {
			return nil
		}
	}
	return errBadSignature
}
