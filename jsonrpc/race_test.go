//go:build race

package jsonrpc_test

// raceEnabled is true under -race, where sync.Pool drops items at random and
// allocation counts are not meaningful.
const raceEnabled = true
