// TeeReader and MultiWriter: hash data while it flows elsewhere.
package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"strings"
)

func main() {
	var stored bytes.Buffer
	h := sha256.New()
	n, err := io.Copy(&stored, io.TeeReader(strings.NewReader("payload"), h))
	fmt.Printf("%d bytes, err=%v, sha256=%x\n", n, err, h.Sum(nil)[:4])

	var a, b bytes.Buffer
	fmt.Fprint(io.MultiWriter(&a, &b), "twice")
	fmt.Println(a.String() == b.String())
}
