// Wrapping errors: add the operation, keep the cause.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

func loadConfig(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load config: %w", err)
	}
	return b, nil
}

func main() {
	_, err := loadConfig("/does/not/exist.toml")
	fmt.Println(err)
	fmt.Println("missing file:", errors.Is(err, fs.ErrNotExist))
}
