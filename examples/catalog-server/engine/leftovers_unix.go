//go:build unix

package engine

import (
	"errors"
	"os"
	"runtime"
	"syscall"
)

// processCheck says processGone can tell: on Unix, by signal 0.
const processCheck = true

// namespacesPossible says processes may live in PID namespaces of their own.
var namespacesPossible = runtime.GOOS == "linux"

// processGone says no process pid exists: signal 0 reports it finished. Any
// other answer (it exists, or it is another user's: permission denied) keeps
// its folders.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	defer p.Release()
	return errors.Is(p.Signal(syscall.Signal(0)), os.ErrProcessDone)
}
