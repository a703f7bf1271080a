// Bounding reads: read max+1 bytes to detect truncation.
package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

var errTooLarge = errors.New("input too large")

func readAtMost(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, errTooLarge
	}
	return b, nil
}

func main() {
	_, err := readAtMost(strings.NewReader("0123456789"), 10)
	fmt.Println(err)
	_, err = readAtMost(strings.NewReader("0123456789!"), 10)
	fmt.Println(err)
}
