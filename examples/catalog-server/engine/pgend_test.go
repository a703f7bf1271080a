package engine

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// stallProxy forwards TCP connections on 127.0.0.1 to target; while stalled,
// what clients send is held back (a hung network, a paused pooler), what the
// server sends still goes through. closed counts the connections a client
// closed (or reset); a server's close only half-closes the client's side.
type stallProxy struct {
	addr    string
	stalled atomic.Bool
	closed  atomic.Int32
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
			wg.Add(2)
			go func() {
				defer wg.Done()
				io.Copy(c, s)
				// Half-closed: the client reads the server's end, and
				// the reader below still sees the client's own close
				// (a server that ends the connection on the client's
				// Terminate, as PostgreSQL and pgbouncer do, must not
				// turn it into a read of a closed connection).
				c.(*net.TCPConn).CloseWrite()
			}()
			go func() {
				defer wg.Done()
				defer s.Close()
				buf := make([]byte, 32<<10)
				for {
					n, err := c.Read(buf)
					for n > 0 && px.stalled.Load() {
						time.Sleep(10 * time.Millisecond)
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
