package engine

import (
	"container/list"
	"context"
	"sync"
)

// fairSlots is a counting semaphore of size slots whose waiters are served
// round-robin by client, not in arrival order. A query takes a slot (one of a
// model's connections or query processes, or one of the server's query
// processes) for its client (Limits.Client; "" is one client, such as stdio's)
// and gives it back with release. When a slot frees and queries wait, it goes
// to the next client in turn that has a waiter, and to that client's longest
// waiting query: a client with one query waiting is served after at most one
// query of each other waiting client, however many each has queued. The client
// served last goes after the other waiting clients: when one client took every
// slot and queued more, the first slot to free goes to another client's
// waiting query.
//
// Its size: one entry per client with a query waiting (in byClient and turns)
// and one per waiting query, each removed when its query is served or gives
// up. The server caps what each client has running or waiting at once
// (-max-queries-per-client, clientshare.go), so the waiters are at most that
// share times the clients with queries in progress; without a share (stdio,
// or the share turned off) they are the queries waiting, each a goroutine
// blocked in acquire, as they were with a channel.
type fairSlots struct {
	size int

	mu       sync.Mutex
	held     int                    // slots taken; below size only when no one waits
	byClient map[string]*fairClient // clients with a query waiting
	turns    list.List              // of *fairClient: the order in which they are served
	last     string                 // the client of the latest slot given
	// For the tests: onGrant is called, under mu, for each slot given;
	// onGiveUp when a waiter gave up, before it takes mu.
	onGrant  func(client string, waited bool)
	onGiveUp func()
}

// fairClient is a client's waiting queries, longest waiting first.
type fairClient struct {
	id      string
	waiters list.List // of *fairWaiter
	turn    *list.Element
}

// fairWaiter is one waiting query: ready is closed when it is given a slot.
type fairWaiter struct {
	ready   chan struct{}
	granted bool // under mu: the slot is its own, to give back if it gave up
	elem    *list.Element
}

func newFairSlots(size int) *fairSlots {
	return &fairSlots{size: max(size, 1), byClient: map[string]*fairClient{}}
}

// acquire takes a slot for client, waiting for one until ctx is done (it then
// returns ctx.Err()) or stop, when not nil, is closed (ErrClosed). It holds no
// slot when it returns an error: a slot given to it as it gave up goes to the
// next waiter.
func (s *fairSlots) acquire(ctx context.Context, client string, stop <-chan struct{}) error {
	s.mu.Lock()
	if s.held < s.size {
		s.held++
		s.given(client, false)
		s.mu.Unlock()
		return nil
	}
	c := s.byClient[client]
	if c == nil {
		c = &fairClient{id: client}
		c.turn = s.turns.PushBack(c)
		s.byClient[client] = c
	}
	w := &fairWaiter{ready: make(chan struct{})}
	w.elem = c.waiters.PushBack(w)
	s.mu.Unlock()

	var err error
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-stop:
		err = ErrClosed
	}
	if s.onGiveUp != nil {
		s.onGiveUp()
	}
	s.mu.Lock()
	if w.granted {
		// Given a slot as it gave up: it goes on to the next in turn.
		s.mu.Unlock()
		s.release()
		return err
	}
	c.waiters.Remove(w.elem)
	if c.waiters.Len() == 0 {
		s.turns.Remove(c.turn)
		delete(s.byClient, client)
	}
	s.mu.Unlock()
	return err
}

// release gives back a slot: to the next client in turn with a query waiting,
// or to the free ones.
func (s *fairSlots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.turns.Front()
	if e == nil {
		if s.held <= 0 {
			panic("engine: a slot given back that was not taken")
		}
		s.held--
		return
	}
	if c := e.Value.(*fairClient); c.id == s.last && e.Next() != nil {
		e = e.Next() // served last: the others first
	}
	c := e.Value.(*fairClient)
	w := c.waiters.Remove(c.waiters.Front()).(*fairWaiter)
	w.granted = true
	close(w.ready)
	if c.waiters.Len() == 0 {
		s.turns.Remove(e)
		delete(s.byClient, c.id)
	} else {
		s.turns.MoveToBack(e)
	}
	s.given(c.id, true)
}

// given notes that client was given a slot, after waiting or not; under mu.
func (s *fairSlots) given(client string, waited bool) {
	s.last = client
	if s.onGrant != nil {
		s.onGrant(client, waited)
	}
}

// taken returns the slots taken and the queries waiting.
func (s *fairSlots) taken() (held, waiting int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.byClient {
		waiting += c.waiters.Len()
	}
	return s.held, waiting
}
