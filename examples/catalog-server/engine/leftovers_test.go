package engine

import "testing"

func TestParseModelDir(t *testing.T) {
	for name, want := range map[string]bool{
		"catalog-duckdb-123-4026531836-987654":       true,
		"catalog-duckdb-123-0-1":                     true,
		"catalog-duckdb-987654":                      false, // an older version's
		"catalog-duckdb-0123-0-1":                    false,
		"catalog-duckdb-0-0-1":                       false,
		"catalog-duckdb--0-1":                        false,
		"catalog-duckdb-123-0-":                      false,
		"catalog-duckdb-123-0-1-2":                   false,
		"catalog-duckdb-123-0-1x":                    false,
		"catalog-duckdb-+123-0-1":                    false,
		"catalog-duckdb-99999999999999999999999-0-1": false,
		"Catalog-duckdb-123-0-1":                     false,
		"catalog-samples-123-0-1":                    true,
		"catalog-samples-987654":                     false, // an older version's
		"catalog-samples-0123-0-1":                   false,
		"catalog-samples-123-0-1-2":                  false,
		"catalog-test-samples-123-0-1":               false,
		"catalog-samples123-0-1":                     false,
	} {
		if _, _, ok := parseModelDir(name); ok != want {
			t.Errorf("%s: parsed %v, want %v", name, ok, want)
		}
	}
	if _, _, ok := parseModelDir(modelDirPattern()[:len(modelDirPattern())-1] + "42"); !ok {
		t.Errorf("this process's own pattern %q does not parse", modelDirPattern())
	}
	if _, _, ok := parseModelDir(SamplesDirPattern()[:len(SamplesDirPattern())-1] + "42"); !ok {
		t.Errorf("this process's own sample catalog pattern %q does not parse", SamplesDirPattern())
	}
	for name, want := range map[string]bool{
		"catalog-duckdb-987654": true, "catalog-samples-987654": true,
		"catalog-duckdb-123-0-1": false, "catalog-samples-123-0-1": false,
		"catalog-duckdb-": false, "catalog-duckdb-12x": false, "catalog-test-samples-987654": false,
	} {
		if got := oldNamed(name); got != want {
			t.Errorf("oldNamed(%s) = %v, want %v", name, got, want)
		}
	}
}
