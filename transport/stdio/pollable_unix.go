//go:build unix

package stdio

import (
	"os"
	"syscall"
	"time"
)

// pollableCopy returns a pollable duplicate of f when f is a pipe or a socket
// that the runtime cannot poll because it was opened in blocking mode (as a
// child's stdin usually is: os/exec hands pipes over in blocking mode). Reading
// the copy on the caller's goroutine spares a goroutine hand-off per message, and
// deadlines and Close can still interrupt it. The copy shares f's open file
// description, so f becomes non-blocking too; the Transport is the only reader
// of its input, so nothing else sees the difference. Terminals and regular
// files are left alone (nil).
func pollableCopy(f *os.File) *os.File {
	sc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var out *os.File
	sc.Control(func(fd uintptr) {
		if !pipeOrSocket(int(fd)) {
			return
		}
		nfd, err := syscall.Dup(int(fd))
		if err != nil {
			return
		}
		syscall.CloseOnExec(nfd)
		if syscall.SetNonblock(nfd, true) != nil {
			syscall.Close(nfd)
			return
		}
		out = os.NewFile(uintptr(nfd), f.Name())
	})
	if out != nil && out.SetReadDeadline(time.Time{}) != nil {
		out.Close()
		return nil
	}
	return out
}

// pipeOrSocket reports whether fd is a pipe (FIFO) or a socket.
func pipeOrSocket(fd int) bool {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil {
		return false
	}
	m := st.Mode & syscall.S_IFMT
	return m == syscall.S_IFIFO || m == syscall.S_IFSOCK
}
