package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
)

// signJWT returns a compact JWS of claims signed by key under alg (RS256, RS384,
// RS512, PS256, PS384, PS512, ES256, ES384, EdDSA), with kid in the header when set.
func signJWT(key crypto.Signer, alg, kid, typ string, claims any) (string, error) {
	hdr := map[string]string{"alg": alg}
	if kid != "" {
		hdr["kid"] = kid
	}
	if typ != "" {
		hdr["typ"] = typ
	}
	hb, err := json.Marshal(hdr)
	if err != nil {
		return "", err
	}
	cb, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(hb) + "." + enc.EncodeToString(cb)
	var h crypto.Hash
	switch alg {
	case "RS256", "PS256", "ES256":
		h = crypto.SHA256
	case "RS384", "PS384", "ES384":
		h = crypto.SHA384
	case "RS512", "PS512":
		h = crypto.SHA512
	case "EdDSA":
	default:
		return "", fmt.Errorf("auth: cannot sign with %q", alg)
	}
	var digest []byte
	switch h {
	case crypto.SHA256:
		s := sha256.Sum256([]byte(input))
		digest = s[:]
	case crypto.SHA384:
		s := sha512.Sum384([]byte(input))
		digest = s[:]
	case crypto.SHA512:
		s := sha512.Sum512([]byte(input))
		digest = s[:]
	}
	var sig []byte
	switch k := key.Public().(type) {
	case *rsa.PublicKey:
		var opts crypto.SignerOpts = h
		if alg[0] == 'P' {
			opts = &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: h}
		} else if alg[0] != 'R' {
			return "", fmt.Errorf("auth: %s does not fit an RSA key", alg)
		}
		sig, err = key.Sign(rand.Reader, digest, opts)
	case *ecdsa.PublicKey:
		if alg[0] != 'E' || alg == "EdDSA" {
			return "", fmt.Errorf("auth: %s does not fit an EC key", alg)
		}
		der, err2 := key.Sign(rand.Reader, digest, h)
		if err2 != nil {
			return "", err2
		}
		var rs struct{ R, S *big.Int }
		if _, err := asn1.Unmarshal(der, &rs); err != nil {
			return "", err
		}
		size := (k.Curve.Params().BitSize + 7) / 8
		sig = make([]byte, 2*size)
		rs.R.FillBytes(sig[:size])
		rs.S.FillBytes(sig[size:])
	case ed25519.PublicKey:
		if alg != "EdDSA" {
			return "", fmt.Errorf("auth: %s does not fit an Ed25519 key", alg)
		}
		sig, err = key.Sign(rand.Reader, []byte(input), crypto.Hash(0))
	default:
		return "", errors.New("auth: unsupported signing key type")
	}
	if err != nil {
		return "", err
	}
	return input + "." + enc.EncodeToString(sig), nil
}
