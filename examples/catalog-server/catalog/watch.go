package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"
)

// maxWatchedFiles bounds the work of one Fingerprint: a catalog with more files than
// this is fingerprinted on its first maxWatchedFiles (in walk order) only.
const maxWatchedFiles = 200_000

// Fingerprint summarises the names, sizes and modification times of the files under
// dir that a catalog is made of: every folder, and every file of a package (its
// manifest, models, notebooks and data), and each project's project.json; not
// hidden ones, nor the other files at the top two levels, which Load never reads (a
// server's log written into the catalog folder would otherwise reload it at every
// poll). dir may be a symbolic link to the catalog folder (as Load allows).
func Fingerprint(dir string) (string, error) {
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
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%t\n", path, info.Size(), info.ModTime().UnixNano(), d.IsDir())
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Watch polls dir every interval and calls reload when its fingerprint changed,
// until ctx ends. The first fingerprint is taken at once and does not call reload.
// It runs on the caller's goroutine.
func Watch(ctx context.Context, dir string, interval time.Duration, reload func()) {
	last, _ := Fingerprint(dir)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		fp, err := Fingerprint(dir)
		if err != nil || fp == last {
			continue
		}
		last = fp
		reload()
	}
}
