package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// inUse returns the slots taken.
func (s *fairSlots) inUse() int {
	held, _ := s.taken()
	return held
}

// waitFor waits, for 30 s at most, until cond holds; it is a wait for a state,
// not a measure of time.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; !cond(); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		if i < 1000 {
			runtime.Gosched()
		} else {
			time.Sleep(time.Millisecond)
		}
	}
}

// queueWaiter starts a goroutine taking a slot of s for client, and returns
// once it waits (the waiters are queued in the order of the calls). It sends
// name on got when it has the slot, or name+" "+err when it gave up.
func queueWaiter(t *testing.T, s *fairSlots, ctx context.Context, client, name string, got chan<- string) {
	t.Helper()
	_, before := s.taken()
	go func() {
		if err := s.acquire(ctx, client, nil); err != nil {
			got <- name + " " + err.Error()
			return
		}
		got <- name
	}()
	waitFor(t, name+" waiting", func() bool { _, n := s.taken(); return n == before+1 })
}

// TestFairSlotsRoundRobin: when a slot frees, it goes to the next client in
// turn with a query waiting, and to that client's longest waiting query: A's
// three queued queries, queued before B's and C's, do not all go first.
func TestFairSlotsRoundRobin(t *testing.T) {
	s := newFairSlots(1)
	var grants []string
	s.onGrant = func(client string, waited bool) { grants = append(grants, fmt.Sprintf("%s %v", client, waited)) }
	if err := s.acquire(context.Background(), "X", nil); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 8)
	ctx := context.Background()
	for _, w := range [][2]string{{"A", "A1"}, {"A", "A2"}, {"A", "A3"}, {"B", "B1"}, {"C", "C1"}, {"C", "C2"}} {
		queueWaiter(t, s, ctx, w[0], w[1], got)
	}
	var order []string
	for range 6 {
		s.release() // one slot: each release serves one waiter, which holds it
		order = append(order, <-got)
	}
	if want := []string{"A1", "B1", "C1", "A2", "C2", "A3"}; !slices.Equal(order, want) {
		t.Errorf("served %v, want %v", order, want)
	}
	if want := []string{"X false", "A true", "B true", "C true", "A true", "C true", "A true"}; !slices.Equal(grants, want) {
		t.Errorf("grants %v, want %v", grants, want)
	}
	s.release()
	if held, waiting := s.taken(); held != 0 || waiting != 0 || len(s.groups) != 0 || s.turns.Len() != 0 {
		t.Errorf("after: %d held, %d waiting, %d clients", held, waiting, len(s.groups))
	}
}

// TestFairSlotsGroups: the clients of one group (the /64s of an IPv6 /48)
// take their turns as one client: a client alone, queued after three of the
// group's, is served every other slot, not after all three; within the group
// its clients take turns the same way (G1's second query after G2's first).
func TestFairSlotsGroups(t *testing.T) {
	s := newFairSlots(1)
	ctx := context.Background()
	if err := s.acquire(ctx, "H", nil); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 8)
	queue := func(group, client, name string) {
		_, before := s.taken()
		go func() {
			if err := s.acquireIn(ctx, group, client, nil); err != nil {
				got <- name + " " + err.Error()
				return
			}
			got <- name
		}()
		waitFor(t, name+" waiting", func() bool { _, n := s.taken(); return n == before+1 })
	}
	queue("G", "G1", "g1a")
	queue("G", "G1", "g1b")
	queue("G", "G2", "g2a")
	queue("", "V", "v1")
	queue("", "V", "v2")
	queue("", "V", "v3")
	// A client named as a group is still another client: "G" alone is not in G.
	queue("", "G", "lone")
	var order []string
	for range 7 {
		s.release()
		order = append(order, <-got)
	}
	if want := []string{"g1a", "v1", "lone", "g2a", "v2", "g1b", "v3"}; !slices.Equal(order, want) {
		t.Errorf("served %v, want %v", order, want)
	}
	s.release()
	if held, waiting := s.taken(); held != 0 || waiting != 0 || len(s.groups) != 0 || s.turns.Len() != 0 {
		t.Errorf("after: %d held, %d waiting, %d groups", held, waiting, len(s.groups))
	}
}

