package faultserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"sync"
)

// ErrCrashed is returned by ServeStdio when a fault made the server die.
var ErrCrashed = errors.New("faultserver: crashed on purpose")

// ErrHang is returned by ServeStdio when the stdio/exit-on-eof fault is on
// and stdin has closed: the caller should keep the process alive.
var ErrHang = errors.New("faultserver: ignoring end of input on purpose")

// ServeStdio serves newline-delimited JSON-RPC on r and w until r ends.
// Lines longer than the message limit are discarded and answered with an
// error.
func (s *Server) ServeStdio(r io.Reader, w io.Writer) error {
	bw := bufio.NewWriter(w)
	if s.has("stdio/stdout-json-only") {
		bw.WriteString("faultserver ready\n")
		bw.Flush()
	}
	var wmu sync.Mutex // bw is shared with requests finishing asynchronously
	write := func(msgs [][]byte) error {
		wmu.Lock()
		defer wmu.Unlock()
		for _, m := range msgs {
			bw.Write(m)
			bw.WriteByte('\n')
		}
		return bw.Flush()
	}
	var pending sync.WaitGroup
	defer pending.Wait()
	// Long-lived requests (subscriptions/listen) end when the input does.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sess := &session{}
	sess.setOutlet(func(m []byte) bool { return write([][]byte{m}) == nil })
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, tooLong, err := readLine(br)
		if len(line) > 0 || tooLong {
			var rep reply
			if tooLong {
				rep = s.process(sess, make([]byte, maxMessage+1), reqCtx{})
			} else {
				rep = s.process(sess, line, reqCtx{})
			}
			if rep.crash {
				return ErrCrashed
			}
			if err := write(s.silenced(rep.msgs)); err != nil {
				return err
			}
			if rep.listen != nil {
				pending.Add(1)
				go func() {
					defer pending.Done()
					rep.listen(ctx, func(m []byte) bool { return write([][]byte{m}) == nil })
				}()
			}
			if rep.later != nil {
				pending.Add(1)
				go func() {
					defer pending.Done()
					write(rep.later())
				}()
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				if s.has("stdio/exit-on-eof") {
					return ErrHang
				}
				return nil
			}
			return err
		}
	}
}

// readLine reads one line, discarding content beyond maxMessage.
func readLine(br *bufio.Reader) ([]byte, bool, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > maxMessage+1 {
			tooLong = true
		} else {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			line = nil
		}
		return trimEOL(line), tooLong, err
	}
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
