package assert

import (
	"fmt"
	"math"
	"slices"

	"golang.org/x/perf/benchmath"

	"github.com/perfgate/perfgate/metrics"
)

// Gate sets a regression gate. The zero value uses α = 0.05 and a 10 %
// threshold.
type Gate struct {
	// Alpha is the significance level of the Mann-Whitney U test; default
	// 0.05.
	Alpha float64
	// ThresholdPct is the smallest change of the median, in percent, that
	// counts as a regression even when significant; default 10. Negative
	// means 0 (every significant change for the worse fails).
	ThresholdPct float64
	// AcrossDevices compares against a baseline recorded on another
	// device model or Android version; without it such a comparison only
	// warns.
	AcrossDevices bool
	// Metrics are the metrics recorded as baselines; default those the
	// catalogue marks (metrics.Def.Gate: fps, jank, frame_time_p50,
	// frame_time_p95, cpu, pss_max and startup_initial), where measured.
	// Checking compares every metric the file has a baseline for.
	Metrics []metrics.Name
	// Steps limits the gate to these steps (base names); default every
	// step with a baseline (checking) or every step of the run (recording).
	Steps []string
	// Strict turns warnings (too few iterations to decide, another
	// device) into failures.
	Strict bool
}

// WithDefaults fills in the defaults of the zero fields: α = 0.05, a 10 %
// threshold (a negative one becomes 0).
func (g Gate) WithDefaults() Gate {
	if g.Alpha <= 0 || g.Alpha >= 1 {
		g.Alpha = benchmath.DefaultThresholds.CompareAlpha
	}
	if g.ThresholdPct == 0 {
		g.ThresholdPct = 10
	}
	if g.ThresholdPct < 0 {
		g.ThresholdPct = 0
	}
	return g
}

// Change is one metric's baseline compared with new values.
type Change struct {
	// Old and New are the medians with their 95 % confidence intervals.
	Old, New benchmath.Summary
	// P is the Mann-Whitney U p-value; N1, N2 the number of values.
	P      float64
	N1, N2 int
	// DeltaPct is the change of the median in percent (±Inf from a zero
	// baseline).
	DeltaPct float64
	// Significant is P < α; Regression adds that the change is for the
	// worse and larger than the threshold.
	Significant bool
	Regression  bool
	// Warnings are benchmath's, e.g. too few samples for a confidence
	// interval or to detect a difference at α.
	Warnings []string
}

// CompareValues compares a baseline's values with new ones the way the
// regression gate and `perfgate compare` do: medians with 95 % confidence
// intervals and the Mann-Whitney U test of golang.org/x/perf/benchmath
// (AssumeNothing). better says which way is an improvement.
func CompareValues(old, new []float64, better metrics.Better, g Gate) Change {
	g = g.WithDefaults()
	th := benchmath.DefaultThresholds
	th.CompareAlpha = g.Alpha
	// NewSample sorts its values in place: the caller's (a baseline that
	// is written back) stay in their order.
	s1, s2 := benchmath.NewSample(slices.Clone(old), &th), benchmath.NewSample(slices.Clone(new), &th)
	cmp := benchmath.AssumeNothing.Compare(s1, s2)
	c := Change{Old: benchmath.AssumeNothing.Summary(s1, 0.95), New: benchmath.AssumeNothing.Summary(s2, 0.95),
		P: cmp.P, N1: cmp.N1, N2: cmp.N2}
	c.DeltaPct = deltaPct(c.Old.Center, c.New.Center)
	c.Significant = cmp.P < cmp.Alpha
	worse := (better == metrics.Lower && c.DeltaPct > 0) || (better == metrics.Higher && c.DeltaPct < 0)
	c.Regression = c.Significant && worse && math.Abs(c.DeltaPct) > g.ThresholdPct
	seen := map[string]bool{}
	for _, ws := range [][]error{s1.Warnings, s2.Warnings, c.Old.Warnings, c.New.Warnings, cmp.Warnings} {
		for _, w := range ws {
			// Equal samples are the normal case for counts that stay at
			// zero; saying so on every metric hides the warnings that
			// matter.
			if w.Error() == "all samples are equal" || seen[w.Error()] {
				continue
			}
			seen[w.Error()] = true
			c.Warnings = append(c.Warnings, w.Error())
		}
	}
	return c
}

func deltaPct(old, new float64) float64 {
	switch {
	case old == new:
		return 0
	case old == 0:
		return math.Inf(int(math.Copysign(1, new)))
	}
	return (new - old) / math.Abs(old) * 100
}

// FormatDelta writes a change in percent as the gate's lines do: "+36.8%".
func FormatDelta(d float64) string {
	switch {
	case math.IsInf(d, 1):
		return "+∞%"
	case math.IsInf(d, -1):
		return "-∞%"
	}
	return fmt.Sprintf("%+.1f%%", d)
}
