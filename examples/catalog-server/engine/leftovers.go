package engine

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Model folders left by servers that ended.
//
// Each model's database is built in a folder of its own under the temporary
// folder (buildDuckFile), removed when the model closes. A server killed with
// SIGKILL (or that crashed) cannot remove them. So each folder is named after
// the server process that made it, catalog-duckdb-<pid>-<ns>-<random>: <pid>
// is that process's id and <ns> its PID namespace (on Linux the number in
// /proc/self/ns/pid, 0 elsewhere), as the same pid in another container names
// another process. RemoveLeftovers, at the start of a server, removes the
// folders so named whose <ns> is its own and whose process no longer exists.
//
// Conservative by design: a folder whose process is alive (another server
// sharing the temporary folder) stays; so does one whose pid was reused by a
// process started since (it stays until that process ends and a server starts
// again); so does every name that does not match the pattern exactly, every
// entry that is not a folder (a symbolic link is not followed), the folders of
// the versions before (catalog-duckdb-<random>: their owner is unknown; remove
// them by hand once), and, where the process check is not available (not
// Unix) or this process's PID namespace is unknown, all of them.

// leftoverPrefix begins the name of every model folder.
const leftoverPrefix = "catalog-duckdb-"

// maxLeftoverScan is the most entries of the temporary folder RemoveLeftovers
// reads: a folder with more (a shared /tmp never cleaned) has only its first
// maxLeftoverScan looked at, in the order the system lists them; the next
// start looks again.
const maxLeftoverScan = 10000

var pidNSOnce = sync.OnceValue(pidNamespace)

// pidNamespace returns the number of this process's PID namespace on Linux
// ("pid:[4026531836]" read from /proc/self/ns/pid), "0" on other systems, and
// "" when it cannot be known (then no folder is removed).
func pidNamespace() string {
	if !namespacesPossible {
		return "0"
	}
	link, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	num, ok := strings.CutPrefix(link, "pid:[")
	if num, ok = strings.CutSuffix(num, "]"); !ok || !allDigits(num) {
		return ""
	}
	return num
}

// modelDirPattern is the os.MkdirTemp pattern of a model's folder.
func modelDirPattern() string {
	ns := pidNSOnce()
	if ns == "" {
		ns = "0"
	}
	return leftoverPrefix + strconv.Itoa(os.Getpid()) + "-" + ns + "-*"
}

// parseModelDir returns the pid and namespace a model folder's name gives, and
// false for any name not exactly catalog-duckdb-<pid>-<ns>-<random>, each part
// decimal digits (the random part os.MkdirTemp's).
func parseModelDir(name string) (pid int, ns string, ok bool) {
	rest, ok := strings.CutPrefix(name, leftoverPrefix)
	if !ok {
		return 0, "", false
	}
	parts := strings.Split(rest, "-")
	if len(parts) != 3 || !allDigits(parts[0]) || !allDigits(parts[1]) || !allDigits(parts[2]) {
		return 0, "", false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 || strconv.Itoa(pid) != parts[0] {
		return 0, "", false
	}
	return pid, parts[1], true
}

func allDigits(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// RemoveLeftovers removes from the temporary folder (os.TempDir) the model
// folders of server processes that no longer exist (see above), and logs one
// line saying how many when it removed or failed to remove any. It returns how
// many it removed. It reads at most maxLeftoverScan entries.
func RemoveLeftovers(log *slog.Logger) int {
	if log == nil {
		log = slog.Default()
	}
	ns := pidNSOnce()
	if !processCheck || ns == "" {
		return 0
	}
	dir := os.TempDir()
	d, err := os.Open(dir)
	if err != nil {
		return 0
	}
	entries, _ := d.ReadDir(maxLeftoverScan)
	d.Close()
	self := os.Getpid()
	removed, failed := 0, 0
	for _, e := range entries {
		pid, fns, ok := parseModelDir(e.Name())
		// e.Type() is the entry's own (lstat) type: a symbolic link is no folder.
		if !ok || !e.Type().IsDir() || fns != ns || pid == self || !processGone(pid) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			failed++
			continue
		}
		removed++
	}
	if removed > 0 || failed > 0 {
		log.Info("removed model folders left by servers that ended (killed or crashed)", "dir", dir, "removed", removed, "failed", failed)
	}
	return removed
}
