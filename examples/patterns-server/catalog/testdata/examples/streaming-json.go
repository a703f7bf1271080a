// Streaming a JSON array element by element with json.Decoder.
package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

type event struct {
	ID   int    `json:"id"`
	Kind string `json:"kind"`
}

func main() {
	dec := json.NewDecoder(strings.NewReader(`[{"id":1,"kind":"a"},{"id":2,"kind":"b"}]`))
	if _, err := dec.Token(); err != nil { // [
		panic(err)
	}
	for dec.More() {
		var e event
		if err := dec.Decode(&e); err != nil {
			panic(err)
		}
		fmt.Println(e.ID, e.Kind)
	}
	if _, err := dec.Token(); err != nil { // ]
		panic(err)
	}
}
