package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// cmdCheck validates every report file in a directory, prints one line per file and
// exits 1 when any file is invalid.
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, "usage: reports-server check DIR") }
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	dir := fs.Arg(0)
	loaded, diags, err := reports.LoadDir(dir)
	if err != nil {
		fmt.Fprintf(stderr, "check: %v\n", err)
		return 2
	}
	for _, l := range loaded {
		fmt.Fprintf(stdout, "ok       %s (id %s, %s)\n", l.File, l.Report.ID, l.Report.Status)
	}
	for _, d := range diags {
		fmt.Fprintf(stdout, "INVALID  %s\n", d.File)
		msg := strings.TrimPrefix(d.Message, "invalid report: ")
		for _, p := range strings.Split(msg, "; ") {
			fmt.Fprintf(stdout, "         %s\n", p)
		}
	}
	fmt.Fprintf(stdout, "%d valid, %d invalid\n", len(loaded), len(diags))
	if len(diags) > 0 {
		return 1
	}
	return 0
}

// cmdPublish validates the given files and, if all are valid, writes each atomically
// into the reports directory as <id>.json.
func cmdPublish(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("publish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "the reports `DIR` to publish into (required)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: reports-server publish -dir DIR FILE...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dir == "" || fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	paths, err := reports.Publish(*dir, fs.Args()...)
	for _, p := range paths {
		fmt.Fprintf(stdout, "published %s\n", p)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	return 0
}

// cmdImport converts producer output into a report. Only "gotest" (go test -json on
// stdin) exists.
func cmdImport(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "gotest" {
		fmt.Fprintln(stderr, "usage: reports-server import gotest -dir DIR [-id ID] [-title TITLE] [-category C] [-source S] < go-test.json")
		return 2
	}
	fs := flag.NewFlagSet("import gotest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "the reports `DIR` to write into (required)")
	id := fs.String("id", "go-tests", "report `ID`; the previous report with this id supplies previousValue")
	title := fs.String("title", "Go tests", "report `TITLE`")
	category := fs.String("category", "quality", "report `CATEGORY`")
	source := fs.String("source", "go test", "report `SOURCE`")
	tags := fs.String("tags", "go", "comma-separated `TAGS`")
	if err := fs.Parse(args[1:]); err != nil {
		return 2
	}
	if *dir == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: reports-server import gotest -dir DIR [-id ID] [-title TITLE] [-category C] [-source S] < go-test.json")
		return 2
	}
	prev, err := reports.FindReport(*dir, *id)
	if err != nil && !errors.Is(err, reports.ErrInvalidID) {
		fmt.Fprintf(stderr, "import: reading the previous report: %v\n", err)
		return 1
	}
	var tagList []string
	for _, t := range strings.Split(*tags, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tagList = append(tagList, t)
		}
	}
	if tagList == nil {
		tagList = []string{}
	}
	r, err := reports.ImportGoTest(stdin, reports.GoTestOptions{
		ID: *id, Title: *title, Category: *category, Source: *source, Tags: tagList, Previous: prev,
	})
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
		return 1
	}
	p, err := reports.WriteReport(*dir, r)
	if err != nil {
		fmt.Fprintf(stderr, "import: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %s — %s\n", filepath.Clean(p), r.Status, r.Summary)
	return 0
}
