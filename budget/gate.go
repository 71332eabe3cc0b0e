package budget

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/mathx"
	"golang.org/x/perf/benchmath"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
)

// Gate sets a regression gate. The zero value uses α = 0.05, a 10 %
// smallest effect, 2 for counts, 5 base runs to know their spread and a
// 50 % change to fail on frames alone.
type Gate struct {
	// Alpha is the significance level of the tests; default 0.05.
	Alpha float64
	// ThresholdPct is the smallest change of a metric, in percent, that
	// counts as a regression even when significant; default 10. Negative
	// means 0 (every significant change for the worse fails). It keeps
	// noise from failing pull requests: a change smaller than what runs
	// of one build differ by is no regression worth a red build.
	ThresholdPct float64
	// MinCount is the smallest change of a count (jank, slow frames,
	// crashes) that counts as a regression; default 2.
	MinCount float64
	// MinBaseRuns is how many base runs a comparison needs before it can
	// tell their spread, and so judge a side of one run against it;
	// default 5. With fewer, only a change of FramesOnlyPct that the
	// frames themselves make significant fails.
	MinBaseRuns int
	// FramesOnlyPct is the smallest change that fails when the runs are
	// too few to know how much runs differ: frames within one run are not
	// independent samples, so a test over them over-claims, and only a
	// large change may rest on them; default 50.
	FramesOnlyPct float64
	// PredictionAlpha is the one-sided significance level of the
	// prediction test (new runs against the base runs' spread): a new run
	// fails only when so few base runs would be as bad by chance; default
	// 0.01. A pull request's single run has nothing to replicate it, and a
	// gate fails when any of its metrics does, so it asks for more than
	// Alpha.
	PredictionAlpha float64
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
// threshold (a negative one becomes 0), MinCount 2, MinBaseRuns 5,
// FramesOnlyPct 50, PredictionAlpha 0.01.
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
	if g.MinCount <= 0 {
		g.MinCount = 2
	}
	if g.MinBaseRuns <= 0 {
		g.MinBaseRuns = 5
	}
	if g.MinBaseRuns < 3 {
		g.MinBaseRuns = 3
	}
	if g.FramesOnlyPct <= 0 {
		g.FramesOnlyPct = 50
	}
	if g.PredictionAlpha <= 0 || g.PredictionAlpha >= 1 {
		g.PredictionAlpha = 0.01
	}
	return g
}

// Method names the test a comparison rests on.
type Method string

// The methods of a comparison.
const (
	// MannWhitney compares the runs (or iterations) of both sides with the
	// Mann-Whitney U test: enough of each for it to tell.
	MannWhitney Method = "mann-whitney"
	// Prediction judges the new runs against the spread of the base runs
	// (a prediction interval, Student's t): one new run is enough when the
	// base side has MinBaseRuns (the base branch's history).
	Prediction Method = "prediction"
	// FramesOnly decides on the frames of the runs alone, too few to know
	// how much runs differ: only a change of Gate.FramesOnlyPct fails.
	FramesOnly Method = "frames"
	// TooFew is a comparison that could not decide: too few runs and no
	// frames to rest on.
	TooFew Method = "too-few"
)

// Change is one metric's baseline compared with new values.
type Change struct {
	// Old and New are the centres of the sides with their 95 % confidence
	// intervals: medians of runs (Mann-Whitney, frames) or means
	// (prediction).
	Old, New benchmath.Summary
	// P is the test's two-sided p-value; N1, N2 the number of runs (or
	// iterations) of each side, F1, F2 of frames when frames decided.
	P      float64
	N1, N2 int
	F1, F2 int
	// Method is the test the change rests on; SpreadPct the base runs'
	// spread (their standard deviation, in percent of their mean) when
	// the prediction test used it.
	Method    Method
	SpreadPct float64
	// DeltaPct is the change of the centre in percent (±Inf from a zero
	// baseline).
	DeltaPct float64
	// Significant is P < α; Regression adds that the change is for the
	// worse and larger than the threshold.
	Significant bool
	Regression  bool
	// Warnings are benchmath's and the gate's, e.g. too few samples for a
	// confidence interval or to detect a difference at α.
	Warnings []string
}

