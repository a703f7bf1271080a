package catalog

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// MaxWatchedFiles bounds the work of one Fingerprint: a catalog with more files than
// this is fingerprinted on its first MaxWatchedFiles (in walk order) only.
const MaxWatchedFiles = 200_000

// RacyWindow, RacyAhead and RacyMaxSize: a file whose modification time is
// less than RacyWindow before the start of a walk (or at most RacyAhead after
// the moment the walk looks at it: a file system whose clock is a little ahead
// of the server's, or a file saved during a long walk) is "racy",
// as git says of its index: the file system stamps times with a coarse clock
// (a few ms on ext4, 1 or 2 s on some file systems), so a write after the walk
// can leave the same size and time. FileIDs keeps a hash of the content of
// each racy regular file of RacyMaxSize bytes or fewer, and the next walk that
// finds its size and time unchanged reads it again: other content is a change,
// as a file replaced by another. A file that stops being racy changes nothing
// (any later write moves its time past the one seen); a racy file over
// RacyMaxSize (a data file) is not read, and a rewrite of it in place that
// keeps its size and times (its change time too: within one tick of the
// clock, or where the change time is not read) is not seen (touch it): reading it again on each
// edit would load every edit of a large data file twice.
//
// A file dated further ahead (a catalog unpacked from an archive made on a
// machine whose clock was ahead) is not racy: a writer stamps the present, so
// it would stay racy until the clock caught up, and be read at every walk.
// Nor is a rewrite of it that keeps its size and time seen.
//
// RacyBudget bounds the bytes one walk reads to hash racy files: a racy file
// that does not fit in what is left of it is not read, as a file over
// RacyMaxSize (a file hashed at an earlier walk keeps that hash, compared at a
// later walk that has room). The catalog's own files, those Load reads (a
// project's project.json; in a folder with a manifest.json, that file and the
// .sql and .md files Load reads as models and notebooks: that exact case, a
// valid name, not README.md), are hashed first from RacyOwnBudget, so that data files
// written at the same time cannot hide an edit of them; past it they count
// against RacyBudget as data files. One walk reads at most RacyOwnBudget +
// RacyBudget bytes.
const (
	RacyWindow    = 2 * time.Second
	RacyAhead     = 5 * time.Second
	RacyMaxSize   = 1 << 20
	RacyBudget    = 64 << 20
	RacyOwnBudget = 16 << 20
)

// FileIDs tells, from one walk of a folder to the next, whether the file or
// folder at a path is still the same one (os.SameFile), and numbers each: the
// number of a path stays while the same file is there unchanged, and a file that
// replaced another at that path (renamed over it, or a folder swapped with
// another) gets a new number, even with the same name, size and modification
// time. A file rewritten in place gets a new number when a walk finds its
// size, modification time, mode or change time (ctime, where the system has
// one: Linux, macOS, the BSDs, illumos; the system
// sets it at every write, chmod or change of times, and no program sets it
// back) changed, or, racy (RacyWindow) at the walk before,
// its content changed while its size and times stayed the same: so a path's
// size, time and number never come back to those a walk saw with other
// content (a file truncated and written again within one tick of the clock,
// seen empty in between, is a change when it is back to its size and time).
// It holds the os.FileInfo of each path of the last walk (a few hundred bytes
// each) and the hash of each racy file's content (32 bytes). The zero value is ready; not safe for concurrent use.
type FileIDs struct {
	last, cur map[string]fileID
	n         uint64
	start     time.Time               // the start of the current walk (Begin)
	root      string                  // the catalog folder walked (BeginIn), to tell its own files
	now       func() time.Time        // time.Now when nil (tests set it)
	ctime     func(fs.FileInfo) int64 // changeTime when nil (tests set it: a clock too coarse to move it)
	budget    int64                   // RacyBudget when 0 (tests set it)
	read      int64                   // the bytes the current walk hashed from budget
	ownBudget int64                   // RacyOwnBudget when 0 (tests set it)
	ownRead   int64                   // the bytes the current walk hashed from ownBudget
	// packages tells, for each package folder the current walk met, whether
	// it holds a manifest.json (one entry per folder walked: at most
	// MaxWatchedFiles).
	packages map[string]bool
}

