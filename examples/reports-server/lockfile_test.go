package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestLockFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	l, err := lockFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatalf("no lock file while held: %v", err)
	}
	l.unlock()
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Fatalf("lock file left after unlock: %v", err)
	}

	// A lock left by a process that is gone is broken at once.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path+".lock", fmt.Appendf(nil, "pid %d token dead\n", cmd.Process.Pid), 0o600)
	start := time.Now()
	l, err = lockFile(path)
	if err != nil || time.Since(start) > 2*time.Second {
		t.Fatalf("lock of a dead process not broken: %v after %v", err, time.Since(start))
	}
	// Another holder's release does not remove a lock it no longer owns.
	stale := &fileLock{path: path + ".lock", token: "pid 1 token someone-else"}
	stale.unlock()
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatal("a foreign unlock removed the lock")
	}
	l.unlock()

	// An empty lock file (its holder died before writing its pid) is broken after a
	// second, not after lockStaleAfter.
	os.WriteFile(path+".lock", nil, 0o600)
	breakStale(path+".lock", time.Now())
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatal("a fresh empty lock was broken")
	}
	breakStale(path+".lock", time.Now().Add(lockEmptyGrace+100*time.Millisecond))
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Fatalf("an abandoned empty lock was kept: %v", err)
	}

	// A lock of a live process is respected until it is older than lockStaleAfter.
	os.WriteFile(path+".lock", fmt.Appendf(nil, "pid %d token live\n", os.Getppid()), 0o600)
	breakStale(path+".lock", time.Now())
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Fatal("a live process's fresh lock was broken")
	}
	breakStale(path+".lock", time.Now().Add(lockStaleAfter+time.Second))
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Fatalf("an expired lock was kept: %v", err)
	}
	if left, _ := filepath.Glob(path + ".lock.stale-*"); len(left) != 0 {
		t.Errorf("breaking left %v", left)
	}
}
