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
// folder (buildDuckFile), removed when the model closes, and a server run on
// its built-in sample catalog writes it into a folder removed when it stops.
// A server killed with SIGKILL (or that crashed) cannot remove them. So each
// folder is named after the server process that made it,
// catalog-duckdb-<pid>-<ns>-<random> (catalog-samples-<pid>-<ns>-<random> for
// the sample catalog): <pid> is that process's id and <ns> its PID namespace
// (on Linux the number in /proc/self/ns/pid, 0 elsewhere), as the same pid in
// another container names another process. RemoveLeftovers, at the start of a
// server, removes the folders so named whose <ns> is its own and whose process
// no longer exists.
//
// Conservative by design: a folder whose process is alive (another server
// sharing the temporary folder) stays; so does one whose pid was reused by a
// process started since (it stays until that process ends and a server starts
// again); so does every name that does not match the pattern exactly, every
// entry that is not a folder (a symbolic link is not followed), the folders of
// the versions before (catalog-duckdb-<random>, catalog-samples-<random>), and,
// where the process check is not available (not Unix) or this process's PID
// namespace is unknown, all of them.
//
// The folders of the versions before are not removed because nothing tells
// whether their server still runs: their name has no pid, and a live server of
// such a version holds nothing open in its model's folder while the model is
// idle (its query processes end), so neither a lock nor the folder's age
// tells; removing one would break that model until its files change (those
// versions did not build a model whose file is gone again). RemoveLeftovers
// counts them and logs one line saying to remove them by hand once no server
// of an earlier version runs.

// leftoverPrefix begins the name of every model folder, samplesPrefix that of
// the sample catalog's.
const (
	leftoverPrefix = "catalog-duckdb-"
	samplesPrefix  = "catalog-samples-"
)

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
func modelDirPattern() string { return ownedPattern(leftoverPrefix) }

// SamplesDirPattern is the os.MkdirTemp pattern of the folder the built-in
// sample catalog is written into: named after this process, as a model's
// folder, so that RemoveLeftovers removes it once the process is gone.
func SamplesDirPattern() string { return ownedPattern(samplesPrefix) }

func ownedPattern(prefix string) string {
	ns := pidNSOnce()
	if ns == "" {
		ns = "0"
	}
	return prefix + strconv.Itoa(os.Getpid()) + "-" + ns + "-*"
}

// parseModelDir returns the pid and namespace a model or sample catalog
// folder's name gives, and false for any name not exactly
// catalog-duckdb-<pid>-<ns>-<random> or catalog-samples-<pid>-<ns>-<random>,
// each part decimal digits (the random part os.MkdirTemp's).
func parseModelDir(name string) (pid int, ns string, ok bool) {
	rest, ok := strings.CutPrefix(name, leftoverPrefix)
	if !ok {
		if rest, ok = strings.CutPrefix(name, samplesPrefix); !ok {
			return 0, "", false
		}
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

// oldNamed says name is a folder name of the versions before:
// catalog-duckdb-<random> or catalog-samples-<random>.
func oldNamed(name string) bool {
	rest, ok := strings.CutPrefix(name, leftoverPrefix)
	if !ok {
		rest, ok = strings.CutPrefix(name, samplesPrefix)
	}
	return ok && allDigits(rest)
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
// and sample catalog folders of server processes that no longer exist (see
// above), and logs one line saying how many when it removed or failed to
// remove any, and one when it found folders of the versions before. It
// returns how many it removed. It reads at most maxLeftoverScan entries.
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
	removed, failed, old := 0, 0, 0
	for _, e := range entries {
		if e.Type().IsDir() && oldNamed(e.Name()) {
			old++
			continue
		}
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
		log.Info("removed model and sample catalog folders left by servers that ended (killed or crashed)", "dir", dir, "removed", removed, "failed", failed)
	}
	if old > 0 {
		log.Info("folders of earlier versions of the server are in the temporary folder; they are not removed, as nothing tells whether their server still runs", "dir", dir, "count", old,
			"hint", "once no server of an earlier version runs, remove them: rm -rf "+filepath.Join(dir, leftoverPrefix)+"[0-9]* "+filepath.Join(dir, samplesPrefix)+"[0-9]* (folders named after a process, with three parts, are removed at start)")
	}
	return removed
}
