package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxWatchedFiles bounds the work of one Fingerprint: a catalog with more files than
// this is fingerprinted on its first maxWatchedFiles (in walk order) only.
const maxWatchedFiles = 200_000

// FileIDs tells, from one walk of a folder to the next, whether the file or
// folder at a path is still the same one (os.SameFile), and numbers each: the
// number of a path stays while the same file is there, and a file that
// replaced another at that path (renamed over it, or a folder swapped with
// another) gets a new number, even with the same name, size and modification
// time. A file rewritten in place keeps its number. It holds the os.FileInfo of
// each path of the last walk (a few hundred bytes each). The zero value is
// ready; not safe for concurrent use.
type FileIDs struct {
	last, cur map[string]fileID
	n         uint64
}

type fileID struct {
	info fs.FileInfo
	num  uint64
}

// ID numbers the file at path, whose os.FileInfo (from os.Lstat or a
// fs.DirEntry of os.ReadDir or filepath.WalkDir) is info, in the current walk.
func (f *FileIDs) ID(path string, info fs.FileInfo) uint64 {
	if f.cur == nil {
		f.cur = make(map[string]fileID, len(f.last))
	}
	// Where the file's identity is read lazily (some Windows file systems),
	// read it now, while this file is at path.
	os.SameFile(info, info)
	id, ok := f.last[path]
	if !ok || !os.SameFile(id.info, info) {
		f.n++
		id.num = f.n
	}
	id.info = info
	f.cur[path] = id
	return id.num
}

// Done ends a walk: the next compares with the paths it saw. A walk that did
// not see every file (whole false: a folder could not be read) is forgotten:
// the next compares with the walk before, and a file it missed is not taken
// for a new one.
func (f *FileIDs) Done(whole bool) {
	if whole {
		f.last = f.cur
	}
	f.cur = nil
}

// Fingerprint summarises the names, sizes and modification times of the files under
// dir that a catalog is made of: every folder, and every file of a package (its
// manifest, models, notebooks and data), and each project's project.json; not
// hidden ones, nor the other files at the top two levels, which Load never reads (a
// server's log written into the catalog folder would otherwise reload it at every
// poll). dir may be a symbolic link to the catalog folder (as Load allows).
//
// Two fingerprints of folders swapped with copies that keep their names, sizes
// and times are the same: Watch also tells such files apart (FileIDs).
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
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
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
		if n++; n > maxWatchedFiles {
			return filepath.SkipAll
		}
		info, err := d.Info()
		if err != nil {
			return nil // removed while walking: the next poll sees it
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%t", path, info.Size(), info.ModTime().UnixNano(), d.IsDir())
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
// folder swapped with a copy that keeps its names, sizes and times), until ctx
// ends. The first fingerprint is taken at once and does not call reload. It
// runs on the caller's goroutine, and holds each watched file's os.FileInfo
// (maxWatchedFiles at most).
func Watch(ctx context.Context, dir string, interval time.Duration, reload func()) {
	var ids FileIDs
	last, _ := fingerprint(dir, &ids)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fp, err := fingerprint(dir, &ids)
		if err != nil || fp == last {
			continue
		}
		last = fp
		reload()
	}
}
