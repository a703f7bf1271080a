package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Token is an access token with what came with it.
type Token struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// Scope is the scope granted, or the scope requested when the authorization
	// server did not say.
	Scope string `json:"scope,omitempty"`
}

// expired reports whether t is expired or expires within the next 30 seconds.
func (t *Token) expired(now time.Time) bool {
	return !t.Expiry.IsZero() && now.Add(30*time.Second).After(t.Expiry)
}

// ClientCredentials are an OAuth client's credentials at one authorization server.
type ClientCredentials struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret,omitempty"`
	// AuthMethod is the token endpoint authentication method: client_secret_basic,
	// client_secret_post, private_key_jwt or none. Empty means none without a
	// secret; with one, client_secret_basic, or client_secret_post when the server
	// lists only that.
	AuthMethod string `json:"token_endpoint_auth_method,omitempty"`
}

// Grant is what a client keeps about one authorization server: the client's
// registration there and, for one resource, its token.
type Grant struct {
	Issuer   string             `json:"issuer"`
	Resource string             `json:"resource,omitempty"`
	Client   *ClientCredentials `json:"client,omitempty"`
	// RedirectURI is the redirect URI the client was registered with.
	RedirectURI string `json:"redirect_uri,omitempty"`
	Token       *Token `json:"token,omitempty"`
}

// TokenStore keeps grants between runs. Keys are opaque strings made by Transport
// (they contain the issuer, and for tokens the resource). Load returns nil and no
// error for a key never saved. Load and Save are called concurrently.
type TokenStore interface {
	Load(ctx context.Context, key string) (*Grant, error)
	Save(ctx context.Context, key string, g *Grant) error
}

// MemoryStore is a TokenStore in memory. The zero value is ready to use.
type MemoryStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

// Load implements TokenStore.
func (s *MemoryStore) Load(_ context.Context, key string) (*Grant, error) {
	s.mu.Lock()
	b, ok := s.m[key]
	s.mu.Unlock()
	if !ok {
		return nil, nil
	}
	var g Grant
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, err
	}
	return &g, nil
}

// Save implements TokenStore. It keeps a copy of g.
func (s *MemoryStore) Save(_ context.Context, key string, g *Grant) error {
	b, err := json.Marshal(g)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string][]byte{}
	}
	s.m[key] = b
	s.mu.Unlock()
	return nil
}

// FileStore is a TokenStore in a directory, one file per key, for command-line
// tools. The directory is created with mode 0700 and the files with 0600; a file's
// name is the SHA-256 of its key, so no key can name a path outside the directory.
// Writes are atomic (temporary file, fsync, rename).
type FileStore struct {
	dir string
	mu  sync.Mutex
}

// NewFileStore returns a store in dir, creating it when needed.
func NewFileStore(dir string) (*FileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("auth: token store: %w", err)
	}
	return &FileStore{dir: dir}, nil
}

func (s *FileStore) path(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:])+".json")
}

// Load implements TokenStore.
func (s *FileStore) Load(_ context.Context, key string) (*Grant, error) {
	b, err := os.ReadFile(s.path(key))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("auth: token store: %w", err)
	}
	var g Grant
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("auth: token store: %s: %w", s.path(key), err)
	}
	return &g, nil
}

// Save implements TokenStore.
func (s *FileStore) Save(_ context.Context, key string, g *Grant) error {
	b, err := json.Marshal(g)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f, err := os.CreateTemp(s.dir, ".grant-*")
	if err != nil {
		return fmt.Errorf("auth: token store: %w", err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("auth: token store: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("auth: token store: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("auth: token store: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("auth: token store: %w", err)
	}
	if err := os.Rename(tmp, s.path(key)); err != nil {
		return fmt.Errorf("auth: token store: %w", err)
	}
	ok = true
	return nil
}
