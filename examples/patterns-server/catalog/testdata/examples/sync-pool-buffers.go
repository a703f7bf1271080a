// Reusing buffers with sync.Pool on a hot path.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooled = 64 << 10

func encode(v any) (string, error) {
	b := bufPool.Get().(*bytes.Buffer)
	b.Reset()
	defer func() {
		if b.Cap() <= maxPooled { // do not pin huge buffers
			bufPool.Put(b)
		}
	}()
	if err := json.NewEncoder(b).Encode(v); err != nil {
		return "", err
	}
	return b.String(), nil // String copies, so the buffer can be reused
}

func main() {
	for i := range 3 {
		s, err := encode(map[string]int{"n": i})
		fmt.Print(s, err, " ")
	}
	fmt.Println()
}
