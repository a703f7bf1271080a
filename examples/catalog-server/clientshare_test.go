package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
	"github.com/wiremcp/wiremcp/mcp"
	"github.com/wiremcp/wiremcp/transport/clientaddr"
	"github.com/wiremcp/wiremcp/transport/streamable"
)

// slowSQL computes for far longer than the tests' time limits, and DuckDB stops
// it there (between chunks of rows).
const slowSQL = "SELECT sum(range % 7) AS s FROM range(1000000000000)"

// connectFrom connects a client to url whose connections come from the local
// address ip (any 127.x.y.z is this machine's loopback on Linux): another
// client, as the server tells clients apart.
func connectFrom(t *testing.T, url, ip string) *mcp.ClientSession {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	if c, err := d.Dial("tcp", strings.TrimPrefix(url, "http://")); err != nil {
		t.Skipf("cannot connect from %s here: %v", ip, err)
	} else {
		c.Close()
	}
	tr, err := streamable.NewClient(url+"/mcp", &streamable.ClientOptions{HTTPClient: &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}})
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(mcp.Implementation{Name: "catalog-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// answer is what a call of execute_query got, and how long it took.
type answer struct {
	res *mcp.CallToolResult
	te  toolError
	el  time.Duration
}

// runQuery runs sql against path over cs.
func runQuery(t *testing.T, cs *mcp.ClientSession, path, sql string) answer {
	start := time.Now()
	raw, _ := json.Marshal(executeIn{Path: path, SQL: sql})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_query", Arguments: raw})
	if err != nil {
		t.Errorf("%s: %v", sql, err)
		return answer{}
	}
	var te toolError
	if res.IsError {
		sc, _ := res.StructuredContent.(json.RawMessage)
		json.Unmarshal(sc, &te)
	}
	return answer{res, te, time.Since(start)}
}

// TestClientShareOverHTTP: one client (127.0.0.1) sends 8 slow queries at once to
// one model, enough to hold all 8 of its connections; another client (127.0.0.2)
// then queries the same model. Before, the second client's query waited behind the
// slow ones for its whole time limit and was told the model was busy. Now the
// first client runs 4 (its share) and its others are refused at once, saying so;
// the second client is answered at once; and once the slow ones are answered the
// first client's share is whole again (nothing left counted).
func TestClientShareOverHTTP(t *testing.T) {
	const limit = 8 * time.Second
	svc := newTestService(t, sampleDir(t), Config{QueryTimeout: limit, Duck: engine.DuckConfig{Threads: 1}})
	ts := startHTTP(t, svc)
	a := connectFrom(t, ts.URL, "127.0.0.1")
	b := connectFrom(t, ts.URL, "127.0.0.2")

	run := func(cs *mcp.ClientSession, path, sql string) answer { return runQuery(t, cs, path, sql) }
	var wg sync.WaitGroup
	slow := make(chan answer, 8)
	for range 8 {
		wg.Go(func() { slow <- run(a, "retail/shop/sales", slowSQL) })
	}
	// The refusals come at once; the 4 running ones at the limit.
	var refused, stopped int
	deadline := time.After(limit / 2)
	for refused < 4 {
		select {
		case an := <-slow:
			if an.res == nil || !an.res.IsError || an.te.Kind != "unavailable" || !strings.Contains(an.te.Error, "your client already has 4 queries") || !strings.Contains(an.te.Error, "did not wait") || an.te.Hint == "" {
				t.Fatalf("a slow query past the share, after %v: %+v", an.el, an.te)
			}
			refused++
		case <-deadline:
			t.Fatalf("after %v, %d of the first client's 8 queries refused, want 4 (the others run)", limit/2, refused)
		}
	}
	// The first client's next query, of any model, is refused at once too.
	if an := run(a, "climate/stations/weather", "SELECT count(*) FROM readings"); !an.res.IsError || !strings.Contains(an.te.Error, "your client already has 4 queries") || an.el > limit/4 {
		t.Errorf("the first client's 9th query, after %v: %+v", an.el, an.te)
	}
	// The other client is answered, on the same model, well before the slow ones'
	// limit.
	for _, path := range []string{"retail/shop/sales", "climate/stations/weather"} {
		if an := run(b, path, "SELECT count(*) AS n FROM "+map[string]string{"retail/shop/sales": "orders", "climate/stations/weather": "readings"}[path]); an.res == nil || an.res.IsError || an.el > limit/4 {
			t.Errorf("the other client on %s, after %v: %+v %s", path, an.el, an.te, text(an.res))
		}
	}
	wg.Wait()
	close(slow)
	for an := range slow {
		if an.te.Kind == "timeout" {
			stopped++
		} else {
			t.Errorf("a running slow query: %+v", an.te)
		}
	}
	if stopped != 4 {
		t.Errorf("%d slow queries ran to their limit, want 4", stopped)
	}
	svc.shares.mu.Lock()
	left := len(svc.shares.n)
	svc.shares.mu.Unlock()
	if left != 0 {
		t.Errorf("counters left after every query was answered: %v", svc.shares.n)
	}
	if an := run(a, "retail/shop/sales", "SELECT 1 AS one"); an.res == nil || an.res.IsError {
		t.Errorf("the first client afterwards: %+v", an.te)
	}
}

// TestClientSharePerModel: a client holds at most half of one model's
// connections (2 of a PostgreSQL model's 4, 4 of a DuckDB model's 8), within its
// share over all models; counters go at zero; calls without a client (stdio) and
// a share turned off are not counted.
func TestClientSharePerModel(t *testing.T) {
	pg := &catalog.Model{Name: "m", Package: &catalog.Package{Name: "k", Engine: catalog.EnginePostgres, Project: &catalog.Project{Name: "p"}}}
	duck := &catalog.Model{Name: "d", Package: &catalog.Package{Name: "k", Engine: catalog.EngineDuckDB, Project: &catalog.Project{Name: "p"}}}
	c := newClientShares(4)
	ctx := withClient(context.Background(), "10.0.0.1")
	var releases []func()
	for range 2 {
		r, err := c.take(ctx, pg, modelPath(pg))
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	_, err := c.take(ctx, pg, modelPath(pg))
	if cb, ok := err.(*clientBusyError); !ok || !strings.Contains(cb.Error(), "2 queries of the model p/k/m") || !strings.Contains(cb.Error(), "4 connections a PostgreSQL model has") {
		t.Errorf("a 3rd query of a PostgreSQL model: %v", err)
	} else if h := cb.hint(); strings.Contains(h, "raise -max-queries-per-client") || !strings.Contains(h, "query another model meanwhile") {
		t.Errorf("the per-model hint points at a flag that cannot lift it: %q", h)
	}
	one := newClientShares(1)
	r1, err := one.take(ctx, duck, modelPath(duck))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := one.take(ctx, duck, modelPath(duck)); err == nil || !strings.Contains(err.Error(), "already has 1 query running") {
		t.Errorf("a share of 1: %v", err)
	}
	r1()
	if r, err := c.take(withClient(context.Background(), "10.0.0.2"), pg, modelPath(pg)); err != nil {
		t.Errorf("another client: %v", err)
	} else {
		r()
	}
	for range 2 {
		r, err := c.take(ctx, duck, modelPath(duck))
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, r)
	}
	if _, err := c.take(ctx, duck, modelPath(duck)); err == nil || !strings.Contains(err.Error(), "its share (-max-queries-per-client 4)") {
		t.Errorf("a 5th query over all models: %v", err)
	}
	for range 10 {
		if _, err := c.take(context.Background(), duck, modelPath(duck)); err != nil {
			t.Errorf("without a client: %v", err)
		}
	}
	for _, r := range releases {
		r()
		r() // once only
	}
	if len(c.n) != 0 {
		t.Errorf("counters left: %v", c.n)
	}
	off := newClientShares(-1)
	for range 10 {
		if _, err := off.take(ctx, pg, modelPath(pg)); err != nil {
			t.Errorf("share off: %v", err)
		}
	}
}

// TestIdentifyClients: the client is the remote address's host or, with a
// header named, the last address in it (the one the trusted proxy appended).
func TestIdentifyClients(t *testing.T) {
	for _, c := range []struct {
		header string
		values []string
		want   string
	}{
		{"", []string{"203.0.113.9"}, "192.0.2.1"},
		{"X-Forwarded-For", nil, "192.0.2.1"},
		{"X-Forwarded-For", []string{"203.0.113.9"}, "203.0.113.9"},
		{"X-Forwarded-For", []string{"198.51.100.7, 203.0.113.9"}, "203.0.113.9"},
		{"X-Forwarded-For", []string{"198.51.100.7", "2001:db8::1"}, "2001:db8::/64"},
		{"X-Real-Ip", []string{"[2001:db8::2]:443"}, "2001:db8::/64"},
		{"X-Real-Ip", []string{"[2001:db8::3]"}, "2001:db8::/64"},
	} {
		var got string
		h := identifyClients(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { c, _ := clientIn(r.Context()); got = c.id }), c.header)
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.RemoteAddr = "192.0.2.1:5555"
		for _, v := range c.values {
			r.Header.Add("X-Forwarded-For", v)
			r.Header.Add("X-Real-Ip", v)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got != c.want {
			t.Errorf("%q %q: client %q, want %q", c.header, c.values, got, c.want)
		}
	}
}

// TestHostOf: a client is an IPv4 address, or an IPv6 address's /64 network (an
// IPv4-mapped address is its IPv4 address, a zone is dropped); anything else is
// taken as it is.
func TestHostOf(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"192.0.2.1:5555", "192.0.2.1"},
		{"192.0.2.1", "192.0.2.1"},
		{"192.0.2.2:5555", "192.0.2.2"},
		{"[2001:db8:1:2::1]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:aaaa:bbbb:cccc:dddd]:80", "2001:db8:1:2::/64"},
		{"2001:db8:1:2::99", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2::98]", "2001:db8:1:2::/64"},
		{"[2001:db8:1:3::1]:443", "2001:db8:1:3::/64"},
		{"[::ffff:192.0.2.1]:5555", "192.0.2.1"},
		{"::ffff:192.0.2.1", "192.0.2.1"},
		{"[fe80::1%eth0]:5555", "fe80::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"garbage", "garbage"},
		{"unknown", "unknown"},
		{"", ""},
		{"proxy.example:80", "proxy.example"},
	} {
		if got := clientaddr.Key(c.addr); got != c.want {
			t.Errorf("clientaddr.Key(%q) = %q, want %q", c.addr, got, c.want)
		}
	}
}

// TestClientShareIPv6Network: requests from two addresses of one IPv6 /64 share
// one client's share (a host usually holds the whole /64 and can use any of its
// addresses); another /64 has its own. Before, each address was a client.
func TestClientShareIPv6Network(t *testing.T) {
	m := &catalog.Model{Name: "d", Package: &catalog.Package{Name: "k", Engine: catalog.EngineDuckDB, Project: &catalog.Project{Name: "p"}}}
	m2 := &catalog.Model{Name: "e", Package: m.Package}
	c := newClientShares(1)
	var err error
	var on *catalog.Model
	h := identifyClients(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, err = c.take(r.Context(), on, modelPath(on)) // held: not released
	}), "")
	for _, cs := range []struct {
		remote string
		m      *catalog.Model
		busy   bool
	}{
		{"[2001:db8:1:2::1]:1000", m, false},
		{"[2001:db8:1:2::2]:1001", m2, true}, // the same /64
		{"[2001:db8:1:2:ffff::9]:1002", m2, true},
		// Another /64, of another model: the /64s of a /48 share one
		// client's part of a model (TestClientShareIPv6Site).
		{"[2001:db8:1:3::1]:1000", m2, false},
		{"192.0.2.1:1000", m, false},
		{"[::ffff:192.0.2.1]:1001", m2, true}, // the same IPv4 address
	} {
		on = cs.m
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.RemoteAddr = cs.remote
		h.ServeHTTP(httptest.NewRecorder(), r)
		if _, busy := err.(*clientBusyError); busy != cs.busy || (err != nil && !busy) {
			t.Errorf("a query from %s: %v, want refused %v", cs.remote, err, cs.busy)
		}
	}
}

