package engine

import (
	"os/exec"
	"syscall"
)

// endWithParent has the system kill the worker process when the server's
// process ends without killing it (a crash, SIGKILL): a computation DuckDB
// cannot interrupt would otherwise go on for nobody.
func endWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