// Basis says what the change rests on, in a few words: "n=10+10",
// "20 base runs (spread ±3.1%) + 1 new run", "1+1 runs, 118+121 frames,
// frames alone".
func (c Change) Basis() string {
	switch c.Method {
	case Prediction:
		return fmt.Sprintf("%s (spread ±%.1f%%) + %s", plural(c.N1, "base run"), c.SpreadPct, plural(c.N2, "new run"))
	case FramesOnly:
		return fmt.Sprintf("%d+%d runs, %d+%d frames, frames alone", c.N1, c.N2, c.F1, c.F2)
	case TooFew:
		return fmt.Sprintf("%d+%d runs, too few to tell", c.N1, c.N2)
	}
	return fmt.Sprintf("n=%d+%d", c.N1, c.N2)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// CompareValues compares a baseline's values with new ones with the
// Mann-Whitney U test: medians with 95 % confidence intervals and the test
// of golang.org/x/perf/benchmath (AssumeNothing). better says which way is
// an improvement. It is the regression gate of recorded iterations
// (NoRegression); CompareRuns is the one of runs.
func CompareValues(old, new []float64, better metrics.Better, g Gate) Change {
	return compareValues(old, new, metrics.Def{Better: better}, g)
}

func compareValues(old, new []float64, def metrics.Def, g Gate) Change {
	g = g.WithDefaults()
	th := benchmath.DefaultThresholds
	th.CompareAlpha = g.Alpha
	// NewSample sorts its values in place: the caller's (a baseline that
	// is written back) stay in their order.
	s1, s2 := benchmath.NewSample(slices.Clone(old), &th), benchmath.NewSample(slices.Clone(new), &th)
	cmp := benchmath.AssumeNothing.Compare(s1, s2)
	c := Change{Old: benchmath.AssumeNothing.Summary(s1, 0.95), New: benchmath.AssumeNothing.Summary(s2, 0.95),
		P: cmp.P, N1: cmp.N1, N2: cmp.N2, Method: MannWhitney}
	c.Significant = cmp.P < cmp.Alpha
	c.judge(def, g, g.ThresholdPct)
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

// judge sets DeltaPct and Regression from the sides' centres: a change
// for the worse, significant, past the threshold in percent and, for a
// count, by at least MinCount.
func (c *Change) judge(def metrics.Def, g Gate, threshold float64) {
	c.DeltaPct = deltaPct(c.Old.Center, c.New.Center)
	worse := (def.Better == metrics.Lower && c.DeltaPct > 0) || (def.Better == metrics.Higher && c.DeltaPct < 0)
	big := math.Abs(c.DeltaPct) > threshold
	if def.Count && math.Abs(c.New.Center-c.Old.Center) < g.MinCount {
		big = false
	}
	c.Regression = c.Significant && worse && big
}

// Runs are one side of a comparison of runs: one value per run (a step's
// value in one session; the median of its iterations), and, for a metric
// figured from frames, what each run's frames were.
type Runs struct {
	Values []float64
	// FrameTimes are, per run, the frame times (ms) of the step's
	// window, from which the frame_time percentiles are figured; nil
	// where unknown.
	FrameTimes [][]float64
	// Frames are, per run, how many frames a count of frames (jank, slow
	// frames) was counted among; nil where unknown.
	Frames []int
	// Resolution is, per run, the smallest change its value can show
	// (metrics.Metric.Resolution); nil or 0 where not known.
	Resolution []float64
}

// CompareRuns compares the runs of one metric of one step: the base side's
// (the base branch's recent runs, or repeated runs) with the new side's.
// Runs differ from each other (thermal state, background load) by more
// than frames within a run suggest, so the runs are the samples:
//
//   - with enough runs on both sides for it to tell, the Mann-Whitney U
//     test over the runs (MannWhitney);
//   - with at least Gate.MinBaseRuns base runs, the new runs' mean
//     against the base runs' spread (Prediction): Student's t with the base
//     runs' standard deviation, so one new run can fail;
//   - with fewer, only the frames can tell (FramesOnly): a binomial test
//     of how many new frames are slower than the base's percentile (or are
//     janky), and only a change of Gate.FramesOnlyPct fails;
//   - otherwise no verdict (TooFew), a warning.
//
// In every case a regression is significant at Gate.Alpha, for the worse,
// and past the threshold (and, for counts, by Gate.MinCount), and the
// sides' centres differ by more than the coarsest resolution of any run
// (Runs.Resolution): a short step's cpu share moves by one clock tick of
// the app when a tick falls on the other side of an edge, which no run can
// tell from a change.
func CompareRuns(base, next Runs, def metrics.Def, g Gate) Change {
	c := compareRuns(base, next, def, g)
	res := 0.0
	for _, r := range append(slices.Clone(base.Resolution), next.Resolution...) {
		res = max(res, r)
	}
	if d := math.Abs(c.New.Center - c.Old.Center); c.Regression && d <= res*(1+1e-9) {
		c.Regression = false
		c.Warnings = append(c.Warnings, fmt.Sprintf("the change, %s, is within the resolution of a run's value, %s: not a regression",
			metrics.FormatValue(d, def.Unit), metrics.FormatValue(res, def.Unit)))
	}
	return c
}

func compareRuns(base, next Runs, def metrics.Def, g Gate) Change {
	g = g.WithDefaults()
	n1, n2 := len(base.Values), len(next.Values)
	if n1 >= 2 && n2 >= 2 {
		c := compareValues(base.Values, next.Values, def, g)
		if !cannotDetect(c.Warnings) || n1 < g.MinBaseRuns {
			if cannotDetect(c.Warnings) {
				if f, ok := framesOnly(base, next, def, g); ok {
					return f
				}
			}
			return c
		}
	}
	if n1 >= g.MinBaseRuns && n2 >= 1 {
		return prediction(base.Values, next.Values, def, g)
	}
	if f, ok := framesOnly(base, next, def, g); ok {
		return f
	}
	c := Change{Method: TooFew, N1: n1, N2: n2, P: 1,
		Old: medianSummary(base.Values), New: medianSummary(next.Values)}
	c.DeltaPct = deltaPct(c.Old.Center, c.New.Center)
	c.Warnings = append(c.Warnings, fmt.Sprintf("too few runs to tell: the gate needs %d base runs (the base branch's history, or repeated runs) to know how much runs differ", g.MinBaseRuns))
	return c
}

// cannotDetect reports whether benchmath said the samples are too few for
// the test to ever reach α.
func cannotDetect(ws []string) bool {
	for _, w := range ws {
		if strings.Contains(w, "to detect a difference") {
			return true
		}
	}
	return false
}

// prediction judges the new runs' mean against the base runs: Student's t
// with n1−1 degrees of freedom, t = (mean₂ − mean₁) / (s₁·√(1/n₂ + 1/n₁)),
// the prediction interval of n₂ new runs. s₁ is the base runs' standard
// deviation, at least 0.5 % of their mean (a base of identical runs says
// nothing of the noise of the next) and, for a count, at least the square
// root of its mean (Poisson's spread, at least 1).
func prediction(b, v []float64, def metrics.Def, g Gate) Change {
	n1, n2 := float64(len(b)), float64(len(v))
	m1, s1 := meanSD(b)
	m2, _ := meanSD(v)
	s := math.Max(s1, 0.005*math.Abs(m1))
	if def.Count {
		s = math.Max(s, math.Sqrt(math.Max(m1, 1)))
	}
	if s == 0 {
		s = 1e-12
	}
	se := s * math.Sqrt(1/n2+1/n1)
	t := (m2 - m1) / se
	df := n1 - 1
	c := Change{Method: Prediction, N1: len(b), N2: len(v), P: tTwoSided(t, df)}
	if m1 != 0 {
		c.SpreadPct = s1 / math.Abs(m1) * 100
	}
	q := tQuantile(0.975, df)
	c.Old = benchmath.Summary{Center: m1, Lo: m1 - q*s/math.Sqrt(n1), Hi: m1 + q*s/math.Sqrt(n1), Confidence: 0.95}
	c.New = benchmath.Summary{Center: m2, Lo: m2 - q*s/math.Sqrt(n2), Hi: m2 + q*s/math.Sqrt(n2), Confidence: 0.95}
	c.Significant = c.P < g.Alpha
	c.judge(def, g, g.ThresholdPct)
	// A regression asks more of a prediction: the one-sided p-value on
	// the worse side (where a regression lies, half the two-sided one)
	// below PredictionAlpha.
	if c.Regression && c.P/2 >= g.PredictionAlpha {
		c.Regression = false
	}
	return c
}

// framesOnly decides on frames when runs cannot: for a frame-time
// percentile, how many of the new runs' frames are slower than the base
// frames' percentile (binomial, each with the chance the percentile
// leaves above it); for a count of frames (jank), how many of the new
// frames were counted against the base's rate (binomial, the rate at least
// half a frame of the base's). Only a change of Gate.FramesOnlyPct (and
// Gate.MinCount, for counts) fails.
func framesOnly(base, next Runs, def metrics.Def, g Gate) (Change, bool) {
	if len(base.Values) == 0 || len(next.Values) == 0 {
		return Change{}, false
	}
	c := Change{Method: FramesOnly, N1: len(base.Values), N2: len(next.Values),
		Old: medianSummary(base.Values), New: medianSummary(next.Values)}
	worse := def.Better == metrics.Lower
	switch q := framePercentile(def.Name); {
	case q > 0:
		bf, nf := flat(base.FrameTimes), flat(next.FrameTimes)
		if len(bf) < 2 || len(nf) < 2 {
			return Change{}, false
		}
		c.F1, c.F2 = len(bf), len(nf)
		cut := frames.NearestRank(bf, q)
		above := 0
		for _, x := range nf {
			if x > cut || !worse && x < cut {
				above++
			}
		}
		p := 1 - float64(q)/100
		c.P = binomUpper(len(nf), above, p)
	case def.Count && def.Family == metrics.FamilyFrames && def.Unit == "frames" && def.Name != metrics.Frames && len(base.Frames) == len(base.Values) && len(next.Frames) == len(next.Values):
		fb, fn := sumInts(base.Frames), sumInts(next.Frames)
		if fb < 2 || fn < 2 {
			return Change{}, false
		}
		c.F1, c.F2 = fb, fn
		jb, jn := sum(base.Values), sum(next.Values)
		rate := math.Max(jb, 0.5) / float64(fb)
		c.P = binomUpper(fn, int(math.Round(jn)), math.Min(rate, 1))
	default:
		return Change{}, false
	}
	c.Significant = c.P < g.Alpha
	c.judge(def, g, math.Max(g.FramesOnlyPct, g.ThresholdPct))
	return c, true
}

// framePercentile is the percentile a frame_time metric figures, 0 for
// any other metric.
func framePercentile(n metrics.Name) int {
	switch n {
	case metrics.FrameTimeP50:
		return 50
	case metrics.FrameTimeP90:
		return 90
	case metrics.FrameTimeP95:
		return 95
	case metrics.FrameTimeP99:
		return 99
	}
	return 0
}

// binomUpper is P(X ≥ k) for X ~ Binomial(n, p).
func binomUpper(n, k int, p float64) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n:
		return 0
	case p <= 0:
		return 0
	case p >= 1:
		return 1
	}
	return mathx.BetaInc(p, float64(k), float64(n-k+1))
}

