//go:build !linux

package engine

import "os/exec"

// endWithParent does nothing where the system cannot end a child with its
// parent: a worker whose server died ends when it next reads its input, after
// the computation it is in.
func endWithParent(*exec.Cmd) {}

// closeInherited does nothing where the process cannot list its files.
func closeInherited() {}

// preferOOMKill does nothing where the system has no out-of-memory score.
func preferOOMKill() {}

// residentBytes returns -1: the resident memory of a process is not read here.
func residentBytes(int) int64 { return -1 }
