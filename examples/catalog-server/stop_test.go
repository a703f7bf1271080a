package main

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/wiremcp/wiremcp/examples/catalog-server/engine"
)

// TestStopDoesNotWaitForComputations: a server told to stop while DuckDB
// computes past a query's time limit (a calculation it cannot interrupt) waits
// for it at most -stop-wait, says so, and closes every other model meanwhile.
func TestStopDoesNotWaitForComputations(t *testing.T) {
	svc := newTestService(t, sampleDir(t), Config{QueryTimeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := svc.Execute(context.Background(), executeIn{Path: "retail/shop/sales", SQL: "SELECT list_sum(list_transform(range(40000), x -> list_sum(range(40000)))) AS n"})
	var te *engine.TimeoutError
	if !errors.As(err, &te) || !te.Running {
		t.Fatalf("want the computation still running in the background at the limit, got %v after %v", err, time.Since(start))
	}
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	const wait = 300 * time.Millisecond
	stopStart := time.Now()
	closeWithin(svc, wait, log)
	took := time.Since(stopStart)
	if took > wait+time.Second {
		t.Errorf("stopping took %v, with -stop-wait %v", took, wait)
	}
	if !strings.Contains(logs.String(), "stopping without waiting any longer") {
		t.Errorf("the log does not say the server stopped without the computation: %q", logs.String())
	}
	// Every other model closed meanwhile; the computing one is still open.
	sn := svc.snap()
	closed := 0
	for m, e := range sn.engines {
		_, err := e.Query(context.Background(), "SELECT 1", nil, engine.Limits{RowLimit: 1, ByteBudget: 1 << 10, Timeout: time.Second})
		name := m.Package.Project.Name + "/" + m.Package.Name + "/" + m.Name
		switch {
		case name == "retail/shop/sales":
			if err != nil && !errors.Is(err, engine.ErrClosed) {
				t.Errorf("%s: %v", name, err)
			}
		case !errors.Is(err, engine.ErrClosed):
			t.Errorf("%s: not closed while another model computed: %v", name, err)
		default:
			closed++
		}
	}
	if closed == 0 {
		t.Error("no other model to check")
	}
	t.Logf("stopped after %v, %d other models closed; the computation started %v ago", took, closed, time.Since(start))
}
