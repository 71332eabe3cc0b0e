package history

import (
	"encoding/json"
	"io"
	"math"
	"time"

	"github.com/perfgate/perfgate/metrics"
)

// TrendJSON is a trend as `perfgate history trend -json` prints it.
// Figures that are not finite (a change from a level of zero) are null.
type TrendJSON struct {
	Test       string `json:"test"`
	Step       string `json:"step"`
	Metric     string `json:"metric"`
	Device     string `json:"device"`
	Unit       string `json:"unit"`
	Definition string `json:"definition"`
	Better     string `json:"better"`
	// Runs counts every run; Older summarises those before Points (the
	// newest TrendOptions.Last runs).
	Runs    int          `json:"runs"`
	Older   *SpanJSON    `json:"older,omitempty"`
	Points  []PointJSON  `json:"points"`
	Changes []ChangeJSON `json:"changes"`
}

// SpanJSON summarises a trend's older runs.
type SpanJSON struct {
	Runs   int       `json:"runs"`
	First  time.Time `json:"first"`
	Last   time.Time `json:"last"`
	Min    float64   `json:"min"`
	Median float64   `json:"median"`
	Max    float64   `json:"max"`
}

// PointJSON is one run of a trend.
type PointJSON struct {
	RunID      string    `json:"run_id"`
	Commit     string    `json:"commit"`
	Branch     string    `json:"branch"`
	Time       time.Time `json:"time"`
	Value      float64   `json:"value"`
	Iterations int       `json:"iterations"`
	ReportURL  string    `json:"report_url,omitempty"`
}

// ChangeJSON is a change point of a trend.
type ChangeJSON struct {
	Index     int       `json:"index"`
	Commit    string    `json:"commit"`
	RunID     string    `json:"run_id"`
	Time      time.Time `json:"time"`
	Before    *float64  `json:"before"`
	After     *float64  `json:"after"`
	ChangePct *float64  `json:"change_pct"`
	Low       *float64  `json:"change_pct_low"`
	High      *float64  `json:"change_pct_high"`
	// Change is After − Before in the metric's unit, with its interval:
	// finite where the change in percent is null.
	Change      float64 `json:"change"`
	ChangeLow   float64 `json:"change_low"`
	ChangeHigh  float64 `json:"change_high"`
	P           float64 `json:"p"`
	Regression  bool    `json:"regression"`
	Improvement bool    `json:"improvement"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// JSON is the trend in its JSON form.
func (t Trend) JSON() TrendJSON {
	jt := TrendJSON{Test: t.Test, Step: t.Step, Metric: t.Metric, Device: t.Device, Unit: t.Unit, Definition: t.Definition,
		Better: map[metrics.Better]string{metrics.Lower: "lower", metrics.Higher: "higher", metrics.Neither: "neither"}[t.Better],
		Runs:   t.Len(), Points: []PointJSON{}, Changes: []ChangeJSON{}}
	if t.Older > 0 {
		sp := t.Span(0, t.Older)
		jt.Older = &SpanJSON{Runs: sp.Runs, First: sp.First, Last: sp.Last, Min: sp.Min, Median: sp.Median, Max: sp.Max}
	}
	for _, p := range t.Points {
		jt.Points = append(jt.Points, PointJSON{p.RunID, p.Commit, p.Branch, p.Time, p.Value, p.Iterations, p.ReportURL})
	}
	for _, c := range t.Changes {
		jt.Changes = append(jt.Changes, ChangeJSON{Index: c.Index, Commit: c.First.Commit, RunID: c.First.RunID, Time: c.First.Time,
			Before: finite(c.Before.Center), After: finite(c.After.Center), ChangePct: finite(c.ChangePct), Low: finite(c.Low), High: finite(c.High),
			Change: c.Diff, ChangeLow: c.DiffLow, ChangeHigh: c.DiffHigh, P: c.P, Regression: c.Regression, Improvement: c.Improvement})
	}
	return jt
}

// WriteTrendsJSON writes the trends as an indented JSON array of
// TrendJSON.
func WriteTrendsJSON(w io.Writer, trends []Trend) error {
	out := make([]TrendJSON, 0, len(trends))
	for _, t := range trends {
		out = append(out, t.JSON())
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
