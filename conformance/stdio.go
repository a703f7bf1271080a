package conformance

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sync"
	"time"
)

// maxLine bounds one stdout line from a stdio server.
const maxLine = 64 << 20

// stdioConn runs the server as a child process and speaks newline-delimited
// JSON on its stdin and stdout. One goroutine (started by dialStdio, ended
// by close) reads stdout; it records every line, so framing checks can
// inspect lines that were not JSON.
type stdioConn struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	in        *inbox
	stderr    *tailBuffer
	wmu       sync.Mutex
	exited    chan struct{} // closed when the process has been reaped
	waitErr   error
	readDone  chan struct{}
	closeOnce sync.Once
}

// dialStdio starts target.Command.
func dialStdio(target Target) (*stdioConn, error) {
	if len(target.Command) == 0 {
		return nil, errors.New("empty stdio command")
	}
	cmd := exec.Command(target.Command[0], target.Command[1:]...)
	cmd.Env = target.Env
	cmd.Dir = target.Dir
	setProcessGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &stdioConn{cmd: cmd, stdin: stdin, in: newInbox(), stderr: &tailBuffer{max: 64 << 10},
		exited: make(chan struct{}), readDone: make(chan struct{})}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %q: %w", target.Command[0], err)
	}
	go c.readLoop(stdout)
	go func() {
		<-c.readDone
		c.waitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

func (c *stdioConn) readLoop(r io.Reader) {
	defer close(c.readDone)
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(line) > 0 {
			l := bytes.TrimRight(line, "\r\n")
			cp := append([]byte(nil), l...)
			c.in.push(parseMsg(cp, "stdout"))
			line = line[:0]
		}
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			c.in.end(err)
			return
		}
	}
}

func (c *stdioConn) box() *inbox { return c.in }

func (c *stdioConn) send(ctx context.Context, body []byte, _ http.Header) (*HTTPReply, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	buf := make([]byte, 0, len(body)+1)
	buf = append(append(buf, body...), '\n')
	done := make(chan error, 1)
	go func() { _, err := c.stdin.Write(buf); done <- err }()
	select {
	case err := <-done:
		return nil, err
	case <-ctx.Done():
		// The write goroutine ends when close kills the process.
		return nil, ctx.Err()
	}
}

// closeStdin closes the server's stdin, the polite shutdown signal.
func (c *stdioConn) closeStdin() error { return c.stdin.Close() }

// waitExit waits up to d for the process to exit by itself.
func (c *stdioConn) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.exited:
		return true
	case <-t.C:
		return false
	}
}

// close closes stdin, gives the server a moment to exit and then kills its
// process group. It waits for the reader goroutine.
func (c *stdioConn) close() error {
	c.closeOnce.Do(func() {
		_ = c.stdin.Close()
		if !c.waitExit(2 * time.Second) {
			killProcessGroup(c.cmd)
			<-c.exited
		}
	})
	return nil
}

// tailBuffer keeps the last max bytes written to it (server stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
