// Sentinel errors: a stable value callers test with errors.Is.
package main

import (
	"errors"
	"fmt"
)

// ErrNotFound reports a missing key.
var ErrNotFound = errors.New("store: not found")

type store map[string]string

func (s store) get(key string) (string, error) {
	v, ok := s[key]
	if !ok {
		return "", fmt.Errorf("get %q: %w", key, ErrNotFound)
	}
	return v, nil
}

func main() {
	s := store{"a": "1"}
	_, err := s.get("b")
	fmt.Println(err, errors.Is(err, ErrNotFound))
}
