package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"
)

// Several reports-server processes may share one data directory (an HTTP inbox and a
// client-launched -stdio instance, say). Each read-modify-write of a shared file runs
// under a lock file: "<file>.lock", created with O_CREATE|O_EXCL, which the operating
// system makes atomic on every platform Go supports, and removed when the write is done.
// No system-specific locking call is used.
//
// A holder keeps the lock for one read, one atomic write and one fsync — milliseconds.
// A lock file whose process (its first line names the pid) no longer exists, or that
// is older than lockStaleAfter, is therefore taken to be left behind by a process that
// died while holding it, and is broken: renamed to a private name (only
// one of several breakers can win that rename), checked to be the stale file it was
// judged to be, and removed. A live holder slower than lockStaleAfter could lose its
// lock that way; the write it then makes is still atomic, and the worst outcome is the
// lost update the lock exists to prevent, not a damaged file.
const (
	// lockStaleAfter is the age at which a lock file is considered abandoned.
	lockStaleAfter = 10 * time.Second
	// lockEmptyGrace is the age at which a lock file still without its holder's pid
	// is considered abandoned.
	lockEmptyGrace = time.Second
	// lockWait is how long an update waits for the lock before failing.
	lockWait = 5 * time.Second
)

// errLocked is returned (wrapped) when the lock stayed held for lockWait.
var errLocked = errors.New("locked by another process")

// fileLock is a held lock file.
type fileLock struct {
	path  string
	token string
}

// lockFile takes the lock for path (the lock file is path+".lock"), waiting while
// another process holds it, for at most lockWait.
func lockFile(path string) (*fileLock, error) {
	lockPath := path + ".lock"
	var tb [12]byte
	rand.Read(tb[:])
	token := fmt.Sprintf("pid %d token %s", os.Getpid(), hex.EncodeToString(tb[:]))
	deadline := time.Now().Add(lockWait)
	backoff := time.Millisecond
	for {
		f, err := os.OpenFile(lockPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			_, werr := f.WriteString(token + "\n")
			cerr := f.Close()
			if werr != nil || cerr != nil {
				os.Remove(lockPath)
				return nil, fmt.Errorf("lock %s: %w", lockPath, errors.Join(werr, cerr))
			}
			return &fileLock{path: lockPath, token: token}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock %s: %w", lockPath, err)
		}
		breakStale(lockPath, time.Now())
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: %w for %v (if no reports-server is running, remove %s)", path, errLocked, lockWait, lockPath)
		}
		time.Sleep(backoff)
		backoff = min(2*backoff, 50*time.Millisecond)
	}
}

// breakStale removes the lock file at lockPath if its process is gone or it is older
// than lockStaleAfter.
func breakStale(lockPath string, now time.Time) {
	info, err := os.Stat(lockPath)
	if err != nil {
		return
	}
	if age := now.Sub(info.ModTime()); age < lockStaleAfter {
		data, err := os.ReadFile(lockPath)
		if err != nil {
			return
		}
		// A holder writes its pid right after creating the file; an empty file older
		// than a second was left by a process that died in between.
		var pid int
		if len(data) == 0 {
			if age < lockEmptyGrace {
				return
			}
		} else if _, err := fmt.Sscanf(string(data), "pid %d", &pid); err != nil || pid == os.Getpid() || !processGone(pid) {
			return
		}
	}
	var rb [8]byte
	rand.Read(rb[:])
	private := lockPath + ".stale-" + hex.EncodeToString(rb[:])
	if os.Rename(lockPath, private) != nil {
		return // another process broke it first, or it was released
	}
	moved, err := os.Stat(private)
	if err == nil && !os.SameFile(info, moved) {
		// Between the Stat and the Rename the stale lock was broken by another process
		// and a fresh one taken: put the fresh one back unless a newer one exists.
		os.Link(private, lockPath)
	}
	os.Remove(private)
}

// processGone reports whether no process with the given pid exists. Where that cannot
// be told (signal 0 is not supported everywhere), it says false, and the lock's age
// decides.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	err = p.Signal(syscall.Signal(0))
	return errors.Is(err, os.ErrProcessDone) || errors.Is(err, syscall.ESRCH)
}

// unlock releases the lock if this holder still owns it.
func (l *fileLock) unlock() {
	data, err := os.ReadFile(l.path)
	if err == nil && strings.TrimSpace(string(data)) == l.token {
		os.Remove(l.path)
	}
}