// TestPostgresClientShare: a client holds at most 2 of a PostgreSQL model's 4
// connections. Before, four SELECT pg_sleep(…) of one client held all 4 until
// their time limit and another client's query waited out its own; now 2 of them
// are refused at once and the other client is answered at once
// (CATALOG_TEST_PG_DSN; see engine's tests for when this skips).
func TestPostgresClientShare(t *testing.T) {
	pgTestDSN(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"company/ops/manifest.json": `{"engine": "postgres", "dsnEnv": "CATALOG_TEST_PG_DSN"}`,
		"company/ops/m.sql":         "-- @source one\nSELECT 1 AS n;\n",
	})
	const limit = 5 * time.Second
	svc := newTestService(t, dir, Config{QueryTimeout: limit})
	ts := startHTTP(t, svc)
	a := connectFrom(t, ts.URL, "127.0.0.1")
	b := connectFrom(t, ts.URL, "127.0.0.2")
	slow := make(chan answer, 4)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { slow <- runQuery(t, a, "company/ops/m", "SELECT pg_sleep(60)") })
	}
	for range 2 {
		select {
		case an := <-slow:
			if an.res == nil || !an.res.IsError || !strings.Contains(an.te.Error, "2 queries of the model company/ops/m") || !strings.Contains(an.te.Error, "PostgreSQL") {
				t.Fatalf("a sleep past the share, after %v: %+v", an.el, an.te)
			}
		case <-time.After(limit / 2):
			t.Fatalf("the first client's queries past its share of the model were not refused within %v", limit/2)
		}
	}
	if an := runQuery(t, b, "company/ops/m", "SELECT n FROM one"); an.res == nil || an.res.IsError || an.el > limit/2 {
		t.Errorf("the other client, after %v: %+v", an.el, an.te)
	}
	wg.Wait()
}

