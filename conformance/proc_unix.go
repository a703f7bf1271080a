//go:build unix

package conformance

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the server in its own process group so that
// killProcessGroup also ends helpers it spawned (npx, sh -c, …).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcessGroup kills the server's whole process group.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = cmd.Process.Kill()
	}
}
