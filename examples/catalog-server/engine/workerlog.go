package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// What the server says about its query processes' troubles: an answer it
// could not read (AnswerError), a process that crashed (duckWorker.noteEnd),
// each in one log line, rate-limited (workerNotes).

// AnswerError says a query process's answer could not be read: it was larger
// than the server reads (TooLarge), or did not read as an answer. The process
// was ended; the next query gets a new one.
type AnswerError struct {
	TooLarge bool
	Limit    int64  // with TooLarge: the most bytes of that part of the answer, in bytes
	Part     string // with TooLarge: "rows" or "columns and error text"
	Detail   string // what was read
}

func (e *AnswerError) Error() string {
	if e.TooLarge {
		return fmt.Sprintf("the query's answer was larger than the server reads from its DuckDB process: its %s took more than %s (%s); the process was ended", e.Part, mib(e.Limit), e.Detail)
	}
	return "the query's DuckDB process sent what does not read as an answer (" + e.Detail + "); the process was ended. This is a fault of the server, not of the query: call again (a new process starts), and tell the server's operator if it happens again"
}

// mib writes n bytes in MiB, rounded down (what was larger than n is larger
// than that), or in bytes under 1 MiB.
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// frameTooLarge is readAnswer's error for a frame past its limits.
type frameTooLarge struct{ head, body, maxHead, maxBody int64 }

func (e *frameTooLarge) Error() string {
	return fmt.Sprintf("worker: an answer of %d+%d bytes, past %d+%d", e.head, e.body, e.maxHead, e.maxBody)
}

// answerError is the caller's error for an answer the reader stopped at.
func answerError(err error) error {
	var big *frameTooLarge
	if errors.As(err, &big) {
		if big.head > big.maxHead {
			return &AnswerError{TooLarge: true, Limit: big.maxHead, Part: "columns and error text", Detail: fmt.Sprintf("%d bytes", big.head)}
		}
		return &AnswerError{TooLarge: true, Limit: big.maxBody, Part: "rows", Detail: fmt.Sprintf("%d bytes", big.body)}
	}
	return &AnswerError{Detail: err.Error()}
}

// log is the logger of the model's query processes' troubles.
func (c DuckConfig) log() *slog.Logger {
	if c.Log != nil {
		return c.Log
	}
	return slog.Default()
}

// outputTail keeps what a query process writes to its standard output and
// error, bounded: the first outputHead bytes (where a crash says what it is)
// and the last outputKeep. Safe for concurrent use.
type outputTail struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte // a window of the last bytes: at most 2*outputKeep, trimmed to outputKeep
	dropped int64  // bytes between head and tail not kept
}

const (
	outputHead = 2 << 10
	outputKeep = 8 << 10
)

func (o *outputTail) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(b)
	if room := outputHead - len(o.head); room > 0 {
		k := min(room, len(b))
		o.head = append(o.head, b[:k]...)
		b = b[k:]
	}
	if len(b) >= outputKeep {
		o.dropped += int64(len(o.tail) + len(b) - outputKeep)
		o.tail = append(o.tail[:0], b[len(b)-outputKeep:]...)
		return n, nil
	}
	o.tail = append(o.tail, b...)
	if len(o.tail) > 2*outputKeep {
		cut := len(o.tail) - outputKeep
		o.dropped += int64(cut)
		o.tail = append(o.tail[:0], o.tail[cut:]...)
	}
	return n, nil
}

// String is what was kept, the bytes left out between head and tail counted.
func (o *outputTail) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	tail, dropped := o.tail, o.dropped
	if len(tail) > outputKeep {
		dropped += int64(len(tail) - outputKeep)
		tail = tail[len(tail)-outputKeep:]
	}
	if dropped > 0 {
		return fmt.Sprintf("%s\n… (%d bytes not kept) …\n%s", o.head, dropped, tail)
	}
	return string(o.head) + string(tail)
}

// crashMarks start the lines that say why a process crashed: the Go
// runtime's (a signal in DuckDB's C++ code is reported by it), the C++
// runtime's, DuckDB's own.
var crashMarks = []string{"SIG", "fatal error:", "panic:", "terminate called", "runtime:", "INTERNAL Error", "FATAL Error"}

// crashLine is the first line of text (a worker's standard error) that says
// why the process crashed (crashMarks), cut to 200 bytes; "" when none does.
// It is the one finder of a crash's line, for the log line of a query or load
// process that crashed (noteEnd, noteCrash) and a load's error (crashDetail).
func crashLine(text string) string {
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		for _, m := range crashMarks {
			if strings.HasPrefix(line, m) {
				return cutLine(line)
			}
		}
	}
	return ""
}

// firstLine is the first non-empty line of text, cut to 200 bytes.
func firstLine(text string) string {
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line != "" {
			return cutLine(line)
		}
	}
	return ""
}

