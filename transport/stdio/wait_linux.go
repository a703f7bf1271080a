//go:build linux

package stdio

import (
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"unsafe"
)

// A selectReader reads a pipe or socket for the reading goroutine, waiting for
// input in select(2), a blocking system call, rather than in the runtime's network
// poller. With a client that keeps a request or two in flight the input runs dry
// after almost every message; a goroutine parked in the poller then costs a trip
// through the scheduler and a wake-up from another thread each time, and idle
// threads keep polling while a descriptor is registered, whereas a thread blocked in
// a system call just carries on (measured on the echo server over stdio with 8
// calls in flight: about 5 µs of server CPU per call instead of 8.5). Close and a
// done context still interrupt the wait: select also watches a pipe that wake
// writes to. A pipe in blocking mode (a child's stdin) is waited on by read(2)
// itself between messages, one system call instead of two (see readBlocking).
//
// The price: a waiting Read holds an OS thread, as a blocking read would (a process
// with many stdio transports waiting at once has that many threads parked in the
// kernel). The selectReader reads its own duplicate of the descriptor, which it
// closes (with the wake-up pipe) once no read is in progress.
type selectReader struct {
	fd     int // the duplicate of the input
	rd, wr int // the wake-up pipe

	// A pipe is read with one blocking read(2) per wait instead of select(2) and
	// read(2), whenever no partial line is buffered (see readBlocking). reopen names
	// the pipe in /proc ("" for a socket, or where it cannot be reopened); partial
	// reports whether the caller holds the start of a line. Set before the first Read.
	reopen  string
	partial func() bool

	// stop reports whether a wake-up should end the Read (the transport closed, or
	// the Read's context done); other wake-ups (left by an earlier context) are
	// ignored, so that no read returns early and cuts a line. Set by the reader.
	stop func() bool

	mu       sync.Mutex
	reading  bool // a Read is in select or read
	blocking bool // a Read is in a blocking read(2) of the pipe
	closed   bool // shut down: descriptors closed, or closed when the Read ends
}

// errWoken is what Read returns when wake (or shutdown) interrupted it.
var errWoken = errors.New("stdio: read interrupted")

// newSelectReader returns a selectReader for f when f is a pipe or a socket, nil
// otherwise (or when the descriptors do not fit select's sets).
func newSelectReader(f *os.File) *selectReader {
	sc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	sc.Control(func(u uintptr) {
		if !pipeOrSocket(int(u)) {
			return
		}
		if nfd, err := syscall.Dup(int(u)); err == nil {
			syscall.CloseOnExec(nfd)
			fd = nfd
		}
	})
	if fd < 0 {
		return nil
	}
	var p [2]int
	if syscall.Pipe2(p[:], syscall.O_CLOEXEC|syscall.O_NONBLOCK) != nil {
		syscall.Close(fd)
		return nil
	}
	if fd >= 1024 || p[0] >= 1024 { // beyond what an FdSet holds
		syscall.Close(fd)
		syscall.Close(p[0])
		syscall.Close(p[1])
		return nil
	}
	r := &selectReader{fd: fd, rd: p[0], wr: p[1]}
	r.reopen = reopenablePipe(fd)
	return r
}

// reopenablePipe returns the /proc path through which the pipe fd can be opened
// for writing, or "" when fd is not a pipe or that does not work here.
func reopenablePipe(fd int) string {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return ""
	}
	path := "/proc/self/fd/" + strconv.Itoa(fd)
	w, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	syscall.Close(w)
	return path
}

// Read waits until the input is readable, then reads it. It returns errWoken when
// wake or shutdown interrupted the wait, io.EOF at the end of the input.
func (r *selectReader) Read(p []byte) (int, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return 0, errWoken
	}
	r.reading = true
	r.mu.Unlock()
	n, err := r.read(p)
	r.mu.Lock()
	r.reading = false
	if r.closed {
		r.closeAll()
	}
	r.mu.Unlock()
	return n, err
}

