package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// stallProxy forwards TCP connections on 127.0.0.1 to target; while stalled,
// what clients send is held back (a hung network, a paused pooler), what the
// server sends still goes through. closed counts the connections a client
// closed (or reset); a server's close only half-closes the client's side, and
// a client's close closes the server's side, unless keep is set: then that
// stays open (a network that never carries the close) until the test's end,
// or, for the hit connection, until the test closes hit.server. arm breaks
// the next connection that carries what a client sends (hit): past the next
// pass bytes of it, what its client sends is dropped (a network lost in the
// middle of a message), or (mute) what its server sends is dropped (an answer
// that never comes back).
type stallProxy struct {
	addr    string
	stalled atomic.Bool
	keep    atomic.Bool
	closed  atomic.Int32

	cancels atomic.Int32 // cancel-request connections whose client is still there

	armed atomic.Pointer[proxyBreak]
	hit   atomic.Pointer[proxyBreak]
}

// proxyBreak is how arm breaks a connection, and whether its client left.
type proxyBreak struct {
	pass   int64 // bytes of the client's still forwarded; -1: all
	mute   bool
	ended  atomic.Bool
	server atomic.Pointer[net.TCPConn] // the server's side, once hit
}

// arm breaks the next connection that carries a client's bytes: pass of them
// go through, the rest are dropped (pass < 0: all go through), and, if mute,
// what its server sends is dropped.
func (px *stallProxy) arm(pass int64, mute bool) {
	px.armed.Store(&proxyBreak{pass: pass, mute: mute})
}

func startStallProxy(t *testing.T, target string) *stallProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	px := &stallProxy{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var all []net.Conn
	t.Cleanup(func() {
		ln.Close()
		// pgx's cancel requests (sent when a read times out) end on their
		// own: closing one before pgbouncer 1.18 has passed it on brings
		// pgbouncer down ("disconnect_client(): bad client state: 0",
		// pgbouncer issue 801).
		deadline := time.Now().Add(20 * time.Second)
		for px.cancels.Load() > 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		mu.Lock()
		for _, c := range all {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			all = append(all, c, s)
			mu.Unlock()
			var brk atomic.Pointer[proxyBreak] // this connection's, once hit
			wg.Add(2)
			go func() {
				defer wg.Done()
				buf := make([]byte, 32<<10)
				for {
					n, err := s.Read(buf)
					if b := brk.Load(); n > 0 && (b == nil || !b.mute) {
						if _, werr := c.Write(buf[:n]); werr != nil {
							break
						}
					}
					if err != nil {
						break
					}
				}
				// Half-closed: the client reads the server's end, and
				// the reader below still sees the client's own close
				// (a server that ends the connection on the client's
				// Terminate, as PostgreSQL and pgbouncer do, must not
				// turn it into a read of a closed connection).
				c.(*net.TCPConn).CloseWrite()
			}()
			go func() {
				defer wg.Done()
				defer func() {
					if !px.keep.Load() {
						s.Close()
					}
				}()
				buf := make([]byte, 32<<10)
				left := int64(-1)
				first := true
				for {
					n, err := c.Read(buf)
					// A cancel request: length 16, code 80877102.
					if first && n >= 8 && binary.BigEndian.Uint32(buf[4:8]) == 80877102 {
						px.cancels.Add(1)
						defer px.cancels.Add(-1)
					}
					first = first && n == 0
					for n > 0 && px.stalled.Load() {
						time.Sleep(10 * time.Millisecond)
					}
					if b := px.armed.Load(); n > 0 && b != nil && px.armed.CompareAndSwap(b, nil) {
						b.server.Store(s.(*net.TCPConn))
						brk.Store(b)
						px.hit.Store(b)
						left = b.pass
					}
					if left >= 0 {
						m := min(int64(n), left)
						left -= m
						n = int(m)
					}
					if n > 0 {
						if _, werr := s.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						// Only the client's own close (or reset) ends this
						// read: c is half-closed, not closed, when the server
						// leaves, and closed here only at the test's end.
						if !errors.Is(err, net.ErrClosed) {
							px.closed.Add(1)
							if b := brk.Load(); b != nil {
								b.ended.Store(true)
							}
						}
						return
					}
				}
			}()
		}
	}()
	return px
}

// TestPostgresEndBounded: the end of a query's transaction (pgEnd: the
// rollback and the release of its advisory locks) on a connection that
// stopped carrying what the server is sent (a hung network, a paused
// pgbouncer) gives up after pgReleaseTimeout and closes the connection,
// which the pool drops (the server session, and its locks, end with it);
// the next query runs on a new one. Before, pgEnd waited for ever, the
// query's turn and connection held. Directly, and through pgbouncer
// (CATALOG_TEST_PGBOUNCER_DSN), which closes the server connection of a client
// that leaves in a transaction.
func TestPostgresEndBounded(t *testing.T) {
	dsns := map[string]string{"direct": pgDSN(t)}
	if b := os.Getenv("CATALOG_TEST_PGBOUNCER_DSN"); b != "" {
		dsns["pgbouncer"] = b
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) { testEndBounded(t, dsn) })
	}
}

