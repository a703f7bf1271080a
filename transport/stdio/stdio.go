package stdio

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// DefaultMaxLineBytes is the default longest line, newline excluded, that Read
// accepts (4 MiB, the decoder's default size limit).
const DefaultMaxLineBytes = 4 << 20

// ErrClosed is returned by Read and Write on a closed Transport.
var ErrClosed = errors.New("stdio: transport closed")

// Options configures a Transport. Nil means all defaults.
type Options struct {
	// MaxLineBytes bounds a line (one message), newline excluded. A longer line is
	// skipped up to the next newline and reported by Read as an invalid request, so
	// the Conn answers it and the stream carries on. Zero means DefaultMaxLineBytes.
	MaxLineBytes int
	// Limits bounds decoding; a zero MaxSize means MaxLineBytes.
	Limits jsonrpc.Limits
	// Logger receives diagnostics (and, for Command, the child's stderr when
	// CommandOptions.Stderr is nil). Nil discards.
	Logger *slog.Logger
}

// Transport carries newline-delimited JSON-RPC messages over a byte stream, as the
// MCP stdio transport does: each message is one line of compact UTF-8 JSON.
//
// Read is for one goroutine at a time; Write and Close are safe for concurrent use,
// and Writes are serialised (each message is written with one Write call on the
// underlying writer). Empty and blank lines are ignored and a "\r\n" ending is accepted.
//
// Reading happens on a goroutine owned by the Transport, started by the first Read,
// so that Close (and a done context) can make a blocked Read return without losing
// input: a line that arrives while no Read waits is kept for the next one. That
// goroutine ends when the reader returns an error, which Close provokes by closing
// it; a reader that cannot be closed, or that blocks in a way closing cannot
// interrupt (a blocking terminal or pipe as os.Stdin), keeps it until its next line
// or EOF. The Transport never writes into its input and never changes the flags of
// a descriptor it did not open.
type Transport struct {
	r       io.Reader
	w       io.Writer
	maxLine int
	limits  jsonrpc.Limits
	log     *slog.Logger

	readOnce sync.Once
	frames   chan frame    // lines from the read goroutine
	readErr  error         // why the read goroutine ended; set before frames is closed
	drain    bool          // after Close, keep reading (and dropping) lines until EOF
	closed   chan struct{} // closed by Close

	wmu  sync.Mutex
	wbuf []byte

	closeOnce sync.Once
	closeErr  error
	closeFn   func() error
}

// frame is one line, or the error that replaces it (an over-long line).
type frame struct {
	b   []byte
	err error
}