type fileID struct {
	info    fs.FileInfo
	num     uint64
	sum     [sha256.Size]byte // the content's hash, when hashed
	hashed  bool              // racy at the walk that made this entry, and hashed
	skipped bool              // racy at that walk, and not hashed: past the walk's budget
}

// Begin starts a walk: files modified less than RacyWindow before now are racy.
// ID calls it when a walk did not. Every file counts against RacyBudget.
func (f *FileIDs) Begin() { f.BeginIn("") }

// BeginIn is Begin for a walk of the catalog folder root (as Load reads it,
// symbolic links resolved): the catalog's own files under it (those Load
// reads) are hashed outside RacyBudget.
func (f *FileIDs) BeginIn(root string) {
	f.start = f.clock()
	f.root = root
	f.cur = make(map[string]fileID, len(f.last))
	f.read, f.ownRead = 0, 0
	f.packages = nil
}

// clock is the time now (f.now in tests).
func (f *FileIDs) clock() time.Time {
	if f.now != nil {
		return f.now()
	}
	return time.Now()
}

// ownFile says whether Load reads the file at path, under the walk's root, as
// far as its path and its folder tell: a project's project.json, or in a
// package folder (one with a manifest.json) that file, or a model or notebook
// file (modelFileName) whose name Load accepts. Project and package folders
// must have valid names too.
func (f *FileIDs) ownFile(path string) bool {
	if f.root == "" {
		return false
	}
	rel, err := filepath.Rel(f.root, path)
	if err != nil {
		return false
	}
	parts := strings.Split(rel, string(filepath.Separator))
	if len(parts) < 2 || !validName.MatchString(parts[0]) {
		return false
	}
	switch len(parts) {
	case 2:
		return parts[1] == "project.json"
	case 3:
		if !validName.MatchString(parts[1]) {
			return false
		}
		if parts[2] == "manifest.json" {
			return true
		}
		if base, ext := modelFileName(parts[2]); ext == "" || !validName.MatchString(base) {
			return false
		}
		return f.isPackage(filepath.Dir(path))
	}
	return false
}

// isPackage says whether the folder dir holds a manifest.json (as Load reads
// it, following a symbolic link), asking once per walk.
func (f *FileIDs) isPackage(dir string) bool {
	is, ok := f.packages[dir]
	if !ok {
		_, err := os.Stat(filepath.Join(dir, "manifest.json"))
		is = err == nil
		if f.packages == nil {
			f.packages = map[string]bool{}
		}
		f.packages[dir] = is
	}
	return is
}

// ID numbers the file at path, whose os.FileInfo (from os.Lstat or a
// fs.DirEntry of os.ReadDir or filepath.WalkDir) is info, in the current walk.
func (f *FileIDs) ID(path string, info fs.FileInfo) uint64 {
	if f.cur == nil {
		f.Begin()
	}
	// Where the file's identity is read lazily (some Windows file systems),
	// read it now, while this file is at path.
	os.SameFile(info, info)
	id, ok := f.last[path]
	// A file whose size or time changed since the walk before gets a new
	// number too: a writer that truncates the file and writes it again within
	// one tick of the clock can be seen between the two (size 0, or a part
	// written, with the time still the one before), and the file's next
	// size and time may be those of the walk before that. Its number then
	// tells the content apart, and no path's size, time and number come
	// back to a set seen with other content.
	//
	// The change time tells a file rewritten in place (cp -a over it) or
	// removed and created again with the inode just freed (tar's extraction:
	// os.SameFile cannot tell) when its size and modification time are given
	// back, and a chmod.
	same := ok && f.sameStat(id.info, info)
	var sum [sha256.Size]byte
	var hashed, kept bool
	if same && id.hashed {
		// Racy at the walk before, and still the same size and time: the
		// content tells whether it was written again since. Past the budget,
		// the hash stays for a later walk to compare.
		if f.fitsFor(path, info) {
			sum, hashed = hashFile(path, info)
			same = hashed && sum == id.sum
		} else {
			sum, kept = id.sum, true
		}
	}
	if !same {
		f.n++
		id.num = f.n
	}
	id.info, id.hashed, id.skipped = info, kept, kept
	if !kept && f.racy(info) {
		if !hashed {
			if f.fitsFor(path, info) {
				sum, hashed = hashFile(path, info)
			} else {
				id.skipped = true
			}
		}
		id.sum, id.hashed = sum, hashed
	}
	f.cur[path] = id
	return id.num
}

