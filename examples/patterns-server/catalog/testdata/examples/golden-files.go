// Golden files: compare with testdata, regenerate with -update.
package goldentest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func render(items []string) string {
	return "- " + strings.Join(items, "\n- ") + "\n"
}

func TestRenderGolden(t *testing.T) {
	got := render([]string{"alpha", "beta"})
	golden := filepath.Join("testdata", "render.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Skipf("no golden file yet (run with -update): %v", err)
	}
	if got != string(want) {
		t.Errorf("render mismatch:\ngot:\n%s\nwant:\n%s", got, want)
	}
}
