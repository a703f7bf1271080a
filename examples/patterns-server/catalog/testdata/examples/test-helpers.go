// Test helpers: t.Helper for line numbers, t.Cleanup for teardown.
package helpertest

import (
	"os"
	"path/filepath"
	"testing"
)

func writeFixture(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatalf("write fixture: %v", err)
	}
	t.Cleanup(func() { t.Logf("fixture %s removed with its temp dir", name) })
	return path
}

func TestReadFixture(t *testing.T) {
	path := writeFixture(t, "greeting.txt", "hi")
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "hi" {
		t.Fatalf("read = %q, %v", b, err)
	}
}
