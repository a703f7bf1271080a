// Joining errors: report every problem at once.
package main

import (
	"errors"
	"fmt"
	"strings"
)

type signup struct{ Email, Password string }

func (s signup) validate() error {
	var err error
	if !strings.Contains(s.Email, "@") {
		err = errors.Join(err, errors.New("email: must contain @"))
	}
	if len(s.Password) < 8 {
		err = errors.Join(err, errors.New("password: at least 8 characters"))
	}
	return err
}

func main() {
	fmt.Println(signup{Email: "x", Password: "short"}.validate())
	fmt.Println(signup{Email: "a@b.c", Password: "long enough"}.validate() == nil)
}
