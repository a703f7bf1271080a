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
// Clients of one group (Limits.Group: the /64s of one IPv6 /48, which one host
// can all send from) take their turns as one: the turns go round the groups,
// and within the group that has the turn, round its clients the same way. A
// client in no group is a group of its own. So a host sending from 16 /64s of
// its site is served once per round, as a host with one address is, instead of
// 16 times.
//
// Its size: one entry per client and per group with a query waiting, and one
// per waiting query, each removed when its query is served or gives up. The
// server caps what each client has running or waiting at once
// (-max-queries-per-client, clientshare.go), so the waiters are at most that
// share times the clients with queries in progress; without a share (stdio,
// or the share turned off) they are the queries waiting, each a goroutine
// blocked in acquire, as they were with a channel.
type fairSlots struct {
	size int

	mu         sync.Mutex
	held       int                     // slots taken; below size only when no one waits
	groups     map[groupKey]*fairGroup // groups with a query waiting
	turns      list.List               // of *fairGroup: the order in which they are served
	last       groupKey                // the group of the latest slot given
	lastClient string                  // and its client
	// For the tests: onGrant is called, under mu, for each slot given;
	// onGiveUp when a waiter gave up, before it takes mu.
	onGrant  func(client string, waited bool)
	onGiveUp func()
}

// fairGroup is a group's clients with a query waiting, in the order of their
// turns.
type fairGroup struct {
	key     groupKey
	clients map[string]*fairClient
	turns   list.List // of *fairClient
	turn    *list.Element
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
	return &fairSlots{size: max(size, 1), groups: map[groupKey]*fairGroup{}}
}

// groupKey is a group's key: the group's name, or a client in no group
// (group "") alone, so that the two never meet.
type groupKey struct{ group, client string }

// keyOf is the key of client's group.
func keyOf(group, client string) groupKey {
	if group == "" {
		return groupKey{client: client}
	}
	return groupKey{group: group}
}

// acquire takes a slot for client (in no group), as acquireIn does.
func (s *fairSlots) acquire(ctx context.Context, client string, stop <-chan struct{}) error {
	return s.acquireIn(ctx, "", client, stop)
}

// acquireIn takes a slot for client of group, waiting for one until ctx is done
// (it then returns ctx.Err()) or stop, when not nil, is closed (ErrClosed). It
// holds no slot when it returns an error: a slot given to it as it gave up goes
// to the next waiter.
func (s *fairSlots) acquireIn(ctx context.Context, group, client string, stop <-chan struct{}) error {
	gk := keyOf(group, client)
	s.mu.Lock()
	if s.held < s.size {
		s.held++
		s.given(gk, client, false)
		s.mu.Unlock()
		return nil
	}
	g := s.groups[gk]
	if g == nil {
		g = &fairGroup{key: gk, clients: map[string]*fairClient{}}
		g.turn = s.turns.PushBack(g)
		s.groups[gk] = g
	}
	c := g.clients[client]
	if c == nil {
		c = &fairClient{id: client}
		c.turn = g.turns.PushBack(c)
		g.clients[client] = c
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
	s.drop(g, c)
	s.mu.Unlock()
	return err
}

// drop removes c from g's turns, and g from the groups', once they have no
// query waiting; under mu.
func (s *fairSlots) drop(g *fairGroup, c *fairClient) {
	if c.waiters.Len() > 0 {
		return
	}
	g.turns.Remove(c.turn)
	delete(g.clients, c.id)
	if g.turns.Len() == 0 {
		s.turns.Remove(g.turn)
		delete(s.groups, g.key)
	}
}

// release gives back a slot: to the next group in turn with a query waiting,
// and in it to the next client in turn, or to the free ones.
func (s *fairSlots) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	ge := s.turns.Front()
	if ge == nil {
		if s.held <= 0 {
			panic("engine: a slot given back that was not taken")
		}
		s.held--
		return
	}
	if ge.Value.(*fairGroup).key == s.last && ge.Next() != nil {
		ge = ge.Next() // served last: the others first
	}
	g := ge.Value.(*fairGroup)
	ce := g.turns.Front()
	if ce.Value.(*fairClient).id == s.lastClient && g.key == s.last && ce.Next() != nil {
		ce = ce.Next()
	}
	c := ce.Value.(*fairClient)
	w := c.waiters.Remove(c.waiters.Front()).(*fairWaiter)
	w.granted = true
	close(w.ready)
	g.turns.MoveToBack(ce)
	s.turns.MoveToBack(ge)
	s.drop(g, c)
	s.given(g.key, c.id, true)
}

// given notes that client of the group keyed gk was given a slot, after
// waiting or not; under mu.
func (s *fairSlots) given(gk groupKey, client string, waited bool) {
	s.last, s.lastClient = gk, client
	if s.onGrant != nil {
		s.onGrant(client, waited)
	}
}

// taken returns the slots taken and the queries waiting.
func (s *fairSlots) taken() (held, waiting int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.groups {
		for _, c := range g.clients {
			waiting += c.waiters.Len()
		}
	}
	return s.held, waiting
}
