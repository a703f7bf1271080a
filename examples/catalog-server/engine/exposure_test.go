package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDuckPathsShown: what a query can learn of the server's paths is what the
// README's Safety section says: the package folder and the model's folder of
// temporary files (allowed_directories, temp_directory, the database's path), not
// the server user's home directory, which DuckDB's defaults for secret_directory
// and extension_directory would show.
func TestDuckPathsShown(t *testing.T) {
	d := openTestDuck(t)
	ctx := context.Background()
	value := func(q string) string {
		t.Helper()
		res, err := d.Query(ctx, q, nil, testLimits)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return fmt.Sprint(res.Rows)
	}
	tmp, err := filepath.EvalSymlinks(d.tmp)
	if err != nil {
		tmp = d.tmp
	}
	for _, name := range []string{"secret_directory", "extension_directory", "temp_directory"} {
		if v := value("SELECT current_setting('" + name + "')"); !strings.Contains(v, d.tmp) && !strings.Contains(v, tmp) {
			t.Errorf("%s = %s, want a folder in the model's %s", name, v, d.tmp)
		}
	}
	if home, err := os.UserHomeDir(); err == nil && len(home) > 1 && !strings.HasPrefix(d.tmp, home) {
		if v := value("SELECT list(name || '=' || value) FROM duckdb_settings()"); strings.Contains(v, home) {
			t.Errorf("a setting shows the home directory %s: %s", home, v)
		}
		// No secret is stored anywhere (allow_persistent_secrets is off); an
		// error, if any, names no folder of the home directory either.
		res, err := d.Query(ctx, "SELECT * FROM which_secret('s3://b/k', 's3')", nil, testLimits)
		if err != nil && strings.Contains(err.Error(), home) || res != nil && strings.Contains(fmt.Sprint(res.Rows), home) {
			t.Errorf("which_secret: %v %v", err, res)
		}
	}
	// What the README says a query can see: the package folder.
	if v := value("SELECT current_setting('allowed_directories')"); !strings.Contains(v, string(filepath.Separator)+filepath.Join("p", "k")+string(filepath.Separator)) {
		t.Errorf("allowed_directories = %s", v)
	}
}
