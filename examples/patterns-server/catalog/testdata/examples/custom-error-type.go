// Custom error types: structured data extracted with errors.As.
package main

import (
	"errors"
	"fmt"
)

// FieldError reports an invalid field.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FieldError) Unwrap() error { return e.Err }

var errRequired = errors.New("is required")

func validate(name string) error {
	if name == "" {
		return &FieldError{Field: "name", Err: errRequired}
	}
	return nil
}

func main() {
	err := fmt.Errorf("create user: %w", validate(""))
	var fe *FieldError
	if errors.As(err, &fe) {
		fmt.Println("bad field:", fe.Field, errors.Is(err, errRequired))
	}
}
