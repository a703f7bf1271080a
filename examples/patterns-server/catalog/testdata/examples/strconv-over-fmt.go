// strconv instead of fmt for number conversions.
package main

import (
	"fmt"
	"strconv"
)

func main() {
	buf := make([]byte, 0, 32)
	for i := range 3 {
		buf = strconv.AppendInt(buf, int64(i*1000), 10)
		buf = append(buf, ' ')
	}
	fmt.Println(string(buf))

	n, err := strconv.Atoi("12345")
	fmt.Println(n+1, err)
	_, err = strconv.Atoi("99999999999999999999")
	fmt.Println(err)
}
