// Asserting behaviour: ask what an error can do, not what type it is.
package main

import (
	"errors"
	"fmt"
)

type timeoutErr struct{ op string }

func (e timeoutErr) Error() string { return e.op + ": timeout" }
func (e timeoutErr) Timeout() bool { return true }

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func main() {
	err := fmt.Errorf("fetch: %w", timeoutErr{op: "dial"})
	fmt.Println(isTimeout(err), isTimeout(errors.New("other")))
}