// workerCapture is what the server keeps of what a worker process (a query
// or load process) writes, bounded, for the log line of its crash and a
// load's error: all it writes to its standard output and error (output: its
// first outputHead and last outputKeep bytes), unless its command sends them
// elsewhere; and the first maxStderrKept bytes of its standard error alone
// (stderr), where the Go runtime writes a crash (its dump is about 10 KB), so
// that a line on its standard output (which DuckDB or a library might write,
// quoting a file's content) cannot pass for the crash's signal. Safe for
// concurrent use.
type workerCapture struct {
	output *outputTail // nil: the command's own Stderr took the output
	stderr headBuffer
}

// maxStderrKept is how much of a worker's standard error the server keeps,
// to find the line that says why it crashed (crashLine).
const maxStderrKept = 64 << 10

// captureOutput has the output of cmd, not yet started, kept in a
// workerCapture: its standard output and error into output when the command
// sets neither (else its standard output goes where its standard error goes),
// its standard error also into stderr. A grandchild holding the pipe does not
// hold Wait past a second (WaitDelay).
func captureOutput(cmd *exec.Cmd) *workerCapture {
	c := &workerCapture{stderr: headBuffer{max: maxStderrKept}}
	if cmd.Stderr == nil {
		c.output = &outputTail{}
		cmd.Stderr = c.output
	}
	if cmd.Stdout == nil {
		cmd.Stdout = cmd.Stderr
	}
	cmd.Stderr = io.MultiWriter(cmd.Stderr, &c.stderr)
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = time.Second
	}
	return c
}

// first is the line of the process's standard error that says why it
// crashed (crashLine), else its first non-empty line; "" without any.
func (c *workerCapture) first() string {
	s := c.stderr.String()
	if l := crashLine(s); l != "" {
		return l
	}
	return firstLine(s)
}

// dump is what the process wrote (outputTail.String); "" when its command
// sent it elsewhere.
func (c *workerCapture) dump() string {
	if c.output == nil {
		return ""
	}
	return c.output.String()
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (h *headBuffer) Write(b []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - len(h.b); room > 0 {
		h.b = append(h.b, b[:min(len(b), room)]...)
	}
	return len(b), nil
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.b)
}

func cutLine(s string) string {
	if len(s) <= 200 {
		return s
	}
	i := 200
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// workerNotes rate-limits the log lines about query processes, over all
// models: at most workerNotesPerMinute in a minute; past them, one line at the
// minute's end says how many were left out. A client can crash a process, or
// have its answer refused, with every call.
var workerNotes = &noteLimiter{per: workerNotesPerMinute, window: time.Minute}

const workerNotesPerMinute = 10

type noteLimiter struct {
	per    int
	window time.Duration
	about  string // the lines, in the one counting those left out; "": the processes' troubles

	mu      sync.Mutex
	start   time.Time // of the current window
	logged  int       // lines logged in it
	skipped int       // lines left out in it
	flush   *time.Timer
}

// NoteLimiter rate-limits log lines about a trouble a client can cause at
// every call (a model whose query processes cannot start): at most per lines
// a window; past them, one line at the window's end says how many were left
// out, as workerNotes does for the query processes' troubles. Safe for
// concurrent use.
type NoteLimiter struct{ l noteLimiter }

// NewNoteLimiter returns a limiter of per lines a window; about names the
// lines in the one counting those left out.
func NewNoteLimiter(per int, window time.Duration, about string) *NoteLimiter {
	return &NoteLimiter{noteLimiter{per: per, window: window, about: about}}
}

// Note logs msg with args on log at level unless the window's lines are used up.
// A nil limiter logs every line.
func (n *NoteLimiter) Note(log *slog.Logger, level slog.Level, msg string, args ...any) {
	if n == nil {
		log.Log(context.Background(), level, msg, args...)
		return
	}
	n.l.noteAt(log, level, msg, args...)
}

// note logs msg with args on log unless the window's lines are used up.
func (l *noteLimiter) note(log *slog.Logger, msg string, args ...any) {
	l.noteAt(log, slog.LevelWarn, msg, args...)
}

// noteAt is note at level.
func (l *noteLimiter) noteAt(log *slog.Logger, level slog.Level, msg string, args ...any) {
	l.mu.Lock()
	now := time.Now()
	if now.Sub(l.start) >= l.window && l.flush == nil {
		l.start, l.logged = now, 0
	}
	if l.logged < l.per {
		l.logged++
		l.mu.Unlock()
		log.Log(context.Background(), level, msg, args...)
		return
	}
	l.skipped++
	if l.flush == nil {
		l.flush = time.AfterFunc(l.start.Add(l.window).Sub(now), func() {
			l.mu.Lock()
			n := l.skipped
			l.skipped, l.flush = 0, nil
			l.start, l.logged = time.Now(), 0
			l.mu.Unlock()
			about := l.about
			if about == "" {
				about = "query and load process troubles (crashes, answers that could not be read)"
			}
			log.Warn("more "+about+" were not logged one by one", "count", n, "within", l.window.String(), "logged at most", l.per)
		})
	}
	l.mu.Unlock()
}
