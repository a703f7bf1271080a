//go:build !linux

package stdio

import (
	"errors"
	"os"
)

// selectReader is a linux facility (see wait_linux.go); elsewhere the reader waits
// in the runtime's poller.
type selectReader struct {
	stop    func() bool
	partial func() bool
}

var errWoken = errors.New("stdio: read interrupted")

func newSelectReader(*os.File) *selectReader   { return nil }
func (*selectReader) Read([]byte) (int, error) { return 0, errWoken }
func (*selectReader) wake()                    {}
func (*selectReader) shutdown()                {}
