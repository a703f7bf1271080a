// State functions: each state returns the next.
package main

import (
	"fmt"
	"unicode"
)

type lexer struct {
	input  []rune
	pos    int
	tokens []string
}

type stateFn func(*lexer) stateFn

func lexAny(l *lexer) stateFn {
	for l.pos < len(l.input) && unicode.IsSpace(l.input[l.pos]) {
		l.pos++
	}
	switch {
	case l.pos == len(l.input):
		return nil
	case unicode.IsDigit(l.input[l.pos]):
		return lexNumber
	default:
		return lexWord
	}
}

func lexNumber(l *lexer) stateFn {
	start := l.pos
	for l.pos < len(l.input) && unicode.IsDigit(l.input[l.pos]) {
		l.pos++
	}
	l.tokens = append(l.tokens, "NUM("+string(l.input[start:l.pos])+")")
	return lexAny
}

func lexWord(l *lexer) stateFn {
	start := l.pos
	for l.pos < len(l.input) && !unicode.IsSpace(l.input[l.pos]) {
		l.pos++
	}
	l.tokens = append(l.tokens, "WORD("+string(l.input[start:l.pos])+")")
	return lexAny
}

func main() {
	l := &lexer{input: []rune("take 3 apples and 12 pears")}
	for state := stateFn(lexAny); state != nil; {
		state = state(l)
	}
	fmt.Println(l.tokens)
}
