package nodetest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMissingPackages(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"dependencies": {"a": "1.2.3", "@s/b": "4.5.6"}}`)
	if got := missingPackages(t, dir); got != "a 1.2.3, @s/b 4.5.6" && got != "@s/b 4.5.6, a 1.2.3" {
		t.Errorf("nothing installed: %q", got)
	}
	write("node_modules/a/package.json", `{"version": "1.2.3"}`)
	write("node_modules/@s/b/package.json", `{"version": "4.5.5"}`)
	if got := missingPackages(t, dir); got != "@s/b 4.5.6" {
		t.Errorf("one at another version: %q", got)
	}
	write("node_modules/@s/b/package.json", `{"version": "4.5.6"}`)
	if got := missingPackages(t, dir); got != "" {
		t.Errorf("all installed: %q", got)
	}
}

func TestSetupWithoutNodeSkips(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv("WIREMCP_NODE", filepath.Join(t.TempDir(), "no-node"))
	ran := false
	t.Run("inner", func(t *testing.T) {
		Setup(t, t.TempDir(), 20, 0, "a Node test")
		ran = true
	})
	if ran {
		t.Error("Setup returned without a node binary")
	}
}