// tTwoSided is the two-sided p-value of t with df degrees of freedom.
func tTwoSided(t, df float64) float64 {
	if math.IsNaN(t) {
		return 1
	}
	if math.IsInf(t, 0) {
		return 0
	}
	return mathx.BetaInc(df/(df+t*t), df/2, 0.5)
}

// tQuantile is the p quantile of Student's t with df degrees of freedom,
// by bisection of the two-sided p-value.
func tQuantile(p, df float64) float64 {
	want := 2 * (1 - p) // the two-sided p-value at the quantile
	lo, hi := 0.0, 1e3
	for range 100 {
		mid := (lo + hi) / 2
		if tTwoSided(mid, df) > want {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func meanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return 0, 0
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)-1))
}

// medianSummary is the values' median with their range as its interval.
func medianSummary(v []float64) benchmath.Summary {
	if len(v) == 0 {
		return benchmath.Summary{Center: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return benchmath.Summary{Center: frames.NearestRank(s, 50), Lo: s[0], Hi: s[len(s)-1], Confidence: 0.95}
}

func flat(v [][]float64) []float64 {
	var out []float64
	for _, r := range v {
		out = append(out, r...)
	}
	return out
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

func sumInts(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
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

// Delta is the change as the gate's lines write it: in percent, "+36.8%";
// from a centre of zero, where a percentage has no meaning, in the unit,
// "+5 frames", as history's digest says it. Never ±∞ % or NaN %.
func (c Change) Delta(unit string) string {
	if math.IsInf(c.DeltaPct, 0) || math.IsNaN(c.DeltaPct) {
		return metrics.SignedChange(c.New.Center-c.Old.Center, unit)
	}
	return FormatDelta(c.DeltaPct)
}

// FormatDelta writes a change in percent as the gate's lines do: "+36.8%".
// A change that may come from zero is written by Change.Delta.
func FormatDelta(d float64) string {
	switch {
	case math.IsInf(d, 1):
		return "+∞%"
	case math.IsInf(d, -1):
		return "-∞%"
	}
	return fmt.Sprintf("%+.1f%%", d)
}

// RegressionLine is the gate's one-line report of a regression, with what
// it rests on: "perf regression: scroll: frame_time_p95 18.2ms → 24.9ms
// (+36.8%, p=0.002, n=10+10)".
func RegressionLine(step string, metric metrics.Name, unit string, c Change) string {
	return fmt.Sprintf("perf regression: %s: %s %s → %s (%s, %s, %s)", step, metric,
		metrics.FormatValue(c.Old.Center, unit), metrics.FormatValue(c.New.Center, unit), c.Delta(unit), formatP(c.P), c.Basis())
}

// formatP writes a p-value as "p=0.002", or "p<0.001" below that.
func formatP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

// GateResult is what a regression verdict stores of its comparison: the
// centres of the two sides, the change, the test and what it rests on.
type GateResult struct {
	Base float64 `json:"base"`
	New  float64 `json:"new"`
	// DeltaPct is the change in percent; absent from a zero base.
	DeltaPct *float64 `json:"delta_pct,omitempty"`
	P        float64  `json:"p"`
	Method   Method   `json:"method"`
	// BaseRuns and NewRuns count the runs (or iterations) of each side;
	// BaseFrames and NewFrames the frames when frames decided.
	BaseRuns   int `json:"base_runs"`
	NewRuns    int `json:"new_runs"`
	BaseFrames int `json:"base_frames,omitempty"`
	NewFrames  int `json:"new_frames,omitempty"`
	// SpreadPct is the base runs' spread, in percent of their mean, that
	// the prediction test judged against.
	SpreadPct float64 `json:"spread_pct,omitempty"`
	// Basis says it in words (Change.Basis).
	Basis string `json:"basis"`
}

// Result is what a regression verdict stores of c.
func (c Change) Result() *GateResult {
	r := &GateResult{Base: finite(c.Old.Center), New: finite(c.New.Center), P: finite(c.P), Method: c.Method,
		BaseRuns: c.N1, NewRuns: c.N2, BaseFrames: c.F1, NewFrames: c.F2, SpreadPct: finite(c.SpreadPct), Basis: c.Basis()}
	if !math.IsInf(c.DeltaPct, 0) && !math.IsNaN(c.DeltaPct) {
		d := c.DeltaPct
		r.DeltaPct = &d
	}
	return r
}

// finite keeps a value JSON can hold: NaN and ±Inf become 0.
func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// RegressionVerdict is the verdict of one metric of one step compared: a
// failure on a regression, a warning on what keeps it from telling (too
// few runs, benchmath's warnings), a pass otherwise. from names the
// baseline (a budget file's line, "history main").
func RegressionVerdict(step string, def metrics.Def, unit string, c Change, from string, g Gate) Verdict {
	v := Verdict{Kind: KindRegression, Step: step, Metric: def.Name, Unit: unit, From: from, Gate: c.Result(), Status: Pass}
	if !math.IsNaN(c.New.Center) {
		val := c.New.Center
		v.Value = &val
	}
	switch {
	case c.Regression:
		v.Status, v.Line = Fail, RegressionLine(step, def.Name, unit, c)
	case len(c.Warnings) > 0:
		v.Status, v.Reason = Warn, strings.Join(c.Warnings, "; ")
		if g.Strict {
			v.Status = Fail
		}
		v.Line = fmt.Sprintf("perf regression gate: warning: %s: %s: %s (%s)", step, def.Name, v.Reason, c.Basis())
	}
	return v
}
