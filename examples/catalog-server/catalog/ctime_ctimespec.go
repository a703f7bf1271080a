//go:build darwin || freebsd || netbsd

package catalog

import (
	"io/fs"
	"syscall"
)

// hasChangeTime tells that changeTime reads the inode's change time here.
const hasChangeTime = true

// changeTime is the inode's change time (ctime) of the file info tells of, in
// nanoseconds, or 0 when info does not hold it: as on Linux (ctime_ctim.go),
// under the name these systems give the field.
func changeTime(info fs.FileInfo) int64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ctimespec.Nano()
	}
	return 0
}
