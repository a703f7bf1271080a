//go:build linux || openbsd || dragonfly || solaris

package catalog

import (
	"io/fs"
	"syscall"
)

// hasChangeTime tells that changeTime reads the inode's change time here.
const hasChangeTime = true

// changeTime is the inode's change time (ctime) of the file info tells of, in
// nanoseconds, or 0 when info does not hold it. The system sets it at every
// change of the file's content, mode, owner, links or times, and no program can
// set it back: a file rewritten, replaced or chmod-ed keeping its size and
// modification time has another.
func changeTime(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