// sameStat says a and b tell of the same file (os.SameFile) with the same
// size, modification time, mode and change time.
func (f *FileIDs) sameStat(a, b fs.FileInfo) bool {
	ctime := changeTime
	if f.ctime != nil {
		ctime = f.ctime
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) &&
		a.Mode() == b.Mode() && ctime(a) == ctime(b)
}

// racy says whether the file info tells of is racy at the current walk: a
// regular file of RacyMaxSize bytes or fewer, dated from RacyWindow before the
// walk's start to RacyAhead after now (a file saved during a long walk is
// dated past its start).
func (f *FileIDs) racy(info fs.FileInfo) bool {
	t := info.ModTime()
	return info.Mode().IsRegular() && info.Size() <= RacyMaxSize &&
		t.After(f.start.Add(-RacyWindow)) && !t.After(f.clock().Add(RacyAhead))
}

// fitsFor takes the size of the file at path, which info tells of, from what
// is left of the walk's budget for hashing: for one of the catalog's own files
// (ownFile, asked only here: for a file about to be hashed), from
// RacyOwnBudget, or else from RacyBudget; for another file, from RacyBudget.
// It says whether it fitted.
func (f *FileIDs) fitsFor(path string, info fs.FileInfo) bool {
	n := min(max(info.Size(), 0), RacyMaxSize+1)
	if f.ownFile(path) && take(&f.ownRead, n, cmp.Or(f.ownBudget, RacyOwnBudget)) {
		return true
	}
	return take(&f.read, n, cmp.Or(f.budget, RacyBudget))
}

// take adds n to *read if that keeps it within budget, and says whether it did.
func take(read *int64, n, budget int64) bool {
	if *read+n > budget {
		return false
	}
	*read += n
	return true
}

// hashFile hashes the content of the regular file at path, if it is still the
// file info tells of (never waiting on a named pipe put there since).
func hashFile(path string, info fs.FileInfo) (sum [sha256.Size]byte, ok bool) {
	if !info.Mode().IsRegular() {
		return sum, false
	}
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return sum, false
	}
	defer file.Close()
	if st, err := file.Stat(); err != nil || !st.Mode().IsRegular() || !os.SameFile(st, info) {
		return sum, false
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(file, RacyMaxSize+1)); err != nil {
		return sum, false
	}
	h.Sum(sum[:0])
	return sum, true
}

// Learn takes from other, the FileIDs of a walk made after this one's last
// (the walk of a reload that Watch called, made before it read the files),
// what it saw of the racy files both saw with the same size and time: its hash
// (or that the file is racy no more). The next walk then compares a racy file
// with the content the reload read, not with what this walk saw before: a file
// written again within one tick of the clock with the content this walk saw
// (A, B loaded, A again) is seen. A file other did not hash for want of
// budget keeps this walk's hash (a later walk may then see a change that
// loads nothing new, never miss one). A file this walk had no budget for takes
// the hash other took of it.
func (f *FileIDs) Learn(other *FileIDs) {
	for path, id := range f.last {
		o, ok := other.last[path]
		if !ok || o.skipped || !(id.hashed || id.skipped && o.hashed) || !f.sameStat(o.info, id.info) {
			continue
		}
		id.sum, id.hashed, id.skipped = o.sum, o.hashed, false
		f.last[path] = id
	}
}

// Len is the number of paths the last walk kept numbered (the entries
// FileIDs holds).
func (f *FileIDs) Len() int { return len(f.last) }

// Done ends a walk: the next compares with the paths it saw, when whole. A
// walk that could not read the folder it walks (whole false: gone, renamed
// away for a moment) is forgotten: the next compares with the walk before, and
// the files it missed are not new. A walk that skipped a folder under it that
// it could not read is whole: the files it did not see are forgotten, and new
// when a walk sees them again (a change that may load nothing new, never one
// missed).
func (f *FileIDs) Done(whole bool) {
	if whole {
		f.last = f.cur
	}
	f.cur = nil
}