// TestClientShareHeldPastAnswer: with -isolate=false, a calculation DuckDB cannot
// interrupt goes on past its query's answer (its time limit), on the query's
// connection. Before, its client's count was released with the answer, so a
// client repeating such queries held more connections than its share; now it
// counts until DuckDB returns, and then not at all.
func TestClientShareHeldPastAnswer(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{QueryTimeout: 200 * time.Millisecond, MaxQueriesPerClient: 1})
	ctx := withClient(context.Background(), "192.0.2.1")
	count := func() int {
		svc.shares.mu.Lock()
		defer svc.shares.mu.Unlock()
		return svc.shares.n["192.0.2.1"]
	}
	start := time.Now()
	_, err := svc.Execute(ctx, executeIn{Path: "retail/shop/sales", SQL: "SELECT list_sum(list_transform(range(40000), x -> list_sum(range(40000)))) AS n"})
	var te *engine.TimeoutError
	if !errors.As(err, &te) || !te.Running {
		t.Fatalf("want the computation still running in the background at the limit, got %v after %v", err, time.Since(start))
	}
	if n := count(); n != 1 {
		t.Errorf("the client's count after the answer, DuckDB still computing: %d, want 1", n)
	}
	_, err = svc.Execute(ctx, executeIn{Path: "climate/stations/weather", SQL: "SELECT 1 AS one"})
	var busy *clientBusyError
	if !errors.As(err, &busy) {
		t.Errorf("the client's next query while DuckDB computes its first: %v, want refused (its share of 1 is held)", err)
	}
	for count() != 0 {
		if time.Since(start) > 3*time.Minute {
			t.Fatal("the client's count not released 3 minutes after the computation started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("released %v after the query started", time.Since(start))
	if _, err := svc.Execute(ctx, executeIn{Path: "climate/stations/weather", SQL: "SELECT 1 AS one"}); err != nil {
		t.Errorf("the client's query once DuckDB returned: %v", err)
	}
	svc.shares.mu.Lock()
	defer svc.shares.mu.Unlock()
	if len(svc.shares.n) != 0 {
		t.Errorf("counters left: %v", svc.shares.n)
	}
}

// TestClientHeaderForms: the client named by -client-header's header. A
// Forwarded (RFC 7239) value is read for its last element's for= address,
// quotes, brackets and port taken off; a value naming no IP address
// ("unknown", an obfuscated "_hidden", garbage) counts as the connection's
// address. Before, for="[2001:db8::1]:40001" was kept whole: each port was a
// client of its own, so one IPv6 host passed its share with a port per query.
func TestClientHeaderForms(t *testing.T) {
	for _, c := range []struct {
		header string
		values []string
		want   string
	}{
		{"Forwarded", []string{`for="[2001:db8::1]:40001"`}, "2001:db8::/64"},
		{"Forwarded", []string{`for="[2001:db8::1]:40002"`}, "2001:db8::/64"},
		{"forwarded", []string{`For="[2001:db8::ffff:1]"`}, "2001:db8::/64"},
		{"Forwarded", []string{`for=192.0.2.60;proto=http;by=203.0.113.43`}, "192.0.2.60"},
		{"Forwarded", []string{`for="192.0.2.60:4711"`}, "192.0.2.60"},
		{"Forwarded", []string{`for=198.51.100.17, for="[2001:db8:cafe::17]:4711";proto=https`}, "2001:db8:cafe::/64"},
		{"Forwarded", []string{`for=198.51.100.17`, `proto=https;for="[2001:db8:cafe::17]:1"`}, "2001:db8:cafe::/64"},
		{"Forwarded", []string{`for="_gazonk"`}, "192.0.2.1"},
		{"Forwarded", []string{`for=unknown`}, "192.0.2.1"},
		{"Forwarded", []string{`proto=https`}, "192.0.2.1"},
		{"Forwarded", []string{`for="[2001:db8::1]:1", for="x,y"`}, "192.0.2.1"},
		{"X-Forwarded-For", []string{"[2001:db8::1]:40001"}, "2001:db8::/64"},
		{"X-Forwarded-For", []string{"198.51.100.7, [2001:db8::2]:40002"}, "2001:db8::/64"},
		{"X-Forwarded-For", []string{"198.51.100.7, 203.0.113.9:5000"}, "203.0.113.9"},
		{"X-Forwarded-For", []string{"198.51.100.7, unknown"}, "192.0.2.1"},
		{"X-Forwarded-For", []string{"garbage-1"}, "192.0.2.1"},
		{"X-Forwarded-For", []string{`for="[2001:db8::1]:1"`}, "192.0.2.1"},
	} {
		var got string
		h := identifyClients(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { c, _ := clientIn(r.Context()); got = c.id }), c.header)
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.RemoteAddr = "192.0.2.1:5555"
		for _, v := range c.values {
			r.Header.Add(c.header, v)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got != c.want {
			t.Errorf("%s: %q: client %q, want %q", c.header, c.values, got, c.want)
		}
	}
}

// TestClientShareForwardedPorts: with -client-header Forwarded, queries of one
// IPv6 host from eight ports share one client's share. Before, each port was a
// client and all eight ran.
func TestClientShareForwardedPorts(t *testing.T) {
	m := &catalog.Model{Name: "d", Package: &catalog.Package{Name: "k", Engine: catalog.EngineDuckDB, Project: &catalog.Project{Name: "p"}}}
	c := newClientShares(4)
	var err error
	h := identifyClients(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, err = c.take(r.Context(), m, modelPath(m)) // held: not released
	}), "Forwarded")
	ran := 0
	for n := range 8 {
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.RemoteAddr = "192.0.2.1:5555"
		r.Header.Set("Forwarded", fmt.Sprintf(`for="[2001:db8::%d]:4000%d"`, n+1, n))
		h.ServeHTTP(httptest.NewRecorder(), r)
		if err == nil {
			ran++
		} else if _, busy := err.(*clientBusyError); !busy {
			t.Fatal(err)
		}
	}
	// A client holds at most half of a DuckDB model's connections.
	if want := c.perModel(m); ran != want {
		t.Errorf("%d of 8 queries from one /64 through Forwarded were taken, want %d", ran, want)
	}
}

