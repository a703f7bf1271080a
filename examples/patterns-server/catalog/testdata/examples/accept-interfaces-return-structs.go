// Accept interfaces, return structs.
package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WordCounter counts words from any reader.
type WordCounter struct {
	sc    *bufio.Scanner
	count int
}

// NewWordCounter accepts the narrowest interface and returns the concrete type.
func NewWordCounter(r io.Reader) *WordCounter {
	sc := bufio.NewScanner(r)
	sc.Split(bufio.ScanWords)
	return &WordCounter{sc: sc}
}

func (w *WordCounter) Count() (int, error) {
	for w.sc.Scan() {
		w.count++
	}
	return w.count, w.sc.Err()
}

func main() {
	fmt.Println(NewWordCounter(strings.NewReader("accept interfaces return structs")).Count())
}
