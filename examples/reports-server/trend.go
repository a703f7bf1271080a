package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/wiremcp/wiremcp/bindings/reports"
)

// Size of a trend chart, in SVG user units (the chart scales to its box).
const (
	trendW, trendH, trendPad = 240.0, 64.0, 8.0
)

// trendView is the history of one numeric metric, ready for the detail template: an
// inline SVG line (no external assets) whose points name their values on hover, and
// the same values for a table that screen readers read.
type trendView struct {
	Label   string
	Summary string // the chart's text alternative
	First   string // oldest value shown, with unit
	Last    string // newest value shown, with unit
	// High and Low label the top and bottom of the chart's scale: the line spans
	// Low to High, so a small wobble is not mistaken for a large swing.
	High, Low string
	Polyline  string // SVG points
	Points    []trendPoint
}

type trendPoint struct {
	When  string // the version's updatedAt
	Value string // with unit
	X, Y  string // SVG coordinates
	// TipX, TipY and Anchor place the value shown while the pointer is over the
	// point: above it (below it near the top), kept inside the chart's width.
	TipX, TipY, Anchor string
}

// trendOf returns the trend of metric m (in the metrics section titled section) over
// the recorded versions, and whether there is one: at least two versions must carry
// the metric as a number.
func trendOf(section string, m reports.MetricItem, versions []historyPoint) (trendView, bool) {
	if _, ok := m.Value.Number(); !ok {
		return trendView{}, false
	}
	type pv struct {
		when  string
		value float64
	}
	var series []pv
	for _, v := range versions {
		for _, hm := range v.Metrics {
			if hm.Section == section && hm.Label == m.Label {
				series = append(series, pv{v.UpdatedAt.UTC().Format("2006-01-02 15:04 UTC"), hm.Value})
				break
			}
		}
	}
	if len(series) < 2 {
		return trendView{}, false
	}
	lo, hi := series[0].value, series[0].value
	for _, p := range series {
		lo, hi = min(lo, p.value), max(hi, p.value)
	}
	// Rounded to hide float noise such as 0.30000000000000004, as reports.Delta does.
	withUnit := func(f float64) string { return reports.WithUnit(reports.Num(math.Round(f*1e6)/1e6), m.Unit) }
	tv := trendView{Label: m.Label, First: withUnit(series[0].value), Last: withUnit(series[len(series)-1].value)}
	var line []string
	for i, p := range series {
		x := trendPad + float64(i)*(trendW-2*trendPad)/float64(len(series)-1)
		y := trendH / 2
		if hi > lo {
			y = trendH - trendPad - (p.value-lo)/(hi-lo)*(trendH-2*trendPad)
		}
		xs, ys := fmt.Sprintf("%.1f", x), fmt.Sprintf("%.1f", y)
		line = append(line, xs+","+ys)
		tp := trendPoint{When: p.when, Value: withUnit(p.value), X: xs, Y: ys, TipX: xs, Anchor: "middle"}
		tipY := y - 7
		if tipY < 12 {
			tipY = y + 16
		}
		tp.TipY = fmt.Sprintf("%.1f", tipY)
		switch {
		case x < trendW/4:
			tp.Anchor, tp.TipX = "start", fmt.Sprintf("%.1f", x-trendPad/2)
		case x > trendW*3/4:
			tp.Anchor, tp.TipX = "end", fmt.Sprintf("%.1f", x+trendPad/2)
		}
		tv.Points = append(tv.Points, tp)
	}
	if hi > lo { // a flat line has no scale to label
		tv.High, tv.Low = withUnit(hi), withUnit(lo)
	}
	tv.Polyline = strings.Join(line, " ")
	tv.Summary = fmt.Sprintf("%s over the last %d versions: from %s to %s, lowest %s, highest %s",
		m.Label, len(series), tv.First, tv.Last, withUnit(lo), withUnit(hi))
	return tv, true
}
