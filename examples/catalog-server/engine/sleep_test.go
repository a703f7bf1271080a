package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestDuckSleepRefused: DuckDB's sleep_ms and its macro pg_sleep wait without
// working, holding one of the model's connections (and a query process) up to
// the query's time limit with nothing any other limit notices; a client sending a
// few of them held a model's every connection for 30 s. They are refused at once,
// however written, saying why, in the server's process and in a query process.
func TestDuckSleepRefused(t *testing.T) {
	m := testModel(t)
	d, err := OpenDuck(context.Background(), m, DuckConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := openProc(t, m, DuckConfig{})
	texts := []string{
		"SELECT sleep_ms(600000)",
		"SELECT SLEEP_MS(600000) AS s",
		`SELECT "sleep_ms"(600000)`,
		"SELECT system.main.sleep_ms(600000)",
		"SELECT (600000).sleep_ms()",
		"SELECT pg_sleep(600)",
		"SELECT * FROM items WHERE id IN (SELECT 1 WHERE pg_sleep(600) IS NULL)",
		"SELECT list_transform(range(8), x -> sleep_ms(600000)) AS l",
	}
	lim := testLimits
	lim.Timeout = 20 * time.Second
	for _, e := range []struct {
		name string
		q    interface {
			Query(context.Context, string, map[string]any, Limits) (*Result, error)
		}
	}{{"in process", d}, {"query process", p}} {
		for _, text := range texts {
			start := time.Now()
			res, err := e.q.Query(context.Background(), text, nil, lim)
			var re *RefusedError
			if !errors.As(err, &re) || !strings.Contains(re.Reason, "waits without doing any work") {
				t.Errorf("%s: %s: not refused as a sleep: %v %+v", e.name, text, err, res)
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("%s: %s: answered after %v", e.name, text, el)
			}
		}
		// A column named like it runs.
		if res, err := e.q.Query(context.Background(), "SELECT 1 AS sleep_ms", nil, lim); err != nil || res.RowCount != 1 {
			t.Errorf("%s: a column named sleep_ms: %v %+v", e.name, err, res)
		}
	}
}
