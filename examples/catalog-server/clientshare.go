package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"

	"github.com/wiremcp/wiremcp/examples/catalog-server/catalog"
	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
	"github.com/wiremcp/wiremcp/transport/clientaddr"
)

// A client's share of the queries. Without one, a client sending many slow
// queries at once (or queries that wait without working, such as PostgreSQL's
// pg_sleep) held every connection of a model, and every query process of the
// server, and the other clients' queries waited behind them to their time limit.
// So each client (over HTTP: the host of the request's remote address, an IPv6
// address counting as its /64 network: clientaddr.Key) has at most a share of queries
// running or waiting at once, over all models, and at most half of one model's
// connections; a query past it is refused at once instead of waiting.

// defaultQueriesPerClient is a client's share unless -max-queries-per-client
// says otherwise.
const defaultQueriesPerClient = 4

// clientKey is the context key of the client a call comes from.
type clientKey struct{}

// callClient is the client a call comes from: its id, and the counter key of
// the IPv6 /48 holding it (networkOf; "" for any other client), worked out
// once per request, when the client is first known (withClient), for its
// shares (clientShares.take) and its turns (turnOf).
type callClient struct {
	id, network string
}

// withClient returns ctx carrying the client id.
func withClient(ctx context.Context, id string) context.Context {
	network, _ := networkOf(id)
	return context.WithValue(ctx, clientKey{}, callClient{id: id, network: network})
}

// clientIn returns the client of ctx, and false when it has none (stdio,
// whose one client shares the server with no one, or a call made in the
// process).
func clientIn(ctx context.Context) (callClient, bool) {
	c, ok := ctx.Value(clientKey{}).(callClient)
	return c, ok
}

// turnOf returns the client of ctx and the group it takes its turns with
// (engine.Limits): the /48 of an IPv6 /64, "" for any other client, so that
// a host sending from many /64s of its site is served as one client in the
// turns, as it holds one network's share (networkShares).
func turnOf(ctx context.Context) (id, group string) {
	c, _ := clientIn(ctx)
	return c.id, c.network
}

// identifyClients serves h with each request's context carrying its client: the
// host of its remote address or, when header is set (a reverse proxy in front
// that sets it), the address in that header's last element — the one the
// proxy appended — when the request has it (headerClient); an IPv6 address
// counts as its /64 (clientaddr.Key). The library runs a stateless call in a context
// descending from its POST's, so the tools read it there.
func identifyClients(h http.Handler, header string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := ""
		if header != "" {
			if v := r.Header.Values(header); len(v) > 0 {
				id = headerClient(header, v[len(v)-1])
			}
		}
		if id == "" {
			id = clientaddr.Key(r.RemoteAddr)
		}
		h.ServeHTTP(w, r.WithContext(withClient(r.Context(), id)))
	})
}

// headerClient returns the client the last header line v of header names,
// or "" when it names no IP address, so that the request counts as its
// connection's address (the proxy's: every such request of one proxy shares
// one client, and a value a client made up gains it nothing). The address is
// the last comma-separated element's: for Forwarded (RFC 7239, any case) its
// for= parameter, quotes, brackets and port taken off ("unknown" and
// obfuscated identifiers such as "_hidden" name no address); for any other
// header (X-Forwarded-For, X-Real-Ip) the element itself, brackets and port
// taken off. Before, a value that was not a bare address was kept whole, so
// for="[2001:db8::1]:40001" made each of a host's ports a client of its own.
func headerClient(header, v string) string {
	last := lastElement(v)
	if strings.EqualFold(header, "Forwarded") {
		node := ""
		for pair := range strings.SplitSeq(last, ";") {
			k, val, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "for") {
				node = strings.TrimSpace(val)
			}
		}
		last = unquote(node)
	}
	host := last
	if h, _, err := net.SplitHostPort(last); err == nil {
		host = h
	} else {
		host = strings.TrimPrefix(strings.TrimSuffix(last, "]"), "[")
	}
	if _, err := netip.ParseAddr(host); err != nil {
		return "" // not an address: "unknown", "_hidden", a name, garbage
	}
	return clientaddr.Key(host)
}

