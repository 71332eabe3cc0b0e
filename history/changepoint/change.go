package changepoint

import (
	"math"
	"math/rand/v2"
	"slices"

	"golang.org/x/perf/benchmath"
)

// DefaultWindow is how many runs on each side of a change point its
// levels are taken from, by default.
const DefaultWindow = 30

// bootstrapResamples is how many resamples the confidence interval of a
// change's size is taken from.
const bootstrapResamples = 2000

// Change is a change point with its size.
type Change struct {
	Split
	// Before and After are the medians, with 95 % confidence intervals
	// (golang.org/x/perf/benchmath, AssumeNothing), of the runs just before
	// and just after the change: at most Window runs on each side, none
	// beyond the neighbouring change points.
	Before, After benchmath.Summary
	// NBefore and NAfter count those runs.
	NBefore, NAfter int
	// ChangePct is the change of the median in percent,
	// (After − Before) / |Before| × 100; ±Inf from a zero level.
	ChangePct float64
	// Low and High bound ChangePct: the 95 % percentile bootstrap
	// interval of the change of the medians.
	Low, High float64
	// Diff is the change of the median in the metric's unit, After −
	// Before, and DiffLow and DiffHigh its 95 % interval from the same
	// bootstrap: always finite, the size to show when a level is zero.
	Diff, DiffLow, DiffHigh float64
}

// Detect finds the change points of values (see Splits) and sizes each
// one. window is how many runs on each side the levels come from; 0 means
// DefaultWindow.
func Detect(values []float64, o Options, window int) []Change {
	if window <= 0 {
		window = DefaultWindow
	}
	splits := Splits(values, o)
	seed := o.Seed
	if seed == 0 {
		seed = seedOf(values)
	}
	rng := rand.New(rand.NewPCG(seed^0x5bd1e995, seed))
	out := make([]Change, 0, len(splits))
	for i, s := range splits {
		lo, hi := 0, len(values)
		if i > 0 {
			lo = splits[i-1].Index
		}
		if i+1 < len(splits) {
			hi = splits[i+1].Index
		}
		before := values[max(lo, s.Index-window):s.Index]
		after := values[s.Index:min(hi, s.Index+window)]
		c := Change{Split: s, NBefore: len(before), NAfter: len(after)}
		th := benchmath.DefaultThresholds
		c.Before = benchmath.AssumeNothing.Summary(benchmath.NewSample(slices.Clone(before), &th), 0.95)
		c.After = benchmath.AssumeNothing.Summary(benchmath.NewSample(slices.Clone(after), &th), 0.95)
		c.ChangePct = pct(c.Before.Center, c.After.Center)
		c.Diff = c.After.Center - c.Before.Center
		c.Low, c.High, c.DiffLow, c.DiffHigh = bootstrap(rng, before, after)
		out = append(out, c)
	}
	return out
}

// pct is the change from a to b in percent.
func pct(a, b float64) float64 {
	switch {
	case a == b:
		return 0
	case a == 0:
		return math.Inf(int(math.Copysign(1, b)))
	}
	return (b - a) / math.Abs(a) * 100
}

// bootstrap is the 95 % percentile bootstrap interval of the change of
// the median from before to after, in percent and in the values' unit.
func bootstrap(rng *rand.Rand, before, after []float64) (lo, hi, diffLo, diffHi float64) {
	bs := make([]float64, len(before))
	as := make([]float64, len(after))
	d := make([]float64, bootstrapResamples)
	diff := make([]float64, bootstrapResamples)
	for r := range d {
		for i := range bs {
			bs[i] = before[rng.IntN(len(before))]
		}
		for i := range as {
			as[i] = after[rng.IntN(len(after))]
		}
		mb, ma := median(bs), median(as)
		d[r], diff[r] = pct(mb, ma), ma-mb
	}
	// NaN cannot arise (pct of equal values is 0); ±Inf sorts to the ends.
	lo, hi = interval95(d)
	diffLo, diffHi = interval95(diff)
	return lo, hi, diffLo, diffHi
}

// interval95 sorts d and returns its 2.5th and 97.5th percentiles.
func interval95(d []float64) (lo, hi float64) {
	slices.Sort(d)
	return d[int(0.025*float64(len(d)))], d[int(math.Ceil(0.975*float64(len(d))))-1]
}

// median sorts xs and returns its median (the mean of the middle two for
// an even count), the centre benchmath reports.
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
