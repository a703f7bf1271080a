// Deferred Close errors: do not lose the error that reports lost data.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

func writeReport(path string, data []byte) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	_, err = f.Write(data)
	return err
}

func main() {
	dir, err := os.MkdirTemp("", "report")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	fmt.Println(writeReport(filepath.Join(dir, "r.txt"), []byte("ok\n")))
}
