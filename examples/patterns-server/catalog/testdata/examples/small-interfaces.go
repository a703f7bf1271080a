// Small interfaces declared where they are used.
package main

import (
	"errors"
	"fmt"
)

// The concrete type, with many methods, lives elsewhere.
type DB struct{ users map[int]string }

func (db *DB) User(id int) (string, error) {
	u, ok := db.users[id]
	if !ok {
		return "", errors.New("no such user")
	}
	return u, nil
}
func (db *DB) DeleteUser(id int) { delete(db.users, id) }

// The consumer asks only for what it uses.
type userLookup interface {
	User(id int) (string, error)
}

func greet(users userLookup, id int) string {
	name, err := users.User(id)
	if err != nil {
		return "hello, stranger"
	}
	return "hello, " + name
}

func main() {
	db := &DB{users: map[int]string{1: "ada"}}
	fmt.Println(greet(db, 1), "/", greet(db, 2))
}
