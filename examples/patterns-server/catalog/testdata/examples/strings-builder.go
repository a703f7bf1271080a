// strings.Builder instead of += in loops.
package main

import (
	"fmt"
	"strconv"
	"strings"
)

func csvLine(nums []int) string {
	var b strings.Builder
	b.Grow(len(nums) * 4)
	for i, n := range nums {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

func main() {
	fmt.Println(csvLine([]int{1, 22, 333}))
}
