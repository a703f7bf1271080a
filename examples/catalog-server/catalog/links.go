package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinkScan bounds the entries OutsideLinks looks at in one package folder;
// maxLinksNamed, the links it names.
const (
	maxLinkScan   = 200_000
	maxLinksNamed = 10
)

// Within reports whether the clean absolute path p is dir or below it.
func Within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// OutsideLinks returns the symbolic links under the folder dir (hidden ones
// too) whose target, every link on its way resolved, is outside dir (dir's own
// links resolved): "data/shared -> /srv/shared", relative to dir, at most
// maxLinksNamed of them. A link to a target that does not exist counts by
// where its target would be. It walks at most maxLinkScan entries, with
// Lstat alone: links to folders are not followed, nothing is opened but
// folders. complete is false when the walk stopped at maxLinkScan entries or
// links.
//
// DuckDB checks a glob pattern's fixed part and the files it opens against
// allowed_directories, not each name the pattern matches: a pattern with a
// wildcard in a link's place (data/l*/*) lists the folder the link leads to.
func OutsideLinks(dir string) (links []string, complete bool, err error) {
	real, err := filepath.Abs(dir)
	if err == nil {
		real, err = filepath.EvalSymlinks(real)
	}
	if err != nil {
		return nil, false, err
	}
	n := 0
	complete = true
	err = filepath.WalkDir(real, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: DuckDB cannot list it either
		}
		if n++; n > maxLinkScan {
			complete = false
			return filepath.SkipAll
		}
		if d.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		target, _ := os.Readlink(path)
		if to := linkEnd(path); Within(real, to) {
			return nil
		}
		if len(links) == maxLinksNamed {
			complete = false
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(real, path)
		links = append(links, filepath.ToSlash(rel)+" -> "+target)
		return nil
	})
	return links, complete, err
}

// linkEnd returns where the symbolic link at path leads, every link on the way
// resolved; for a target that does not exist, its longest existing parent
// resolved and the rest as written. A loop of links ends where it was found
// (path itself: inside the folder being walked).
func linkEnd(path string) string {
	rest := ""
	p := path
	for i := 0; i < 255; i++ {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return path
		}
		if target, lerr := os.Readlink(p); lerr == nil {
			// A dangling link: follow its target as written.
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			p = filepath.Join(filepath.Clean(target), rest)
			rest = ""
			continue
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
	return path
}

// outsideLinksProblem is the package problem for the links OutsideLinks found.
func outsideLinksProblem(where string, links []string, complete bool) string {
	more := ""
	if !complete {
		more = " (and maybe more: the search stops after " + fmt.Sprint(maxLinksNamed) + " links or " + fmt.Sprint(maxLinkScan) + " entries)"
	}
	return fmt.Sprintf("%s: symbolic links out of the package folder: %s%s; ad-hoc SQL (execute_query with sql) on the package's models is refused while they are there, as a glob pattern through a link to a folder would list the names of files outside the package, and what a link leads to (a file's link too) can change outside the catalog without the server seeing it (its named queries and sources still run); remove the links, or copy the data into the package", where, strings.Join(links, ", "), more)
}
