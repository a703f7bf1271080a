package stdio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// DefaultGracePeriod is how long Close waits for a child to exit after closing its
// stdin, and again after SIGTERM, when CommandOptions.GracePeriod is zero.
const DefaultGracePeriod = 5 * time.Second

// CommandOptions configures Command. Nil means all defaults.
type CommandOptions struct {
	Options
	// Stderr receives the child's stderr as is. When nil (and cmd.Stderr is nil
	// too), each line of it is logged to Options.Logger at level Info, or dropped
	// when that is nil too. A cmd.Stderr set by the caller is left alone.
	Stderr io.Writer
	// GracePeriod is how long Close waits for the child to exit after closing its
	// stdin, and again after SIGTERM, before it kills it. Zero means
	// DefaultGracePeriod.
	GracePeriod time.Duration
}

// Command starts cmd and returns a Transport over its stdin and stdout: the client
// side of the MCP stdio transport. cmd must not have Stdin or Stdout set.
//
// Close stops the child cleanly: it closes the child's stdin (the MCP shutdown
// signal), waits up to the grace period for it to exit, then sends SIGTERM (on
// systems that have it), waits again, and finally kills it. Close returns once the
// child has exited; its error is nil when the child exited on its own after its
// stdin closed, and describes the exit otherwise. When the child exits by itself,
// Read returns io.EOF after its last line.
func Command(cmd *exec.Cmd, opts *CommandOptions) (*Transport, error) {
	var o CommandOptions
	if opts != nil {
		o = *opts
	}
	if o.GracePeriod <= 0 {
		o.GracePeriod = DefaultGracePeriod
	}
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("stdio: Command: cmd.Stdin and cmd.Stdout must be nil")
	}
	var lw *lineLogger
	if cmd.Stderr == nil {
		switch {
		case o.Stderr != nil:
			cmd.Stderr = o.Stderr
		case o.Logger != nil:
			lw = &lineLogger{log: o.Logger, cmd: cmd.Path}
			cmd.Stderr = lw
		}
	}
	if cmd.WaitDelay == 0 {
		// Bound how long Wait waits for stderr copying after the child exits (a
		// grandchild may hold the pipe open).
		cmd.WaitDelay = o.GracePeriod
	}
	// Own pipes rather than cmd.StdinPipe/StdoutPipe: Wait closes those, which
	// would lose output the child wrote just before exiting.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdio: Command: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("stdio: Command: %w", err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("stdio: Command: %w", err)
	}
	inR.Close() // the child holds its own copies
	outW.Close()

	t := New(outR, inW, &o.Options)
	t.drain = true // keep reading the child's stdout while it shuts down
	p := &process{cmd: cmd, grace: o.GracePeriod, exited: make(chan struct{}), stdin: inW, stdout: outR,
		stderr: lw, log: t.log}
	go p.wait()
	t.closeFn = p.stop
	return t, nil
}

// process is a started child and the goroutine (wait) that reaps it.
type process struct {
	cmd    *exec.Cmd
	grace  time.Duration
	stdin  *os.File
	stdout *os.File
	stderr *lineLogger
	log    *slog.Logger

	exited  chan struct{} // closed by wait
	waitErr error
}

func (p *process) wait() {
	p.waitErr = p.cmd.Wait()
	if p.stderr != nil {
		p.stderr.flush()
	}
	close(p.exited)
}

// stop closes stdin, then escalates to SIGTERM and SIGKILL.
func (p *process) stop() error {
	p.stdin.Close()
	signalled := ""
	if !p.await() {
		signalled = "SIGTERM"
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil || !p.await() {
			signalled = "SIGKILL"
			p.cmd.Process.Kill()
			<-p.exited
		}
		p.log.Warn("stdio: child did not exit after its stdin closed", "cmd", p.cmd.Path, "signal", signalled)
	}
	p.stdout.Close() // ends the read goroutine
	if signalled != "" {
		return fmt.Errorf("stdio: %s stopped with %s: %v", p.cmd.Path, signalled, p.waitErr)
	}
	if p.waitErr != nil {
		return fmt.Errorf("stdio: %s: %w", p.cmd.Path, p.waitErr)
	}
	return nil
}

// await waits up to the grace period for the child to exit.
func (p *process) await() bool {
	timer := time.NewTimer(p.grace)
	defer timer.Stop()
	select {
	case <-p.exited:
		return true
	case <-timer.C:
		return false
	}
}

// lineLogger logs each line written to it. exec.Cmd writes to it from one
// goroutine; flush runs after that goroutine has ended.
type lineLogger struct {
	log *slog.Logger
	cmd string
	mu  sync.Mutex
	buf []byte
}

func (l *lineLogger) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.emit(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
	if len(l.buf) > 64<<10 { // a very long line: log it in pieces
		l.emit(l.buf)
		l.buf = nil
	}
	if len(l.buf) == 0 {
		l.buf = nil
	}
	return len(b), nil
}

func (l *lineLogger) emit(line []byte) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	l.log.Info("stderr", "cmd", l.cmd, "line", string(line))
}

func (l *lineLogger) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.emit(l.buf)
		l.buf = nil
	}
}
