// Walking a tree with fs.WalkDir over an fs.FS (here an in-memory one).
package main

import (
	"fmt"
	"io/fs"
	"path"
	"testing/fstest"
)

func goFiles(fsys fs.FS) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "vendor" {
			return fs.SkipDir
		}
		if !d.IsDir() && path.Ext(p) == ".go" {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

func main() {
	fsys := fstest.MapFS{
		"main.go":           {Data: []byte("package main")},
		"pkg/util.go":       {Data: []byte("package pkg")},
		"vendor/dep/dep.go": {Data: []byte("package dep")},
		"README.md":         {Data: []byte("# readme")},
	}
	fmt.Println(goFiles(fsys))
}