// Fingerprint summarises the names, sizes, modification times and modes of the files under
// dir that a catalog is made of: every folder, and every file of a package (its
// manifest, models, notebooks and data), and each project's project.json; not
// hidden ones, nor the other files at the top two levels, which Load never reads (a
// server's log written into the catalog folder would otherwise reload it at every
// poll). dir may be a symbolic link to the catalog folder (as Load allows). A
// folder under dir that cannot be read (lost+found, a folder of another user)
// counts with its error, and the walk goes on; only dir itself unread is an
// error.
//
// Two fingerprints of folders swapped with copies that keep their names, sizes
// and times are the same, and so are two of a file rewritten in place with the
// same size and time: Watch also tells such files apart (FileIDs).
func Fingerprint(dir string) (string, error) {
	return fingerprint(dir, nil)
}

// fingerprint is Fingerprint with, when ids is not nil, each file's number in
// ids (which it ends the walk of, unless the walk failed).
func fingerprint(dir string, ids *FileIDs) (string, error) {
	h := sha256.New()
	n := 0
	// WalkDir does not follow a root that is a symbolic link: it would report
	// the link alone, and no change below it would ever be seen.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if ids != nil {
		ids.BeginIn(dir)
	}
	err := walkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir {
				return err
			}
			// A folder that cannot be read (WalkDir's second call for it):
			// its error is part of the fingerprint, and the walk goes on.
			fmt.Fprintf(h, "%s\x00unreadable\x00%s\n", path, err)
			return nil
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			switch rel, _ := filepath.Rel(dir, path); strings.Count(rel, string(filepath.Separator)) {
			case 0:
				return nil // beside the projects
			case 1:
				if d.Name() != "project.json" {
					return nil // beside a project's packages
				}
			}
		}
		if n++; n > MaxWatchedFiles {
			return filepath.SkipAll
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed while walking: the next poll sees it
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s", path, info.Size(), info.ModTime().UnixNano(), info.Mode())
		if ids != nil {
			fmt.Fprintf(h, "\x00%d", ids.ID(path, info))
		}
		h.Write([]byte{'\n'})
		return nil
	})
	if ids != nil {
		ids.Done(err == nil)
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Watch polls dir every interval and calls reload when its fingerprint changed,
// or a file or folder was replaced by another at the same path (FileIDs: a
// folder swapped with a copy that keeps its names, sizes and times), or a
// file's change time moved (FileIDs: rewritten in place, chmod-ed), or a racy
// file's content changed with its size and times (RacyWindow), until ctx
// ends. The first fingerprint is taken at once and does not call reload. It
// runs on the caller's goroutine, and holds each watched file's os.FileInfo
// (MaxWatchedFiles at most) and each racy file's hash.
func Watch(ctx context.Context, dir string, interval time.Duration, reload func()) {
	WatchFrom(ctx, dir, interval, func(_ *FileIDs, first bool) error {
		if !first {
			reload()
		}
		return nil
	})
}

// WatchFrom is Watch for a reload that walks the files itself, with its own
// FileIDs, before it reads them: reload gets the watch's FileIDs, to Learn from
// its own once it has read the files, so that the two agree on what the files
// held when they were read.
//
// reload is called once right after the first fingerprint, with first true:
// the files may have changed since its owner read them (a server reads its
// catalog, then waits for its packages to load before it watches), and
// reload reads them again if so. A reload that returns an error is called
// again at the next poll, changed or not, until one succeeds: a change is
// never lost to a read that failed (the catalog folder renamed away for a
// moment, too many open files).
func WatchFrom(ctx context.Context, dir string, interval time.Duration, reload func(watch *FileIDs, first bool) error) {
	var ids FileIDs
	last, _ := fingerprint(dir, &ids)
	failed := reload(&ids, true) != nil
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fp, err := fingerprint(dir, &ids)
		if err != nil || fp == last && !failed {
			continue
		}
		last = fp
		failed = reload(&ids, false) != nil
	}
}

// walkDir is filepath.WalkDir; tests make a folder unreadable through it, as
// one of another user is (root reads every folder).
var walkDir = filepath.WalkDir