// TestClientShareIPv6Site: the /64s of one IPv6 /48 together hold at most
// networkShares clients' shares, and of one model no more than one client
// does (half its connections). Before, a host sending from many /64s of its
// site (a home /56 holds 256) was that many clients, each with its share; in
// the audit, 24 /64s of one site kept another client's query waiting or
// refused, and later 4 /64s held all 16 query processes (4 shares of 4) and 2
// /64s all 8 connections of a model. Another /48, and IPv4 clients, are not
// counted with it; a query released gives its place back.
func TestClientShareIPv6Site(t *testing.T) {
	models := make([]*catalog.Model, 4)
	for i := range models {
		models[i] = &catalog.Model{Name: fmt.Sprint("d", i), Package: &catalog.Package{Name: "k", Engine: catalog.EngineDuckDB, Project: &catalog.Project{Name: "p"}}}
	}
	const share = 4
	c := newClientShares(share)
	var releases []func()
	take := func(remote string, m *catalog.Model) error {
		var err error
		h := identifyClients(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			var rel func()
			rel, err = c.take(r.Context(), m, modelPath(m))
			if err == nil {
				releases = append(releases, rel)
			}
		}), "")
		r := httptest.NewRequest("POST", "/mcp", nil)
		r.RemoteAddr = remote
		h.ServeHTTP(httptest.NewRecorder(), r)
		return err
	}
	// 16 /64s of 2001:db8:7::/48, one query each over 4 models: the site's
	// 2 × 4 = 8 are taken (half of the 16 query processes), the rest refused
	// naming the network.
	taken := 0
	for i := range 16 {
		err := take(fmt.Sprintf("[2001:db8:7:%x::1]:1000", i), models[i%4])
		switch be, ok := err.(*clientBusyError); {
		case err == nil:
			taken++
		case ok && be.network == "2001:db8:7::/48" && be.model == "":
			if !strings.Contains(be.Error(), "your IPv6 network 2001:db8:7::/48 already have 8 queries") {
				t.Errorf("refusal: %v", be)
			}
		default:
			t.Fatalf("query %d: %v", i, err)
		}
	}
	if taken != share*networkShares {
		t.Fatalf("%d queries of one /48 taken, want %d", taken, share*networkShares)
	}
	// One model: two /64s of another /48 hold half its 8 connections, as one
	// client would, not all of them.
	taken = 0
	for i := range 8 {
		err := take(fmt.Sprintf("[2001:db8:9:%x::1]:1000", i%2), models[0])
		switch be, ok := err.(*clientBusyError); {
		case err == nil:
			taken++
		case ok && be.network == "2001:db8:9::/48" && be.model == "p/k/d0":
			if !strings.Contains(be.Error(), "the clients of your IPv6 network 2001:db8:9::/48 already have 4 queries of the model p/k/d0") || !strings.Contains(be.hint(), "or query another model meanwhile") {
				t.Errorf("refusal: %v / %s", be, be.hint())
			}
		default:
			t.Fatalf("query %d of one model: %v", i, err)
		}
	}
	if taken != 4 {
		t.Fatalf("%d queries of one model from one /48 taken, want 4 (half its connections)", taken)
	}
	for _, other := range []string{"[2001:db8:8::1]:1000", "192.0.2.1:1000"} {
		if err := take(other, models[0]); err != nil {
			t.Errorf("a query from %s, another network: %v", other, err)
		}
	}
	releases[0]() // one of the first site's
	if err := take("[2001:db8:7:ff::1]:1000", models[1]); err != nil {
		t.Errorf("a query of the site once one of its queries ended: %v", err)
	}
	for _, r := range releases {
		r()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.n) != 0 {
		t.Errorf("counters left after every release: %v", c.n)
	}
}
