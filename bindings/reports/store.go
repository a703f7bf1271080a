package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ErrInvalidID is returned (wrapped) for an id that may not name a report file.
var ErrInvalidID = errors.New("invalid report id")

// ValidID reports whether id may name a report file: 1 to 128 letters, digits, '.', '_'
// or '-', starting with a letter or digit. Such an id never contains a path separator
// and never starts with a dot, so "<id>.json" always stays inside its directory.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// FileName returns the file name of the report with the given id, "<id>.json".
func FileName(id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("%w %q: use 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", ErrInvalidID, id)
	}
	return id + ".json", nil
}

// Parse validates data against the Report schema and the rules a schema cannot express
// (every table row has one cell per column), and decodes it. A lifecycleStatus in the
// data is dropped: lifecycle belongs to the server. Errors are *ValidationError.
func Parse(data []byte) (*Report, error) {
	if len(data) > MaxReportSize {
		return nil, &ValidationError{Problems: []string{fmt.Sprintf("file is %d bytes, more than the %d allowed", len(data), MaxReportSize)}}
	}
	if err := ValidateJSON(SchemaReport, data); err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, &ValidationError{Problems: []string{err.Error()}}
	}
	if err := r.checkRules(); err != nil {
		return nil, err
	}
	r.LifecycleStatus = ""
	return &r, nil
}

// Validate checks r as [Parse] would check its JSON encoding.
func (r *Report) Validate() error {
	data, err := json.Marshal(r)
	if err != nil {
		return &ValidationError{Problems: []string{err.Error()}}
	}
	_, err = Parse(data)
	return err
}

func (r *Report) checkRules() error {
	var problems []string
	for i, s := range r.Sections {
		if s.Type != SectionTable {
			continue
		}
		for j, row := range s.Rows {
			if len(row) != len(s.Columns) {
				problems = append(problems, fmt.Sprintf("at /sections/%d/rows/%d: row has %d cells, want %d (one per column)", i, j, len(row), len(s.Columns)))
			}
		}
	}
	if len(problems) > 0 {
		return &ValidationError{Problems: problems}
	}
	return nil
}

// ContentHash returns a hex SHA-256 of r's canonical JSON without its lifecycle status.
// It changes when the report's content changes, not when its file is merely reformatted.
func ContentHash(r *Report) string {
	c := *r
	c.LifecycleStatus = ""
	c.UpdatedAt = c.UpdatedAt.UTC()
	b, err := json.Marshal(c)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Diagnostic says why a file in a reports directory was skipped.
type Diagnostic struct {
	// File is the file's path.
	File string `json:"file"`
	// Message explains the problem.
	Message string `json:"message"`
}

// String formats d as "file: message".
func (d Diagnostic) String() string { return d.File + ": " + d.Message }

// LoadedReport is a valid report read from a file.
type LoadedReport struct {
	Report *Report
	// File is the path the report was read from.
	File string
}

// IsReportFile reports whether a directory entry name is considered a report file: it
// ends in ".json" and does not start with "." (temporary files of atomic writes do).
func IsReportFile(name string) bool {
	return strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".")
}

// SkipReason says why a directory entry with a report file name is not read, from its
// type bits (fs.DirEntry.Type, or the Mode of an Lstat): "" for a regular file, else a
// sentence for a Diagnostic. Symbolic links are not followed (a report directory
// cannot pull in files from elsewhere), named pipes and devices are never opened (a
// read could block forever), directories and sockets hold no report
// (LoadDir and the reports-server skip directories without a Diagnostic).
func SkipReason(mode fs.FileMode) string {
	switch t := mode.Type(); {
	case t == 0:
		return ""
	case t&fs.ModeSymlink != 0:
		return "skipped: a symbolic link (links are not followed; copy or publish the report into the directory)"
	case t&fs.ModeNamedPipe != 0:
		return "skipped: a named pipe (FIFO), not a regular file"
	case t&fs.ModeDir != 0:
		return "skipped: a directory, not a report file"
	case t&fs.ModeSocket != 0:
		return "skipped: a socket, not a regular file"
	case t&fs.ModeDevice != 0:
		return "skipped: a device, not a regular file"
	}
	return "skipped: not a regular file"
}