func (r *selectReader) read(p []byte) (int, error) {
	if r.reopen != "" && (r.partial == nil || !r.partial()) {
		if n, err, ok := r.readBlocking(p); ok {
			return n, err
		}
	}
	for {
		var set syscall.FdSet
		fdSet(&set, r.fd)
		fdSet(&set, r.rd)
		if _, err := syscall.Select(max(r.fd, r.rd)+1, &set, nil, nil, nil); err != nil {
			if err == syscall.EINTR {
				continue
			}
			return 0, err
		}
		if fdIsSet(&set, r.rd) {
			var b [64]byte
			for {
				if n, err := syscall.Read(r.rd, b[:]); n <= 0 || err != nil {
					break
				}
			}
			if r.stopping() {
				return 0, errWoken
			}
			continue
		}
		n, err := syscall.Read(r.fd, p)
		switch {
		case err == syscall.EINTR || err == syscall.EAGAIN:
			continue // EAGAIN: the input's file description is non-blocking
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// readBlocking waits for the pipe in read(2) itself: one system call per wait
// instead of two, the cost that remained between this transport and a bare
// blocking reader with one request in flight. A blocked read cannot be
// interrupted, so wake and shutdown write a newline into the pipe through a
// second opening of it (reopen): the read returns, the caller skips the blank line
// and sees why it was woken. This is done only while no partial line is buffered,
// where the pipe is empty (the read is blocked) and a newline falls between two
// messages; only a peer writing a single line in several pieces (lines longer than
// the pipe's atomic 4 KiB, or split writes) at that very moment could see it land
// inside a line, and only when a Read is interrupted. ok is false when the
// descriptor turned out to be non-blocking (the caller selects instead).
func (r *selectReader) readBlocking(p []byte) (n int, err error, ok bool) {
	r.mu.Lock()
	stop := r.closed || (r.stop != nil && r.stop())
	r.blocking = !stop
	r.mu.Unlock()
	if stop {
		return 0, errWoken, true
	}
	for {
		n, err = syscall.Read(r.fd, p)
		if err != syscall.EINTR {
			break
		}
	}
	r.mu.Lock()
	r.blocking = false
	if err == syscall.EAGAIN {
		r.reopen = "" // someone made the pipe non-blocking: select from now on
	}
	r.mu.Unlock()
	switch {
	case err == syscall.EAGAIN:
		return 0, nil, false
	case err != nil:
		return 0, err, true
	case n == 0 && len(p) > 0:
		return 0, io.EOF, true
	}
	return n, nil, true
}

// interrupt ends a blocking read of the pipe by writing a newline into it. r.mu
// is held.
func (r *selectReader) interrupt() {
	if !r.blocking {
		return
	}
	w, err := syscall.Open(r.reopen, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	syscall.Write(w, []byte{'\n'}) // a full pipe has data for the read already
	syscall.Close(w)
}

func (r *selectReader) stopping() bool {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	return closed || (r.stop != nil && r.stop())
}

// wake makes a Read in progress (or the next one) look at stop.
func (r *selectReader) wake() {
	r.mu.Lock()
	if !r.closed {
		syscall.Write(r.wr, []byte{0}) // a full pipe already holds a wake-up
		r.interrupt()
	}
	r.mu.Unlock()
}

// shutdown interrupts a Read in progress and closes the descriptors (once no Read
// uses them).
func (r *selectReader) shutdown() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.closed = true
	if r.reading {
		syscall.Write(r.wr, []byte{0}) // Read closes the descriptors on its way out
		r.interrupt()
		return
	}
	r.closeAll()
}

func (r *selectReader) closeAll() {
	syscall.Close(r.fd)
	syscall.Close(r.rd)
	syscall.Close(r.wr)
}

// fdBits is the number of bits in an element of FdSet.Bits (64 or 32 by arch).
const fdBits = int(unsafe.Sizeof(syscall.FdSet{}.Bits[0])) * 8

func fdSet(s *syscall.FdSet, fd int) { s.Bits[fd/fdBits] |= 1 << (fd % fdBits) }

func fdIsSet(s *syscall.FdSet, fd int) bool { return s.Bits[fd/fdBits]&(1<<(fd%fdBits)) != 0 }
