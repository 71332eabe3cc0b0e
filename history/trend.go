package history

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/history/changepoint"
	"github.com/perfgate/perfgate/metrics"
)

// TrendOptions shape Analyze and Store.Trends. The zero value uses
// changepoint's defaults: α = 0.01, 999 permutations, segments of at least
// 4 runs, levels from up to 30 runs on each side of a change; and
// Store.Trends reads the newest DefaultLast runs of each series in full.
type TrendOptions struct {
	Detect changepoint.Options
	// Window is how many runs on each side a change's levels come from.
	Window int
	// Last is how many of each series' newest runs Store.Trends reads in
	// full (Series.Points): DefaultLast when 0, every run when negative.
	// Change points are looked for among all the runs whatever it is.
	Last int
}

// Trend is a series with the change points found in it.
type Trend struct {
	Series
	Changes []Change
}

// Change is a change point of a series: the first run of the new level,
// its size and how sure the permutation test is.
type Change struct {
	changepoint.Change
	// First is the first run of the new level, Last the last run of the
	// old one.
	First, Last Point
	// Regression says the metric got worse (it rose where lower is
	// better, or fell where higher is); Improvement the opposite. Both are
	// false for a metric that is only context (frames counted).
	Regression, Improvement bool
}

// Analyze finds the change points of a series by E-divisive means (see
// package changepoint). A change among the series' Older runs has only
// the time and value of the runs on either side of it; Store.Trends reads
// those runs in full.
func Analyze(s Series, o TrendOptions) Trend {
	values := make([]float64, s.Len())
	for i := range values {
		values[i] = s.Value(i)
	}
	t := Trend{Series: s}
	def := metrics.Name(s.Metric).Def()
	for _, c := range changepoint.Detect(values, o.Detect, o.Window) {
		if !Effective(def, c.Before.Center, c.After.Center) {
			continue
		}
		t.Changes = append(t.Changes, changeOf(c, s.point(c.Index), s.point(c.Index-1), s.Better))
	}
	return t
}

// The minimum effect a change point must have to be one: a count must
// change by MinCount whole events and by MinCountPct percent of its level,
// any other figure by MinPct percent of its level (a figure that leaves a
// level of zero changes by any amount). A significant change smaller than
// that (a 0.1 % rise of frame time over a long, quiet series) is nobody's
// business, and no change point.
const (
	MinCount    = 1
	MinCountPct = 5.0
	MinPct      = 3.0
)

// Effective reports whether a change of def's level from before to after
// is at least the minimum effect (MinCount, MinCountPct, MinPct).
func Effective(def metrics.Def, before, after float64) bool {
	d := math.Abs(after - before)
	if def.Count {
		return d >= MinCount && d >= MinCountPct/100*math.Abs(before)
	}
	return d > 0 && d >= MinPct/100*math.Abs(before)
}

// changeOf is c with its runs and its direction.
func changeOf(c changepoint.Change, first, last Point, better metrics.Better) Change {
	ch := Change{Change: c, First: first, Last: last}
	rose, fell := c.After.Center > c.Before.Center, c.After.Center < c.Before.Center
	ch.Regression = better == metrics.Lower && rose || better == metrics.Higher && fell
	ch.Improvement = better == metrics.Lower && fell || better == metrics.Higher && rose
	return ch
}

// Sentence says what happened in one line, the digest's:
// "frame_time_p95 of scroll rose 18% at abc1234, p = 0.001".
// A change from a level of zero has no size in percent, and says by how
// much in the unit: "jank of scroll rose by 5 frames at abc1234, p = 0.001".
func (c Change) Sentence(k Key) string {
	verb := "rose"
	if c.Diff < 0 {
		verb = "fell"
	}
	size := formatPct(math.Abs(c.ChangePct))
	if c.absolute() {
		size = "by " + metrics.WithUnit(math.Abs(c.Diff), k.unit())
	}
	return fmt.Sprintf("%s of %s %s %s at %s, p = %s", k.Metric, k.Step, verb, size, shortCommit(c.First.Commit, c.First.RunID), formatP(c.P))
}

// Detail gives the levels, the interval and the runs of a change:
// "18.2 ms → 21.5 ms (+18.1%, 95% CI +14.0% … +22.3%; 30 runs before, 12 after)".
func (c Change) Detail(unit string) string {
	return fmt.Sprintf("%s → %s (%s; %d runs before, %d after)",
		metrics.FormatValue(c.Before.Center, unit), metrics.FormatValue(c.After.Center, unit), c.Size(unit), c.NBefore, c.NAfter)
}

// Size is the change with its 95 % interval, in percent ("+18.1%, 95% CI
// +14.0% … +22.3%"), or in unit where a level of zero leaves percent
// without meaning ("+5 frames, 95% CI +3 frames … +7 frames"), never ∞.
func (c Change) Size(unit string) string {
	if c.absolute() {
		return fmt.Sprintf("%s, 95%% CI %s … %s", metrics.SignedChange(c.Diff, unit), metrics.SignedChange(c.DiffLow, unit), metrics.SignedChange(c.DiffHigh, unit))
	}
	return fmt.Sprintf("%s, 95%% CI %s … %s", signedPct(c.ChangePct), signedPct(c.Low), signedPct(c.High))
}

// Short is the change's size alone: "+18.1%", or "+5 frames" where Size
// is in the unit.
func (c Change) Short(unit string) string {
	if c.absolute() {
		return metrics.SignedChange(c.Diff, unit)
	}
	return signedPct(c.ChangePct)
}

// absolute reports whether the change is shown in its unit: its level
// before, or one of the bootstrap's, was zero.
func (c Change) absolute() bool {
	return math.IsInf(c.ChangePct, 0) || math.IsInf(c.Low, 0) || math.IsInf(c.High, 0) || math.IsNaN(c.ChangePct)
}

// unit is the metric's unit from the catalogue, "" for one it lacks.
func (k Key) unit() string { return metrics.Name(k.Metric).Def().Unit }

// shortCommit names a run by its commit's first 7 characters, else by its
// run id.
func shortCommit(commit, runID string) string {
	switch {
	case len(commit) > 7 && strings.Trim(commit, "0123456789abcdef") == "":
		return commit[:7]
	case commit != "":
		return commit
	}
	return "run " + runID
}

// formatP prints a p-value: "0.02", "0.003", or below 0.001 its order
// of magnitude, "3e-06" (the permutation test's fitted tail estimates p
// that small; more digits would claim more than it knows).
func formatP(p float64) string {
	if p < 0.001 {
		return fmt.Sprintf("%.0e", p)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", p), "0"), ".")
}

// formatPct prints a size in percent without a sign: "18%", "4.5%".
func formatPct(v float64) string {
	switch {
	case math.IsInf(v, 0):
		return "∞%"
	case v >= 10:
		return fmt.Sprintf("%.0f%%", v)
	}
	return fmt.Sprintf("%.1f%%", v)
}

func signedPct(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+∞%"
	case math.IsInf(v, -1):
		return "−∞%"
	}
	return fmt.Sprintf("%+.1f%%", v)
}
