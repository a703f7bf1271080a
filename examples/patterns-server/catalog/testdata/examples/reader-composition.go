// Composing readers: a counting wrapper around any io.Reader.
package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
)

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func main() {
	var compressed bytes.Buffer
	zw := gzip.NewWriter(&compressed)
	io.Copy(zw, strings.NewReader(strings.Repeat("gopher ", 1000)))
	zw.Close()

	raw := &countingReader{r: &compressed}
	zr, err := gzip.NewReader(raw)
	if err != nil {
		panic(err)
	}
	n, err := io.Copy(io.Discard, zr)
	fmt.Println(n, "bytes out of", raw.n, "compressed bytes", err)
}
