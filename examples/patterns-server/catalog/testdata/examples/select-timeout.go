// Select with timeout: never wait forever for a reply.
package main

import (
	"errors"
	"fmt"
	"time"
)

var errTimeout = errors.New("timed out")

func receive(ch <-chan string, d time.Duration) (string, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case v := <-ch:
		return v, nil
	case <-t.C:
		return "", errTimeout
	}
}

func main() {
	ch := make(chan string) // nobody sends
	_, err := receive(ch, 20*time.Millisecond)
	fmt.Println(err)
}
