// io.Pipe: feed an encoder's output to a reader without buffering it all.
package main

import (
	"encoding/json"
	"fmt"
	"io"
)

type record struct {
	N int `json:"n"`
}

func main() {
	pr, pw := io.Pipe()
	go func() {
		enc := json.NewEncoder(pw)
		var err error
		for i := range 3 {
			if err = enc.Encode(record{N: i}); err != nil {
				break
			}
		}
		pw.CloseWithError(err) // nil error closes normally: the reader sees io.EOF
	}()
	n, err := io.Copy(io.Discard, pr) // stands in for an HTTP request body
	fmt.Println(n, err)
}