func testEndBounded(t *testing.T, dsn string) {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	px := startStallProxy(t, u.Host)
	u.Host = px.addr
	p := openTestPGAt(t, u.String())
	defer func(d time.Duration) { pgReleaseTimeout = d }(pgReleaseTimeout)
	pgReleaseTimeout = 300 * time.Millisecond
	pgEndBegun = func() { px.stalled.Store(true) }
	defer func() { pgEndBegun = nil }()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := p.Query(context.Background(), "SELECT pg_advisory_lock(4254)", nil, testLimits)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		px.stalled.Store(false)
		t.Fatal("the query's end waited past its bound")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the query returned after %v", d)
	}
	pgEndBegun = nil
	px.stalled.Store(false)
	waitFor(t, "the connection closed", func() bool { return px.closed.Load() >= 1 })
	// The server session, and the lock it held, ended with the connection.
	conn, err := pgx.Connect(context.Background(), pgDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	waitFor(t, "the lock released", func() bool {
		var free bool
		err := conn.QueryRow(context.Background(), "SELECT pg_try_advisory_xact_lock(4254)").Scan(&free)
		return err == nil && free
	})
	if res, err := p.Query(context.Background(), "SELECT 1 AS one", nil, testLimits); err != nil || len(res.Rows) != 1 {
		t.Errorf("the next query: %v", err)
	}
}

// TestPostgresNoUnlockAfterRelease: a connection goes back to the pool with
// nothing sent after the query's own end (pgEnd's "ROLLBACK; SELECT
// pg_advisory_unlock_all()"), which either released the session's advisory
// locks or closed the connection. Before, the pool's AfterRelease sent
// "SELECT pg_advisory_unlock_all()" again, as a transaction of its own, on
// every release: behind a transaction-pooling pgbouncer, in whatever server
// session was idle, maybe another application's of the same role. The last
// statement of the query's server session (pg_stat_activity, read by the
// superuser of CATALOG_TEST_PG_SUPER_DSN) says which was sent last.
func TestPostgresNoUnlockAfterRelease(t *testing.T) {
	super := os.Getenv("CATALOG_TEST_PG_SUPER_DSN")
	if super == "" {
		t.Skip("CATALOG_TEST_PG_SUPER_DSN is unset: pg_stat_activity cannot be read (see .ci/catalog.sh)")
	}
	p := openTestPG(t)
	res, err := p.Query(context.Background(), "SELECT pg_backend_pid() AS pid, pg_advisory_lock(4255) AS l", nil, testLimits)
	if err != nil {
		t.Fatal(err)
	}
	pid := res.Rows[0][0]
	// Idle in the pool: pgxpool gives a connection back after AfterRelease.
	waitFor(t, "an idle connection", func() bool {
		conns := p.pool.AcquireAllIdle(context.Background())
		for _, c := range conns {
			defer c.Release()
		}
		return len(conns) > 0
	})
	conn, err := pgx.Connect(context.Background(), super)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var last string
	if err := conn.QueryRow(context.Background(), "SELECT query FROM pg_stat_activity WHERE pid = $1", pid).Scan(&last); err != nil {
		t.Fatal(err)
	}
	if last != "ROLLBACK; SELECT pg_advisory_unlock_all()" {
		t.Errorf("the session's last statement: %q", last)
	}
}

// TestPostgresEndCut: a session-level advisory lock a query took
// (pg_advisory_lock) is not left held when pgEnd's one message ("ROLLBACK;
// SELECT pg_advisory_unlock_all()", 47 bytes) reaches the server only in part
// (none of it, its 5-byte header, 20 bytes: the rest, and the Terminate, are
// lost) or whole with its answer lost, and pgEnd gives up after
// pgReleaseTimeout. Within 5 s (it takes milliseconds) the client's socket
// closes and no session holds the lock (pg_locks, and pg_try_advisory_xact_lock
// from a connection of its own); directly, the query's server session has
// ended (pg_stat_activity, with CATALOG_TEST_PG_SUPER_DSN); the next query runs.
// Through pgbouncer (transaction pooling), the server connection of a client
// that leaves in a transaction is closed ("client disconnect while server was
// not ready"), and a server session that ran the whole message released the
// lock before it went back to the pool. Before, pgCleanUp left the socket to
// pgx's background close, which waited up to 15 s for the server to close
// first: the cut cases held the lock 15 s. The control (keep): when the
// client's close never reaches the server (or pgbouncer), the query's session
// still holds the lock, which goes once the proxy closes the server's side.
func TestPostgresEndCut(t *testing.T) {
	dsns := map[string]string{"direct": pgDSN(t)}
	if b := os.Getenv("CATALOG_TEST_PGBOUNCER_DSN"); b != "" {
		dsns["pgbouncer"] = b
	}
	cases := []struct {
		name string
		pass int64 // bytes of the message that get through; -1: all, its answer lost
		keep bool  // the client's close never reaches the server
	}{
		{"nothing", 0, false},
		{"header", 5, false},
		{"part-of-sql", 20, false},
		{"no-answer", -1, false},
		{"control-kept-open", 20, true},
	}
	key := int64(4260)
	for name, dsn := range dsns {
		for _, c := range cases {
			key++
			t.Run(name+"/"+c.name, func(t *testing.T) { testEndCut(t, name, dsn, c.pass, c.keep, key) })
		}
	}
}

