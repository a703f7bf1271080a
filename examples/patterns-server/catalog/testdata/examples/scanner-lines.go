// Reading lines with bufio.Scanner, checking Err afterwards.
package main

import (
	"bufio"
	"fmt"
	"strings"
)

func main() {
	input := "alpha\nbeta\n\ngamma\n"
	sc := bufio.NewScanner(strings.NewReader(input))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20) // allow lines up to 1 MiB
	count := 0
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			count++
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Println("scan:", err)
		return
	}
	fmt.Println(count, "non-empty lines")
}
