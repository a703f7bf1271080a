//go:build race

package mcp

// raceEnabled is true under -race, where sync.Pool drops items at random and
// allocation counts are not meaningful.
const raceEnabled = true
