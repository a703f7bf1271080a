package engine

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"
)

// turnsSlowSQL computes far longer than the tests wait; DuckDB stops it
// between chunks of rows when its caller goes away.
const turnsSlowSQL = "SELECT sum(range % 7) AS s FROM range(1000000000000)"

// grantLog records the clients s gives slots to, in order.
type grantLog struct {
	s       *fairSlots
	clients []string // under s.mu
}

func logGrants(s *fairSlots) *grantLog {
	g := &grantLog{s: s}
	s.onGrant = func(client string, _ bool) { g.clients = append(g.clients, client) }
	return g
}

func (g *grantLog) get() []string {
	g.s.mu.Lock()
	defer g.s.mu.Unlock()
	return slices.Clone(g.clients)
}

// turnsQueries runs slow queries of one client and cancels them on stop.
type turnsQueries struct {
	wg      sync.WaitGroup
	cancels []context.CancelFunc
}

func (q *turnsQueries) start(e querier, client string) { q.startSQL(e, client, turnsSlowSQL) }

func (q *turnsQueries) startSQL(e querier, client, sqlText string) {
	ctx, cancel := context.WithCancel(context.Background())
	q.cancels = append(q.cancels, cancel)
	q.wg.Go(func() {
		e.Query(ctx, sqlText, nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 5 * time.Minute, Client: client})
	})
}

func (q *turnsQueries) stop() {
	for _, c := range q.cancels {
		c()
	}
	q.wg.Wait()
}

// TestDuckTurnsByClient: client A fills a model's 8 connections with slow
// queries and queues 3 more; client B then queues one. When A's first query
// ends, its connection goes to B's query, not to A's queued ones that came
// before it. (Before, a connection went to the first query that waited.)
func TestDuckTurnsByClient(t *testing.T) {
	d := openTestDuck(t)
	grants := logGrants(d.slots)
	var a turnsQueries
	defer a.stop()
	for range duckMaxConns {
		a.start(d, "A")
	}
	waitFor(t, "A's queries holding every connection", func() bool { return d.slots.inUse() == duckMaxConns })
	for i := range 3 {
		a.start(d, "A")
		waitFor(t, "A's queries waiting", func() bool { _, n := d.slots.taken(); return n == i+1 })
	}
	type answer struct {
		res *Result
		err error
	}
	bc := make(chan answer, 1)
	go func() {
		res, err := d.Query(context.Background(), "SELECT count(*) FROM items", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 5 * time.Minute, Client: "B"})
		bc <- answer{res, err}
	}()
	waitFor(t, "B's query waiting", func() bool { _, n := d.slots.taken(); return n == 4 })
	a.cancels[0]() // the first of A's running queries ends
	want := append(slices.Repeat([]string{"A"}, duckMaxConns), "B")
	waitFor(t, "a connection given again", func() bool { return len(grants.get()) >= len(want) })
	if got := grants.get(); !slices.Equal(got[:len(want)], want) {
		t.Errorf("connections given to %v, want %v first", got, want)
	}
	a.stop() // (B's query is answered then if it was not given its turn)
	b := <-bc
	if b.err != nil || b.res.Rows[0][0] != int64(3) {
		t.Fatalf("B's query: %v %+v", b.err, b.res)
	}
	waitFor(t, "every connection given back", func() bool { h, w := d.slots.taken(); return h == 0 && w == 0 })
}