// lastElement returns v's last comma-separated element, trimmed; a comma
// inside a quoted string (Forwarded's) does not separate.
func lastElement(v string) string {
	start, quoted := 0, false
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			if quoted {
				i++
			}
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				start = i + 1
			}
		}
	}
	return strings.TrimSpace(v[start:])
}

// unquote takes the quotes and backslash escapes off an RFC 7230 quoted
// string; a token is returned as it is.
func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	var b strings.Builder
	for i := 1; i < len(s)-1; i++ {
		if s[i] == '\\' && i+1 < len(s)-1 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// clientShares counts each client's queries running or waiting for their turn:
// over all models, and per model. Counters are removed at zero, so it holds one
// entry per query in progress at most.
type clientShares struct {
	max int // the share over all models; 0: none
	mu  sync.Mutex
	n   map[string]int // client, and client + "\x00" + model path → queries
}

func newClientShares(max int) *clientShares {
	return &clientShares{max: max, n: map[string]int{}}
}

// perModel is a client's share of one model's queries at once: at most half of
// what the model runs at once, so that one client never holds them all.
func (c *clientShares) perModel(m *catalog.Model) int {
	n := engine.ModelQueries[m.Package.Engine]
	if n == 0 {
		n = engine.ModelQueries[catalog.EngineDuckDB]
	}
	return max(1, min(c.max, n/2))
}

// take counts a query of ctx's client on model m (at mpath) until release is
// called, or returns a *clientBusyError, having counted nothing, when the
// client already has its share. A ctx without a client (stdio) is not counted.
func (c *clientShares) take(ctx context.Context, m *catalog.Model, mpath string) (release func(), err error) {
	cl, ok := clientIn(ctx)
	if c == nil || c.max <= 0 || !ok {
		return func() {}, nil
	}
	id, network := cl.id, cl.network
	key := id + "\x00" + mpath
	perModel := c.perModel(m)
	keys := []string{id, key}
	inNetwork := network != ""
	var netKey string
	if inNetwork {
		netKey = network + "\x00" + mpath
		keys = append(keys, network, netKey)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[id] >= c.max {
		return nil, &clientBusyError{share: c.max}
	}
	if c.n[key] >= perModel {
		return nil, &clientBusyError{share: c.max, model: mpath, perModel: perModel, modelQueries: engine.ModelQueries[m.Package.Engine], pg: m.Package.Engine == catalog.EnginePostgres}
	}
	if inNetwork && c.n[network] >= c.max*networkShares {
		return nil, &clientBusyError{share: c.max, network: strings.TrimPrefix(network, networkKey)}
	}
	if inNetwork && c.n[netKey] >= perModel {
		// The /64s of a /48 hold no more of a model than one client does:
		// two of them would hold all its connections.
		return nil, &clientBusyError{share: c.max, network: strings.TrimPrefix(network, networkKey), model: mpath, perModel: perModel, modelQueries: engine.ModelQueries[m.Package.Engine], pg: m.Package.Engine == catalog.EnginePostgres}
	}
	for _, k := range keys {
		c.n[k]++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			for _, k := range keys {
				if c.n[k]--; c.n[k] <= 0 {
					delete(c.n, k)
				}
			}
		})
	}, nil
}

// An IPv6 client is its /64 (clientaddr.Key), and one site usually holds many: a
// home's /56 has 256, an organisation's /48 65,536, each a client with its
// share. So the /64s of one /48 together have at most networkShares clients'
// shares running or waiting at once, and of one model no more than one client
// has (half its connections): a host that sends from many /64s of its site
// holds half of the server's 16 query processes at most (by default), and
// never all of a model's connections. (Before, 4 shares of 4 were all 16, and
// two /64s held a model's 8 connections: every other client waited out its
// time limit.) They take their turns as one client (engine.Limits.Group).
const networkShares = 2