// LoadDir reads every report file (see [IsReportFile]) directly inside dir. Invalid
// files, and entries that are not regular files (see [SkipReason]), are skipped, each
// with a Diagnostic. When two files carry the same id, the one
// named "<id>.json" wins, otherwise the first by name; the other gets a Diagnostic.
// Results are ordered by file name. The error is non-nil only when dir cannot be read.
func LoadDir(dir string) ([]LoadedReport, []Diagnostic, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var (
		loaded []LoadedReport
		diags  []Diagnostic
	)
	for _, e := range entries {
		if !IsReportFile(e.Name()) || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if why := SkipReason(e.Type()); why != "" {
			diags = append(diags, Diagnostic{File: path, Message: why})
			continue
		}
		r, err := LoadFile(path)
		if err != nil {
			diags = append(diags, Diagnostic{File: path, Message: err.Error()})
			continue
		}
		loaded = append(loaded, LoadedReport{Report: r, File: path})
	}
	loaded, dup := Dedupe(loaded)
	return loaded, append(diags, dup...), nil
}

// Dedupe keeps one report per id (the one in "<id>.json", else the first by file name)
// and returns a Diagnostic for each file it drops. The result is ordered by file name.
func Dedupe(in []LoadedReport) ([]LoadedReport, []Diagnostic) {
	sort.SliceStable(in, func(i, j int) bool { return in[i].File < in[j].File })
	winner := map[string]int{}
	for i, l := range in {
		w, ok := winner[l.Report.ID]
		if !ok || (filepath.Base(l.File) == l.Report.ID+".json" && filepath.Base(in[w].File) != l.Report.ID+".json") {
			winner[l.Report.ID] = i
		}
	}
	var out []LoadedReport
	var diags []Diagnostic
	for i, l := range in {
		w := winner[l.Report.ID]
		if w == i {
			out = append(out, l)
			continue
		}
		diags = append(diags, Diagnostic{File: l.File, Message: fmt.Sprintf("duplicate id %q: %s is used instead", l.Report.ID, in[w].File)})
	}
	return out, diags
}

// LoadFile reads and validates one report file.
func LoadFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxReportSize+1))
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// FindReport returns the valid report with the given id in dir, or (nil, nil) when
// there is none. It looks at "<id>.json" first, then at every other report file.
func FindReport(dir, id string) (*Report, error) {
	name, err := FileName(id)
	if err != nil {
		return nil, err
	}
	r, err := LoadFile(filepath.Join(dir, name))
	if err == nil && r.ID == id {
		return r, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		var ve *ValidationError
		if !errors.As(err, &ve) {
			return nil, err
		}
	}
	loaded, _, err := LoadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	for _, l := range loaded {
		if l.Report.ID == id {
			return l.Report, nil
		}
	}
	return nil, nil
}

// Encode returns r as indented JSON with a final newline, the form written to disk.
// The lifecycle status is left out.
func Encode(r *Report) ([]byte, error) {
	c := *r
	c.LifecycleStatus = ""
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// WriteReport validates r and writes it atomically to dir/<id>.json, creating dir if
// needed. It returns the file's path.
func WriteReport(dir string, r *Report) (string, error) {
	name, err := FileName(r.ID)
	if err != nil {
		return "", err
	}
	if err := r.Validate(); err != nil {
		return "", err
	}
	data, err := Encode(r)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if err := WriteFileAtomic(path, data, 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// Publish validates every file first and, only when all are valid, writes each report
// atomically to dir/<id>.json. It returns the paths written. Two files with the same id
// are an error.
func Publish(dir string, files ...string) ([]string, error) {
	if len(files) == 0 {
		return nil, errors.New("publish: no files given")
	}
	rs := make([]*Report, 0, len(files))
	seen := map[string]string{}
	var problems []string
	for _, f := range files {
		r, err := LoadFile(f)
		if err != nil {
			problems = append(problems, f+": "+err.Error())
			continue
		}
		if _, err := FileName(r.ID); err != nil {
			problems = append(problems, f+": "+err.Error())
			continue
		}
		if prev, ok := seen[r.ID]; ok {
			problems = append(problems, fmt.Sprintf("%s: id %q is also used by %s", f, r.ID, prev))
			continue
		}
		seen[r.ID] = f
		rs = append(rs, r)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("publish: nothing written:\n  %s", strings.Join(problems, "\n  "))
	}
	paths := make([]string, 0, len(rs))
	for _, r := range rs {
		p, err := WriteReport(dir, r)
		if err != nil {
			return paths, fmt.Errorf("publish: %s: %w", r.ID, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// WriteFileAtomic writes data to path so that a reader or a crash sees either the old
// content or the new, never a mix: it writes a temporary file in the same directory
// (named ".<base>.tmp-*", which [IsReportFile] ignores), syncs it, renames it over path
// and syncs the directory.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable. Platforms that cannot sync a directory
// (Windows) report an error that is ignored.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) && !isUnsupported(err) {
		return err
	}
	return nil
}

func isUnsupported(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(strings.ToLower(pe.Err.Error()), "not supported")
}