// TestFairSlotsServedLastGoesAfter: a client that took every slot and queued
// more is served after a client that queued later: the first slot to free goes
// to the other client's one query. Each client's own queries go in their
// order.
func TestFairSlotsServedLastGoesAfter(t *testing.T) {
	s := newFairSlots(3)
	ctx := context.Background()
	for range 3 {
		if err := s.acquire(ctx, "A", nil); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan string, 8)
	for i := range 4 {
		queueWaiter(t, s, ctx, "A", fmt.Sprint("A", i+4), got)
	}
	queueWaiter(t, s, ctx, "B", "B1", got)
	var order []string
	for range 5 {
		s.release()
		order = append(order, <-got)
	}
	if want := []string{"B1", "A4", "A5", "A6", "A7"}; !slices.Equal(order, want) {
		t.Errorf("served %v, want %v", order, want)
	}
	for range 3 {
		s.release()
	}
	if held, waiting := s.taken(); held != 0 || waiting != 0 {
		t.Errorf("after: %d held, %d waiting", held, waiting)
	}
}

// TestFairSlotsGiveUp: a query that gives up waiting (its context done, or its
// model closing) leaves the queue and holds nothing: the slot goes to the next
// waiter; a client whose only waiter gave up loses its turn, one with another
// waiter keeps it.
func TestFairSlotsGiveUp(t *testing.T) {
	s := newFairSlots(1)
	if err := s.acquire(context.Background(), "X", nil); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 8)
	dctx, dcancel := context.WithCancel(context.Background())
	queueWaiter(t, s, dctx, "D", "D1", got)
	actx, acancel := context.WithCancel(context.Background())
	queueWaiter(t, s, actx, "A", "A1", got)
	queueWaiter(t, s, context.Background(), "B", "B1", got)
	queueWaiter(t, s, context.Background(), "A", "A2", got)
	dcancel()
	if g := <-got; g != "D1 context canceled" {
		t.Errorf("cancelled: %q", g)
	}
	acancel()
	if g := <-got; g != "A1 context canceled" {
		t.Errorf("cancelled: %q", g)
	}
	// A closing model answers its waiters ErrClosed.
	stop := make(chan struct{})
	errc := make(chan error, 1)
	_, before := s.taken()
	go func() { errc <- s.acquire(context.Background(), "C", stop) }()
	waitFor(t, "C waiting", func() bool { _, n := s.taken(); return n == before+1 })
	close(stop)
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("stopped: %v", err)
	}
	if held, waiting := s.taken(); held != 1 || waiting != 2 {
		t.Errorf("after giving up: %d held, %d waiting, want 1 and 2", held, waiting)
	}
	s.release()
	if g := <-got; g != "A2" {
		t.Errorf("first served after D1 and A1 gave up: %q, want A2 (A's turn)", g)
	}
	s.release()
	if g := <-got; g != "B1" {
		t.Errorf("then: %q, want B1", g)
	}
	s.release()
	if held, waiting := s.taken(); held != 0 || waiting != 0 || len(s.groups) != 0 || s.turns.Len() != 0 {
		t.Errorf("after: %d held, %d waiting, %d clients", held, waiting, len(s.groups))
	}
	// A context already done with a slot free still gets it: the caller
	// looks at its context next, as it did with a channel.
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := s.acquire(done, "D", nil); err != nil {
		t.Errorf("a free slot: %v", err)
	}
	s.release()
}