// networkKey begins the counter of an IPv6 /48 in clientShares.n (a client
// key never begins so).
const networkKey = "net "

// networkOf returns the counter key of the IPv6 /48 holding the client id (an
// IPv6 /64, as clientaddr.Key writes it), and false for any other client.
func networkOf(id string) (string, bool) {
	p, err := netip.ParsePrefix(id)
	if err != nil || !p.Addr().Is6() {
		return "", false
	}
	n, _ := p.Addr().Prefix(48)
	return networkKey + n.String(), true
}

// clientBusyError is a query refused because its client already has its share
// of queries running or waiting: over all models, or of model (when set).
type clientBusyError struct {
	share        int
	network      string // the IPv6 /48 whose share is taken, when that is why
	model        string
	perModel     int
	modelQueries int
	pg           bool
}

func (e *clientBusyError) Error() string {
	if e.network != "" && e.model != "" {
		return fmt.Sprintf("the clients of your IPv6 network %s already have %s of the model %s running or waiting for their turn, the share one client has of it (half of the %d connections a %s; each /64 is a client, and the /64s of one /48 share this), so this query was not started and did not wait. Wait for one of the network's earlier queries of it to be answered, then call again", e.network, countOf(e.perModel, "query", "queries"), e.model, e.modelQueries, e.modelWhat())
	}
	if e.network != "" {
		return fmt.Sprintf("the clients of your IPv6 network %s already have %s running or waiting for their turn on this server, its share (%d clients' shares of -max-queries-per-client %d: each /64 is a client, and the /64s of one /48 share this), so this query was not started and did not wait. Wait for one of the network's earlier queries to be answered, then call again", e.network, countOf(e.share*networkShares, "query", "queries"), networkShares, e.share)
	}
	if e.model != "" {
		return fmt.Sprintf("your client already has %s of the model %s running or waiting for their turn, its share of that model (half of the %d connections a %s), so this query was not started and did not wait. Wait for one of your earlier queries of it to be answered, then call again", countOf(e.perModel, "query", "queries"), e.model, e.modelQueries, e.modelWhat())
	}
	return fmt.Sprintf("your client already has %s running or waiting for their turn on this server, its share (-max-queries-per-client %d), so this query was not started and did not wait. Wait for one of your earlier queries to be answered, then call again", countOf(e.share, "query", "queries"), e.share)
}

// modelWhat says what the model's connections are.
func (e *clientBusyError) modelWhat() string {
	if e.pg {
		return "PostgreSQL model has"
	}
	return "DuckDB model runs"
}

// hint says what the caller can do.
func (e *clientBusyError) hint() string {
	if e.network != "" && e.model != "" {
		return "Send the next query of this model once one of your network's earlier ones is answered, or query another model meanwhile: the /64s of one IPv6 /48 hold no more of a model's connections than one client does (half), so that others can still query it."
	}
	if e.network != "" {
		return "Send the next query once one of your network's earlier ones is answered: the /64s of one IPv6 /48 together hold a few clients' shares, so that a host sending from many addresses of its site holds no more. Its operator can raise -max-queries-per-client."
	}
	if e.model != "" {
		// -max-queries-per-client does not lift this one: half of a model's
		// connections is the most any client holds.
		return "Send the next query of this model once one of your earlier ones is answered, or query another model meanwhile: no client holds more than half of a model's connections, so that others can still query it. If many clients reach this server from one address or one IPv6 /64 network (a proxy), its operator can name the proxy's client-address header with -client-header."
	}
	return "Send the next query once one of your earlier ones is answered: each client's queries at once are capped so that no client holds the others up. If many clients reach this server from one address or one IPv6 /64 network (a proxy, a shared network), its operator can raise -max-queries-per-client, or name the proxy's client-address header with -client-header."
}