func testEndCut(t *testing.T, name, dsn string, pass int64, keep bool, key int64) {
	ctx := context.Background()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	px := startStallProxy(t, u.Host)
	px.keep.Store(keep)
	u.Host = px.addr
	p := openTestPGAt(t, u.String())
	check, err := pgx.Connect(ctx, pgDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close(ctx)
	// held: the sessions holding the lock (pg_locks: a bigint key is classid,
	// the high half, and objid, the low one; objsubid 1).
	held := func() []int32 {
		rows, err := check.Query(ctx, `SELECT pid FROM pg_locks WHERE locktype = 'advisory'
			AND classid = ($1::bigint >> 32)::oid AND objid = ($1::bigint & 4294967295)::oid AND objsubid = 1 AND granted`, key)
		if err != nil {
			t.Fatal(err)
		}
		pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			t.Fatal(err)
		}
		return pids
	}
	free := func() bool {
		var ok bool
		if err := check.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1)", key).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok && len(held()) == 0
	}
	if !free() {
		t.Fatalf("lock %d held before the query", key)
	}
	defer func(d time.Duration) { pgReleaseTimeout = d }(pgReleaseTimeout)
	pgReleaseTimeout = 300 * time.Millisecond
	pgEndBegun = func() { px.arm(pass, pass < 0) }
	defer func() { pgEndBegun = nil }()
	start := time.Now()
	res, err := p.Query(ctx, fmt.Sprintf("SELECT pg_backend_pid() AS pid, pg_advisory_lock(%d) AS l", key), nil, testLimits)
	pgEndBegun = nil
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the query returned after %v", d)
	}
	if len(res.Rows) != 1 {
		t.Fatalf("rows: %v", res.Rows)
	}
	pid, err := strconv.ParseInt(fmt.Sprint(res.Rows[0][0]), 10, 32)
	if err != nil {
		t.Fatalf("pid %v: %v", res.Rows[0][0], err)
	}
	// pgEnd gave up and closed the connection (the pool dropped it): the one
	// the message was sent on, not the one of pgx's cancel request, which
	// goes through.
	hit := px.hit.Load()
	if hit == nil {
		t.Fatal("pgEnd sent nothing")
	}
	waitWithin(t, "the client closed the connection", 5*time.Second, hit.ended.Load)
	if keep {
		// Nothing more reaches the server: the session, its transaction and
		// its lock live on (a direct server session waits for the rest of
		// its message; pgbouncer keeps the server linked to a client that
		// has not left).
		if pids := held(); len(pids) != 1 || int64(pids[0]) != pid {
			t.Fatalf("control: the lock's holders %v, not the query's session %d", pids, pid)
		}
		hit.server.Load().Close()
	}
	// Within seconds, not after pgx's 15 s wait for the server's close.
	waitWithin(t, "the lock released", 5*time.Second, free)
	super := os.Getenv("CATALOG_TEST_PG_SUPER_DSN")
	if super == "" {
		t.Log("CATALOG_TEST_PG_SUPER_DSN is unset: whether the server session ended is not checked")
	} else {
		sc, err := pgx.Connect(ctx, super)
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close(ctx)
		alive := func() bool {
			var n int
			if err := sc.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n > 0
		}
		if name == "direct" {
			waitWithin(t, "the query's server session ended", 5*time.Second, func() bool { return !alive() })
		} else {
			t.Logf("the query's server session (%d) after the lock's release: alive %v", pid, alive())
		}
	}
	if res, err := p.Query(ctx, "SELECT 1 AS one", nil, testLimits); err != nil || len(res.Rows) != 1 {
		t.Errorf("the next query: %v", err)
	}
	if !free() {
		t.Errorf("lock %d held after the next query", key)
	}
}

// waitWithin waits, for d at most, until cond holds: a bound the test asserts
// (d is seconds where what it waits for takes milliseconds).
func waitWithin(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
