//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// ownGroup makes cmd start in a process group of its own, so that the gateway can
// stop everything the child started by signalling the group.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup sends SIGKILL to the process group led by pid (a no-op when the group
// is already gone).
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// termGroup sends SIGTERM to the process group led by pid.
func termGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGTERM)
	}
}
