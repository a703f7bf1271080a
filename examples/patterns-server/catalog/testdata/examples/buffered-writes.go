// Buffered writes: many small writes, few system calls, one Flush.
package main

import (
	"bufio"
	"fmt"
	"os"
)

func writeTable(rows int) error {
	w := bufio.NewWriter(os.Stdout)
	for i := range rows {
		fmt.Fprintf(w, "%d\t%d\n", i, i*i)
	}
	return w.Flush() // reports any write error that happened along the way
}

func main() {
	if err := writeTable(5); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
