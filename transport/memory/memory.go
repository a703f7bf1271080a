// Package memory provides an in-process connected pair of jsonrpc.Transports, for
// tests and examples. Messages are encoded on Write and decoded on Read, exactly as a
// byte stream would carry them, so what works here works on a real wire.
package memory

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/wiremcp/wiremcp/jsonrpc"
)

// ErrClosed is returned by Write on a closed transport.
var ErrClosed = errors.New("memory: transport closed")

// Pipe is one end of an in-process connection. Read is for one goroutine at a time;
// Write and Close are safe for concurrent use.
type Pipe struct {
	in     <-chan []byte
	out    chan<- []byte
	done   chan struct{} // closed by this end's Close
	peer   *Pipe
	once   sync.Once
	limits jsonrpc.Limits
}

// NewPair returns two connected ends: what one writes, the other reads.
// Each direction buffers up to 64 messages before Write blocks.
func NewPair() (*Pipe, *Pipe) {
	ab := make(chan []byte, 64)
	ba := make(chan []byte, 64)
	a := &Pipe{in: ba, out: ab, done: make(chan struct{})}
	b := &Pipe{in: ab, out: ba, done: make(chan struct{})}
	a.peer, b.peer = b, a
	return a, b
}

// Read returns the next message the peer wrote. It returns io.EOF once either end is
// closed and everything already written has been read.
func (p *Pipe) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case b := <-p.in:
		return jsonrpc.Decode(b, &p.limits)
	default:
	}
	select {
	case b := <-p.in:
		return jsonrpc.Decode(b, &p.limits)
	case <-p.done:
		return nil, io.EOF
	case <-p.peer.done:
		// Drain what the peer wrote before it closed.
		select {
		case b := <-p.in:
			return jsonrpc.Decode(b, &p.limits)
		default:
			return nil, io.EOF
		}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write encodes msg and hands it to the peer.
func (p *Pipe) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.Encode(nil, msg)
	if err != nil {
		return err
	}
	select {
	case <-p.done:
		return ErrClosed
	case <-p.peer.done:
		return ErrClosed
	default:
	}
	select {
	case p.out <- b:
		return nil
	case <-p.done:
		return ErrClosed
	case <-p.peer.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WriteRaw hands raw bytes to the peer as one frame, without checking them. Tests use
// it to send malformed input.
func (p *Pipe) WriteRaw(ctx context.Context, frame []byte) error {
	select {
	case p.out <- append([]byte(nil), frame...):
		return nil
	case <-p.done:
		return ErrClosed
	case <-p.peer.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends this side; the peer's Read returns io.EOF after draining.
func (p *Pipe) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}
