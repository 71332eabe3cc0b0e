package changepoint

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// DefaultWindow is how many runs on each side of a change point its
// levels are taken from, by default.
const DefaultWindow = 30

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
	// Low and High bound ChangePct: DiffLow and DiffHigh in percent of
	// Before.
	Low, High float64
	// Diff is the change of the median in the metric's unit, After −
	// Before, and DiffLow and DiffHigh its 95 % interval: always finite,
	// the size to show when a level is zero. The interval is the
	// Hodges–Lehmann one (see ShiftInterval): the shifts of level that a
	// two-sided Mann–Whitney test of the runs before against the runs
	// after would not reject at 5 %. It excludes zero exactly when that
	// test's p < 0.05, with 4 runs on a side as with 30.
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
		c.DiffLow, c.DiffHigh = ShiftInterval(before, after)
		c.Low, c.High = pct(c.Before.Center, c.Before.Center+c.DiffLow), pct(c.Before.Center, c.Before.Center+c.DiffHigh)
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

// ShiftInterval returns the 95 % Hodges–Lehmann interval of the shift of
// level from before to after: of the differences a − b over every pair of
// a run after and a run before, sorted, the k-th smallest and the k-th
// largest, with k − 1 the largest count of pairs whose Mann–Whitney U
// falls at or below with probability ≤ 2.5 % when the two sides are alike
// (exact, from U's distribution, when C(m+n, m) < 2⁵³; by the normal
// approximation beyond). A shift is in the interval exactly when the
// two-sided Mann–Whitney test at 5 % of before against after moved by it
// does not reject. When the sides are too small for any 95 % interval
// (2 and 2 runs: 1 arrangement in 6 puts all of one below the other), it
// is the whole range of the differences.
func ShiftInterval(before, after []float64) (lo, hi float64) {
	m, n := len(before), len(after)
	if m == 0 || n == 0 {
		return math.NaN(), math.NaN()
	}
	d := make([]float64, 0, m*n)
	for _, a := range after {
		for _, b := range before {
			d = append(d, a-b)
		}
	}
	slices.Sort(d)
	k := max(1, mannWhitneyK(m, n, 0.025))
	return d[k-1], d[m*n-k]
}

// mannWhitneyK returns the largest k with P(U ≤ k − 1) ≤ tail for the
// Mann–Whitney U of m and n runs from one distribution; 0 when even U = 0
// is likelier than tail.
func mannWhitneyK(m, n int, tail float64) int {
	if lg, _ := math.Lgamma(float64(m + n + 1)); lg-lgamma(m+1)-lgamma(n+1) < 53*math.Ln2 {
		c := uCounts(m, n)
		total, cum := 0.0, 0.0
		for _, v := range c {
			total += v
		}
		k := 0
		for u, v := range c {
			if cum += v; cum/total > tail {
				break
			}
			k = u + 1
		}
		return k
	}
	// U is about normal with mean mn/2 and variance mn(m+n+1)/12.
	mu := float64(m*n) / 2
	sd := math.Sqrt(float64(m*n) * float64(m+n+1) / 12)
	z := -math.Sqrt2 * math.Erfinv(1-2*tail) // the tail's quantile of N(0, 1)
	return max(0, int(math.Floor(mu+z*sd+0.5)))
}

func lgamma(x int) float64 {
	lg, _ := math.Lgamma(float64(x))
	return lg
}

// uCounts returns, for u = 0…mn, how many of the C(m+n, m) orders of m
// and n runs give U = u: the coefficients of the Gaussian binomial
// ∏ᵢ₌₁…ₘ (1 − q^(n+i)) / (1 − q^i), exact in float64 below 2⁵³.
func uCounts(m, n int) []float64 {
	c := make([]float64, m*n+m+1)
	c[0] = 1
	for i := 1; i <= m; i++ {
		for u := len(c) - 1; u >= n+i; u-- {
			c[u] -= c[u-n-i]
		}
		for u := i; u < len(c); u++ {
			c[u] += c[u-i]
		}
	}
	return c[:m*n+1]
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