// TestFairSlotsCancelRace: a waiter's context is cancelled as a slot is given
// to it. Whichever comes first, no slot is lost or doubled: a waiter that
// gave up passes its slot on to the next waiter, or back to the free ones.
func TestFairSlotsCancelRace(t *testing.T) {
	s := newFairSlots(1)
	for i := range 2000 {
		if err := s.acquire(context.Background(), "X", nil); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		res := make(chan error, 1)
		_, before := s.taken()
		go func() { res <- s.acquire(ctx, "A", nil) }()
		waitFor(t, "A waiting", func() bool { _, n := s.taken(); return n == before+1 })
		// Every other round, another client waits too: a slot the first
		// gives up goes to it.
		other := make(chan error, 1)
		withOther := i%2 == 1
		if withOther {
			go func() { other <- s.acquire(context.Background(), "B", nil) }()
			waitFor(t, "B waiting", func() bool { _, n := s.taken(); return n == before+2 })
		}
		var wg sync.WaitGroup
		wg.Go(cancel)
		wg.Go(s.release)
		wg.Wait()
		held := 0
		if err := <-res; err == nil {
			held++
			s.release()
		} else if !errors.Is(err, context.Canceled) {
			t.Fatalf("round %d: %v", i, err)
		}
		if withOther {
			if err := <-other; err != nil {
				t.Fatalf("round %d: the other waiter: %v", i, err)
			}
			s.release()
		}
		if h, w := s.taken(); h != 0 || w != 0 {
			t.Fatalf("round %d: %d held, %d waiting after every slot was given back (the first waiter held %d)", i, h, w, held)
		}
	}
}

// TestFairSlotsGivenAsItGaveUp: the slot given to a waiter between its giving
// up and its leaving the queue goes on to the next waiter (here B), or back
// to the free ones; the waiter that gave up holds nothing.
func TestFairSlotsGivenAsItGaveUp(t *testing.T) {
	for _, withOther := range []bool{false, true} {
		s := newFairSlots(1)
		if err := s.acquire(context.Background(), "X", nil); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 2)
		ctx, cancel := context.WithCancel(context.Background())
		queueWaiter(t, s, ctx, "A", "A1", got)
		if withOther {
			queueWaiter(t, s, context.Background(), "B", "B1", got)
		}
		s.onGiveUp = func() { s.release() } // X's slot goes to A1, which has given up
		cancel()
		if g := <-got; g != "A1 context canceled" {
			t.Errorf("A1: %q", g)
		}
		want := 0
		if withOther {
			if g := <-got; g != "B1" {
				t.Errorf("B1: %q", g)
			}
			want = 1
		}
		if held, waiting := s.taken(); held != want || waiting != 0 {
			t.Errorf("with another waiter %v: %d held, %d waiting, want %d and 0", withOther, held, waiting, want)
		}
	}
}

// TestFairSlotsStress: many clients take and give back slots, some giving up;
// never more than the slots are held at once, and none is left held.
func TestFairSlotsStress(t *testing.T) {
	const size = 3
	s := newFairSlots(size)
	var holding, most atomic.Int32
	var wg sync.WaitGroup
	for c := range 6 {
		for q := range 4 {
			wg.Go(func() {
				r := rand.New(rand.NewPCG(uint64(c), uint64(q)))
				for range 300 {
					ctx, cancel := context.WithCancel(context.Background())
					if r.IntN(4) == 0 {
						go cancel()
					}
					if err := s.acquire(ctx, fmt.Sprint(c), nil); err == nil {
						n := holding.Add(1)
						for {
							m := most.Load()
							if n <= m || most.CompareAndSwap(m, n) {
								break
							}
						}
						holding.Add(-1)
						s.release()
					}
					cancel()
				}
			})
		}
	}
	wg.Wait()
	if m := most.Load(); m > size {
		t.Errorf("%d held at once, more than the %d slots", m, size)
	}
	if held, waiting := s.taken(); held != 0 || waiting != 0 || len(s.groups) != 0 || s.turns.Len() != 0 {
		t.Errorf("after: %d held, %d waiting, %d clients", held, waiting, len(s.groups))
	}
}