// New returns a Transport reading r and writing w. Close closes r and w when they
// implement io.Closer (wrap them to prevent that).
func New(r io.Reader, w io.Writer, opts *Options) *Transport {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.Limits.MaxSize <= 0 {
		o.Limits.MaxSize = o.MaxLineBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	t := &Transport{
		r:       r,
		w:       w,
		maxLine: o.MaxLineBytes,
		limits:  o.Limits,
		log:     o.Logger,
		frames:  make(chan frame),
		closed:  make(chan struct{}),
	}
	t.closeFn = t.closeStreams
	return t
}

// Stdio returns a Transport over os.Stdin and os.Stdout with default options, for
// a server started by an MCP client. Nothing else may write to os.Stdout.
func Stdio() *Transport { return New(os.Stdin, os.Stdout, nil) }

// Read returns the next message. A line that is not a valid message, or is longer
// than MaxLineBytes, is reported as an error wrapping a *jsonrpc.Error (with the
// *jsonrpc.Invalid that Decode returns, if any), and the next Read carries on with
// the next line. At the end of the input Read returns io.EOF; after Close,
// ErrClosed. A done ctx ends the Read with ctx's error and loses nothing: the line
// being read is delivered to the next Read.
func (t *Transport) Read(ctx context.Context) (jsonrpc.Message, error) {
	t.readOnce.Do(func() { go t.readLoop() })
	select {
	case f, ok := <-t.frames:
		if !ok {
			return nil, t.readErr
		}
		if f.err != nil {
			return nil, f.err
		}
		return jsonrpc.Decode(f.b, &t.limits)
	case <-t.closed:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readLoop is the read goroutine: it splits the input into lines and hands each
// to Read.
func (t *Transport) readLoop() {
	br := bufio.NewReaderSize(t.r, 64<<10)
	for {
		f, err := t.readLine(br)
		if err != nil && err != io.EOF {
			f = frame{} // a partial line cut off by a failure is not a message
		}
		if f.b != nil || f.err != nil {
			select {
			case t.frames <- f:
			case <-t.closed:
				if !t.drain {
					err = ErrClosed
				}
			}
		}
		if err != nil {
			select {
			case <-t.closed:
				err = ErrClosed
			default:
				if err != io.EOF {
					err = fmt.Errorf("stdio: reading: %w", err)
				}
			}
			t.readErr = err
			close(t.frames)
			return
		}
	}
}

// readLine reads one line. It returns an empty frame for an empty line, an error
// frame for an over-long one, and a non-nil error when the input ends or fails
// (with the last, unterminated line, if any).
func (t *Transport) readLine(br *bufio.Reader) (frame, error) {
	var long []byte // a line longer than the bufio buffer, being assembled
	size := 0       // bytes of the line so far, line ending included
	for {
		chunk, err := br.ReadSlice('\n')
		size += len(chunk)
		tooLong := size > t.maxLine+2 // +2: a "\r\n" ending is not part of the line
		if err == bufio.ErrBufferFull {
			if !tooLong {
				long = append(long, chunk...)
			} else {
				long = nil // skip the rest of the line without keeping it
			}
			continue
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
		}
		line = bytes.TrimSuffix(line, []byte{'\n'})
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if tooLong || len(line) > t.maxLine {
			t.log.Warn("stdio: skipped an over-long line", "bytes", size, "limit", t.maxLine)
			return frame{err: fmt.Errorf("stdio: %w", &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: fmt.Sprintf("Invalid Request: line longer than %d bytes", t.maxLine)})}, err
		}
		if blank(line) {
			return frame{}, err
		}
		if long == nil {
			// chunk points into the bufio buffer, and a decoded message keeps
			// sub-slices of its frame: give the frame its own copy.
			line = bytes.Clone(line)
		}
		return frame{b: line}, err
	}
}

// blank reports whether line holds only JSON whitespace.
func blank(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return true
}

// Write sends msg as one line. It fails with ErrClosed after Close. ctx is checked
// before writing; a write already blocked on the underlying writer is not
// interrupted by it (Close interrupts it when the writer is an *os.File pipe).
func (t *Transport) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	select {
	case <-t.closed:
		return ErrClosed
	default:
	}
	b, err := jsonrpc.Encode(t.wbuf[:0], msg)
	if err != nil {
		return err
	}
	// MCP: a message never holds a raw newline. Encode guarantees it; a bug there
	// must not desynchronise the stream.
	if bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return errors.New("stdio: encoded message holds a line break")
	}
	b = append(b, '\n')
	_, err = t.w.Write(b)
	if cap(b) <= 1<<20 {
		t.wbuf = b[:0]
	} else {
		t.wbuf = nil // do not keep a huge buffer for the rest of the session
	}
	if err != nil {
		return fmt.Errorf("stdio: writing: %w", err)
	}
	return nil
}

// Close ends the transport: a blocked Read returns ErrClosed, later Writes fail.
// For New it closes the reader and the writer if they are io.Closers; for Command it
// stops the child process (see Command). It is safe to call more than once and
// returns the first call's error.
func (t *Transport) Close() error {
	t.closeOnce.Do(func() {
		close(t.closed)
		t.closeErr = t.closeFn()
	})
	return t.closeErr
}

func (t *Transport) closeStreams() error {
	var errs []error
	if c, ok := t.w.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	if c, ok := t.r.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
