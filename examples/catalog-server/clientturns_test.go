package main

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// clientRecorder is a model's engine that notes the client of each query.
type clientRecorder struct {
	modelEngine
	mu      sync.Mutex
	clients []string
}

func (r *clientRecorder) Query(ctx context.Context, sql string, params map[string]any, lim engine.Limits) (*engine.Result, error) {
	r.mu.Lock()
	c := lim.Client
	if lim.Group != "" {
		c += " in " + lim.Group
	}
	r.clients = append(r.clients, c)
	r.mu.Unlock()
	return r.modelEngine.Query(ctx, sql, params, lim)
}

func (r *clientRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.clients
	r.clients = nil
	return c
}

// TestQueriesNameTheirClient: execute_query and describe's row count and
// sample rows tell the engine which client sent them (Limits.Client), which
// gives queries waiting for a connection their turns round-robin by client;
// a call without a client (stdio) is the one client "". An IPv6 client (a
// /64) takes its turns with the other /64s of its /48 (Limits.Group).
func TestQueriesNameTheirClient(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{})
	sn := svc.snap()
	m := sn.cat.Lookup("retail/shop/sales").Model
	rec := &clientRecorder{modelEngine: sn.engines[m]}
	sn.engines[m] = rec // before any call: nothing reads the snapshot meanwhile
	ctx := withClient(context.Background(), "192.0.2.7")
	if _, err := svc.Execute(ctx, executeIn{Path: "retail/shop/sales", SQL: "SELECT 1 AS one"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"192.0.2.7"}) {
		t.Errorf("execute_query from a client: %q", got)
	}
	if _, err := svc.Execute(context.Background(), executeIn{Path: "retail/shop/sales", SQL: "SELECT 1 AS one"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !slices.Equal(got, []string{""}) {
		t.Errorf("execute_query without a client: %q", got)
	}
	if _, err := svc.Describe(ctx, "retail/shop/sales/orders"); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); len(got) == 0 || slices.IndexFunc(got, func(c string) bool { return c != "192.0.2.7" }) >= 0 {
		t.Errorf("describe's queries from a client: %q", got)
	}
	v6 := withClient(context.Background(), "2001:db8:7:1::/64")
	if _, err := svc.Execute(v6, executeIn{Path: "retail/shop/sales", SQL: "SELECT 1 AS one"}); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); !slices.Equal(got, []string{"2001:db8:7:1::/64 in net 2001:db8:7::/48"}) {
		t.Errorf("execute_query from an IPv6 client: %q", got)
	}
	if _, err := svc.Describe(v6, "retail/shop/sales/orders"); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); len(got) == 0 || slices.IndexFunc(got, func(c string) bool { return c != "2001:db8:7:1::/64 in net 2001:db8:7::/48" }) >= 0 {
		t.Errorf("describe's queries from an IPv6 client: %q", got)
	}
}
