package engine

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
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

// closeInherited closes the files past the answers' (3) that the worker
// process inherited from its server: the files DuckDB opens in the server (the
// databases of other models, being built or opened in the server's process)
// are not closed on exec, and a worker has no use for them. What the worker's
// own runtime opened is closed on exec (Go opens every file so) and stays.
func closeInherited() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 3 {
			continue
		}
		info, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue // the directory's own, closed meanwhile
		}
		flags, ok := fdFlags(string(info))
		if !ok || flags&syscall.O_CLOEXEC != 0 {
			continue
		}
		os.NewFile(uintptr(fd), "inherited").Close()
	}
}

// preferOOMKill makes the worker process the system's first choice when it runs
// out of memory (the most a process may ask for itself): a query that needs
// more memory than the machine has ends its own process, which fails only its
// query, rather than the server.
func preferOOMKill() {
	os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0)
}

// residentBytes returns the resident memory of process pid, or -1 when it
// cannot be read.
func residentBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b)) // size resident shared …, in pages
	if len(f) < 2 {
		return -1
	}
	n, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return n * int64(os.Getpagesize())
}