// TestDuckProcTurnsByClient: the same for the server's query processes
// (-max-query-processes, 2 here), shared by two models: client A's 2 slow
// queries on one model hold both, and 2 more of A wait; client B's query of
// the other model, queued after them, gets the first process to free.
func TestDuckProcTurnsByClient(t *testing.T) {
	g := NewProcessLimit(2)
	pa, pb := openProc(t, nil, DuckConfig{Processes: g}), openProc(t, nil, DuckConfig{Processes: g})
	grants := logGrants(g.slots)
	var a turnsQueries
	defer a.stop()
	for range 2 {
		a.start(pa, "A")
	}
	waitFor(t, "A's queries holding both processes", func() bool { return g.slots.inUse() == 2 })
	for i := range 2 {
		a.start(pa, "A")
		waitFor(t, "A's queries waiting", func() bool { _, n := g.slots.taken(); return n == i+1 })
	}
	type answer struct {
		res *Result
		err error
	}
	bc := make(chan answer, 1)
	go func() {
		res, err := pb.Query(context.Background(), "SELECT count(*) FROM items", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 5 * time.Minute, Client: "B"})
		bc <- answer{res, err}
	}()
	waitFor(t, "B's query waiting", func() bool { _, n := g.slots.taken(); return n == 3 })
	a.cancels[0]()
	want := []string{"A", "A", "B"}
	waitFor(t, "a process given again", func() bool { return len(grants.get()) >= len(want) })
	if got := grants.get(); !slices.Equal(got[:len(want)], want) {
		t.Errorf("query processes given to %v, want %v first", got, want)
	}
	a.stop()
	b := <-bc
	if b.err != nil || cell(b.res, 0, 0) != "3" {
		t.Fatalf("B's query: %v %+v", b.err, b.res)
	}
	waitFor(t, "every process slot given back", func() bool { h, w := g.slots.taken(); return h == 0 && w == 0 })
}

// TestPostgresTurnsByClient: the same for a PostgreSQL model's 4 connections,
// held by client A's queries that wait in pg_sleep.
func TestPostgresTurnsByClient(t *testing.T) {
	p := openTestPG(t)
	grants := logGrants(p.slots)
	var a turnsQueries
	defer a.stop()
	for range pgMaxConns {
		a.startSQL(p, "A", "SELECT pg_sleep(600) IS NULL AS slept")
	}
	waitFor(t, "A's queries holding every connection", func() bool { return p.slots.inUse() == pgMaxConns })
	for i := range 2 {
		a.startSQL(p, "A", "SELECT pg_sleep(600) IS NULL AS slept")
		waitFor(t, "A's queries waiting", func() bool { _, n := p.slots.taken(); return n == i+1 })
	}
	// A query whose turn does not come within its limit is told the model was
	// busy, and leaves the queue.
	_, err := p.Query(context.Background(), "SELECT 1 AS one", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 300 * time.Millisecond, Client: "C"})
	var be *BusyError
	if !errors.As(err, &be) || be.Conns != pgMaxConns {
		t.Errorf("a query whose turn did not come: %v", err)
	}
	if _, n := p.slots.taken(); n != 2 {
		t.Errorf("%d queries waiting after C's gave up, want A's 2", n)
	}
	type answer struct {
		res *Result
		err error
	}
	bc := make(chan answer, 1)
	go func() {
		res, err := p.Query(context.Background(), "SELECT count(*) FROM low", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 5 * time.Minute, Client: "B"})
		bc <- answer{res, err}
	}()
	waitFor(t, "B's query waiting", func() bool { _, n := p.slots.taken(); return n == 3 })
	a.cancels[0]()
	want := append(slices.Repeat([]string{"A"}, pgMaxConns), "B")
	waitFor(t, "a connection given again", func() bool { return len(grants.get()) >= len(want) })
	if got := grants.get(); !slices.Equal(got[:len(want)], want) {
		t.Errorf("connections given to %v, want %v first", got, want)
	}
	a.stop()
	if b := <-bc; b.err != nil || len(b.res.Rows) != 1 {
		t.Fatalf("B's query: %v %+v", b.err, b.res)
	}
	waitFor(t, "every connection given back", func() bool { h, w := p.slots.taken(); return h == 0 && w == 0 })
}

// TestPostgresCloseAnswersWaiters: closing a PostgreSQL model (a reload
// replaced it) answers the queries waiting for their turn at once with
// ErrClosed (the service runs them again on the new model).
func TestPostgresCloseAnswersWaiters(t *testing.T) {
	p := openTestPG(t)
	for range pgMaxConns { // every connection's turn held, as by running queries
		if err := p.slots.acquire(context.Background(), "A", nil); err != nil {
			t.Fatal(err)
		}
	}
	errc := make(chan error, 1)
	go func() {
		_, err := p.Query(context.Background(), "SELECT 1 AS one", nil, Limits{RowLimit: 10, ByteBudget: 1 << 20, Timeout: 30 * time.Second, Client: "B"})
		errc <- err
	}()
	waitFor(t, "B's query waiting", func() bool { _, n := p.slots.taken(); return n == 1 })
	p.Close()
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("a query waiting when its model closed: %v, want ErrClosed", err)
	}
	for range pgMaxConns {
		p.slots.release()
	}
}
