package catalog

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// declaresTests reports whether src declares Test, Benchmark or Fuzz functions,
// in which case it must be compiled as a _test.go file.
func declaresTests(t *testing.T, name, src string) bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil {
			continue
		}
		for _, prefix := range []string{"Test", "Benchmark", "Fuzz"} {
			if strings.HasPrefix(fn.Name.Name, prefix) {
				return true
			}
		}
	}
	return false
}

// TestExamplesCompile writes every example into its own package of one temporary
// module and runs `go vet ./...` over it, which type-checks each example (test
// files included) and runs the vet analyzers.
func TestExamplesCompile(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH; cannot build the examples")
	}
	cat, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module patternexamples\n\ngo 1.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := 0
	for _, p := range cat.All() {
		if len(p.Examples) != 1 {
			t.Fatalf("%s: %d examples, want 1", p.ID, len(p.Examples))
		}
		ex := p.Examples[0]
		name := ex.File
		if declaresTests(t, name, ex.Code) {
			name = strings.TrimSuffix(name, ".go") + "_test.go"
			tests++
		} else if !strings.Contains(ex.Code, "package main") {
			t.Errorf("%s: example is neither package main nor a test file", p.ID)
		}
		pkgDir := filepath.Join(dir, p.ID)
		if err := os.Mkdir(pkgDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkgDir, name), []byte(ex.Code), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if tests == 0 {
		t.Error("no example compiled as a test file; the testing category should have some")
	}
	cmd := exec.Command(goTool, "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go vet over %d examples failed: %v\n%s", cat.Len(), err, out)
	}
}
