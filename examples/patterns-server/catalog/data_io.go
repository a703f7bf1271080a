package catalog

func ioPatterns() []Pattern {
	return []Pattern{
		{
			ID: "reader-composition", Title: "Composing io.Reader and io.Writer", Category: IO, Difficulty: Intermediate,
			Tags:        []string{"io", "reader", "writer", "streaming", "interfaces"},
			Description: "Accept io.Reader and io.Writer instead of file names or byte slices, and build behaviour by wrapping one reader in another (gzip, hashing, counting, limiting), so the same code works on files, network connections and buffers.",
			UseWhen:     []string{"Functions process data that could come from anywhere", "Adding a step like compression or checksums to an existing stream"},
			AvoidWhen:   []string{"The data is always small and already in memory as a string"},
			Sections: howAndPitfalls(
				"A wrapper struct embeds or holds the inner reader and implements Read by calling it and post-processing the bytes. io.Copy connects any reader to any writer.",
				"Read may return n > 0 together with an error (including io.EOF); process the n bytes before looking at the error."),
			Related: []string{"tee-multiwriter", "io-pipe-streaming"},
		},
		{
			ID: "scanner-lines", Title: "Reading lines with bufio.Scanner", Category: IO, Difficulty: Beginner,
			Tags:        []string{"io", "bufio", "lines", "parsing", "text"},
			Description: "Read text line by line with bufio.Scanner, check Err after the loop, and raise the buffer limit with Buffer when lines may exceed the 64 KiB default.",
			UseWhen:     []string{"Processing logs, CSV-like or line-oriented input", "Input may be too large to read at once"},
			AvoidWhen:   []string{"Lines can be arbitrarily long: use bufio.Reader.ReadString or ReadLine"},
			Sections: howAndPitfalls(
				"for sc.Scan() { line := sc.Text() }; if err := sc.Err(); err != nil { ... }. Change the split function with sc.Split(bufio.ScanWords).",
				"A too-long line stops scanning with bufio.ErrTooLong; without checking Err the input looks silently truncated."),
			Related: []string{"reader-composition"},
		},
		{
			ID: "streaming-json", Title: "Streaming JSON with json.Decoder", Category: IO, Difficulty: Intermediate,
			Tags:        []string{"io", "json", "streaming", "decoding"},
			Description: "Decode a large JSON array or a stream of newline-delimited JSON values one element at a time with json.Decoder, using Token to step into the array and More to loop, so memory stays flat regardless of input size.",
			UseWhen:     []string{"Input is a large array or an NDJSON stream", "You want to start processing before the whole body arrives"},
			AvoidWhen:   []string{"Small documents: json.Unmarshal is simpler"},
			Sections: howAndPitfalls(
				"dec.Token() reads the opening [; for dec.More() { dec.Decode(&item) }; a final Token reads ].",
				"Decoder buffers ahead, so the underlying reader's position is past the value; use dec.Buffered() if you need the rest."),
			Related: []string{"json-api-handler", "scanner-lines"},
		},
		{
			ID: "atomic-file-write", Title: "Atomic file replacement", Category: IO, Difficulty: Advanced,
			Tags:        []string{"io", "files", "durability", "rename", "fsync"},
			Description: "Write new contents to a temporary file in the same directory, fsync it, close it and rename it over the target, so readers see either the old or the new file and a crash never leaves a half-written one.",
			UseWhen:     []string{"Saving configuration, state or caches that must never be corrupt"},
			AvoidWhen:   []string{"Appending to logs, where rename would lose concurrent writes", "Files on filesystems without atomic rename"},
			Sections: howAndPitfalls(
				"os.CreateTemp(dir, base+\".tmp-*\"), write, f.Sync(), f.Close(), os.Rename(tmp, target); remove the temp file on any error. Sync the directory for full durability on Linux.",
				"A temp file in another directory may be on another filesystem, where rename is not atomic or fails."),
			Related: []string{"defer-close-errors"},
		},
		{
			ID: "tee-multiwriter", Title: "Duplicating streams with TeeReader and MultiWriter", Category: IO, Difficulty: Beginner,
			Tags:        []string{"io", "hashing", "writer", "reader", "checksum"},
			Description: "Compute a checksum or keep a copy while data flows elsewhere: io.TeeReader writes everything read to a second writer, and io.MultiWriter sends each write to several writers.",
			UseWhen:     []string{"Hashing an upload while storing it", "Logging a stream while forwarding it"},
			AvoidWhen:   []string{"One of the writers is slow: MultiWriter runs at the pace of the slowest and stops at the first error"},
			Sections: howAndPitfalls(
				"h := sha256.New(); io.Copy(dst, io.TeeReader(src, h)); sum := h.Sum(nil).",
				"TeeReader writes only what is read; if the consumer stops early the hash covers a prefix."),
			Related: []string{"reader-composition"},
		},
		{
			ID: "limit-reader", Title: "Bounding reads with io.LimitReader", Category: IO, Difficulty: Beginner,
			Tags:        []string{"io", "limits", "security", "reader"},
			Description: "Wrap untrusted input in io.LimitReader before io.ReadAll, and read one byte more than the limit to tell a body that is exactly at the limit from one that was cut off.",
			UseWhen:     []string{"Reading responses or files whose size you do not control"},
			AvoidWhen:   []string{"HTTP server request bodies: http.MaxBytesReader also tells the server to close the connection"},
			Sections: howAndPitfalls(
				"b, err := io.ReadAll(io.LimitReader(r, max+1)); if len(b) > max { too large }.",
				"LimitReader silently truncates; without the +1 check you process partial data as if it were complete."),
			Related: []string{"request-body-limit"},
		},
		{
			ID: "embed-files", Title: "Embedding files with go:embed", Category: IO, Difficulty: Beginner,
			Tags:        []string{"io", "embed", "fs", "assets", "deployment"},
			Description: "Ship templates, migrations or static assets inside the binary with a //go:embed directive on a string, []byte or embed.FS variable, and serve or parse them through the io/fs interfaces.",
			UseWhen:     []string{"A single self-contained binary is the deployment unit", "Assets are read-only and change with the code"},
			AvoidWhen:   []string{"Files must be editable without rebuilding"},
			Sections: howAndPitfalls(
				"//go:embed static/* above var assets embed.FS; http.FileServerFS(assets) or template.ParseFS(assets, \"*.tmpl\").",
				"Patterns are relative to the source file's directory and cannot reach parent directories; files starting with . or _ are skipped when embedding a directory."),
			Related: []string{"walkdir"},
		},
		{
			ID: "walkdir", Title: "Walking directory trees with fs.WalkDir", Category: IO, Difficulty: Beginner,
			Tags:        []string{"io", "fs", "files", "directories"},
			Description: "Traverse a tree with fs.WalkDir over an fs.FS such as os.DirFS, which avoids a stat per entry, lets you skip subtrees with fs.SkipDir, and makes the walker testable with fstest.MapFS.",
			UseWhen:     []string{"Finding or indexing files under a root", "You want tests to run against an in-memory file system"},
			AvoidWhen:   []string{"Following symbolic links is required: WalkDir does not follow them"},
			Sections: howAndPitfalls(
				"fs.WalkDir(fsys, \".\", func(path string, d fs.DirEntry, err error) error { ... }). Return the err argument to stop on unreadable directories, or nil to skip them.",
				"The callback's err parameter must be checked first; d may be nil when err is non-nil."),
			Related: []string{"embed-files", "fake-dependencies"},
		},
		{
			ID: "io-pipe-streaming", Title: "Streaming between goroutines with io.Pipe", Category: IO, Difficulty: Advanced,
			Tags:        []string{"io", "pipe", "goroutines", "streaming", "encoding"},
			Description: "Connect code that wants an io.Writer (an encoder) to code that wants an io.Reader (an HTTP request body) without buffering everything, by writing into an io.Pipe from one goroutine while the other reads.",
			UseWhen:     []string{"Uploading generated content such as JSON or gzip as a stream"},
			AvoidWhen:   []string{"The content is small: a bytes.Buffer is simpler"},
			Sections: howAndPitfalls(
				"pr, pw := io.Pipe(); go func(){ pw.CloseWithError(encode(pw)) }(); consume(pr). CloseWithError hands the writer's error to the reader.",
				"If the reader stops early, close it with an error or the writer goroutine blocks forever."),
			Related: []string{"reader-composition", "pipeline"},
		},
	}
}
