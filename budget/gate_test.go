package budget_test

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
)

func runsOf(v ...float64) budget.Runs { return budget.Runs{Values: v} }

// Each way CompareRuns can decide, on hand-made runs whose answer is known.
func TestCompareRunsMethods(t *testing.T) {
	p95 := metrics.FrameTimeP95.Def()
	jank := metrics.Jank.Def()
	g := budget.Gate{}

	// Ten runs a side, every new one above every base one: Mann-Whitney's
	// smallest p for 10+10, 2/C(20,10).
	base := runsOf(18, 18.1, 18.2, 18.3, 18.4, 18.5, 18.6, 18.7, 18.8, 18.9)
	next := runsOf(24, 24.1, 24.2, 24.3, 24.4, 24.5, 24.6, 24.7, 24.8, 24.9)
	c := budget.CompareRuns(base, next, p95, g)
	if c.Method != budget.MannWhitney || !c.Regression || math.Abs(c.P-2.0/184756) > 1e-9 || c.Basis() != "n=10+10" {
		t.Errorf("10+10: %s %v p=%g %q", c.Method, c.Regression, c.P, c.Basis())
	}

	// Twenty base runs, mean 18, SD √(Σ(i−9.5)²/19)·0.1 ≈ 0.59; one new
	// run of 22.5 is (22.5−18)/(0.59·√(1+1/20)) ≈ 7.45 SDs off: Student's
	// t with 19 degrees of freedom.
	b20 := make([]float64, 20)
	for i := range b20 {
		b20[i] = 17.05 + 0.1*float64(i)
	}
	c = budget.CompareRuns(runsOf(b20...), runsOf(22.5), p95, g)
	mean, sd := 17.05+0.95, 0.0
	for _, v := range b20 {
		sd += (v - mean) * (v - mean)
	}
	sd = math.Sqrt(sd / 19)
	tstat := (22.5 - mean) / (sd * math.Sqrt(1+1.0/20))
	if c.Method != budget.Prediction || !c.Regression || c.N1 != 20 || c.N2 != 1 || math.Abs(c.DeltaPct-25) > 1e-9 ||
		c.P > 1e-6 || math.Abs(c.SpreadPct-sd/mean*100) > 1e-9 {
		t.Errorf("20+1: %s %v Δ%.2f%% p=%g spread %.3f, want prediction, regression, +25%%, t=%.2f", c.Method, c.Regression, c.DeltaPct, c.P, c.SpreadPct, tstat)
	}
	if want := "20 base runs (spread ±3.3%) + 1 new run"; c.Basis() != want {
		t.Errorf("basis %q, want %q", c.Basis(), want)
	}
	// Within the spread: no regression. Past it but under the threshold
	// (+8 %): significant, no regression.
	if c := budget.CompareRuns(runsOf(b20...), runsOf(18.9), p95, g); c.Regression || c.Significant {
		t.Errorf("a run inside the spread: %+v", c)
	}
	if c := budget.CompareRuns(runsOf(b20...), runsOf(19.44), p95, g); c.Regression || !c.Significant {
		t.Errorf("+8 %%: significant %v, regression %v; want significant, no regression", c.Significant, c.Regression)
	}
	// A count whose base never moved: at least √mean (1) of spread, so
	// jank 0 → 1 is noise and 0 → 5 a regression (and past MinCount).
	zeros := runsOf(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	if c := budget.CompareRuns(zeros, runsOf(1), jank, g); c.Regression {
		t.Errorf("jank 0 → 1 against ten zeros: a regression (p=%g)", c.P)
	}
	if c := budget.CompareRuns(zeros, runsOf(5), jank, g); !c.Regression || c.Method != budget.Prediction {
		t.Errorf("jank 0 → 5 against ten zeros: %s %v p=%g", c.Method, c.Regression, c.P)
	}

	// One run a side: the frames alone, for a large change only. The base
	// run's frames are 7.5 ms but for one of 8 ms; five of the new run's
	// 100 frames take 45.8 ms, above the base p99 (8 ms): P(Bin(100, 0.01)
	// ≥ 5) ≈ 0.0034, and p99 rose ×5.7.
	baseFrames := append(slices.Repeat([]float64{7.5}, 99), 8)
	newFrames := append(slices.Repeat([]float64{7.5}, 95), 45.8, 45.8, 45.8, 45.8, 45.8)
	p99 := metrics.FrameTimeP99.Def()
	c = budget.CompareRuns(budget.Runs{Values: []float64{8}, FrameTimes: [][]float64{baseFrames}},
		budget.Runs{Values: []float64{45.8}, FrameTimes: [][]float64{newFrames}}, p99, g)
	if c.Method != budget.FramesOnly || !c.Regression || math.Abs(c.P-0.00343) > 0.0001 || c.Basis() != "1+1 runs, 100+100 frames, frames alone" {
		t.Errorf("p99 on frames: %s %v p=%g %q", c.Method, c.Regression, c.P, c.Basis())
	}
	// The same test for a change under FramesOnlyPct does not fail: the
	// p95 of the base frames is 7.5 ms, of the new ones 45.8 ms — but a
	// +20 % change would not.
	slower := slices.Repeat([]float64{9}, 100)
	if c := budget.CompareRuns(budget.Runs{Values: []float64{7.5}, FrameTimes: [][]float64{baseFrames}},
		budget.Runs{Values: []float64{9}, FrameTimes: [][]float64{slower}}, p95, g); c.Regression || !c.Significant {
		t.Errorf("+20 %% on frames alone: regression %v significant %v; want significant, no regression", c.Regression, c.Significant)
	}
	// Jank on frames: 0 of 120 against 5 of 110.
	c = budget.CompareRuns(budget.Runs{Values: []float64{0}, Frames: []int{120}}, budget.Runs{Values: []float64{5}, Frames: []int{110}}, jank, g)
	if c.Method != budget.FramesOnly || !c.Regression || c.P > 0.001 {
		t.Errorf("jank 0/120 → 5/110: %s %v p=%g", c.Method, c.Regression, c.P)
	}
	// Nothing to rest on: a warning, never a verdict.
	c = budget.CompareRuns(runsOf(5), runsOf(50), metrics.CPU.Def(), g)
	if c.Method != budget.TooFew || c.Regression || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "needs 5 base runs") {
		t.Errorf("cpu 1+1: %s %v %q", c.Method, c.Regression, c.Warnings)
	}
}

// A regression verdict keeps what it rests on, and JSON can hold it: a
// change from zero has no percentage rather than an infinite one, and its
// line says the change in the metric's unit, as history's digest does.
func TestRegressionVerdict(t *testing.T) {
	c := budget.CompareRuns(runsOf(0, 0, 0, 0, 0, 0), runsOf(5), metrics.Jank.Def(), budget.Gate{})
	v := budget.RegressionVerdict("scroll", metrics.Jank.Def(), "frames", c, "history main", budget.Gate{})
	if !v.Fails() || v.Gate == nil || v.Gate.DeltaPct != nil || v.Gate.Method != budget.Prediction || v.Gate.BaseRuns != 6 ||
		v.Line != "perf regression: scroll: jank 0 → 5 (+5 frames, p=0.006, 6 base runs (spread ±0.0%) + 1 new run)" {
		t.Errorf("verdict %+v %+v", v, v.Gate)
	}
	b, err := json.Marshal(v)
	if err != nil || strings.Contains(string(b), "Inf") || strings.Contains(string(b), "delta_pct") {
		t.Errorf("verdict as JSON: %s, %v", b, err)
	}
	for _, s := range []string{c.Delta("frames"), budget.RegressionLine("scroll", metrics.Jank, "frames", c)} {
		if strings.ContainsAny(s, "∞") || strings.Contains(s, "NaN") || !strings.Contains(s, "+5 frames") {
			t.Errorf("change from zero written %q", s)
		}
	}
	if d := budget.CompareValues([]float64{4, 4, 4}, []float64{0, 0, 0}, metrics.Lower, budget.Gate{}).Delta("frames"); d != "-100.0%" {
		t.Errorf("change to zero written %q, want -100.0%%", d)
	}
}

// A short step's cpu share moves by one clock tick of the app when a tick
// falls on the other side of its edge: 3 or 4 ticks of 70 (4.29 % or
// 5.71 %). Six base runs at 3 and six new ones mostly at 4 are a
// significant rise of a third, and no regression: the runs cannot tell it
// from where the ticks fell. Three ticks more is one.
func TestCompareRunsWithinResolution(t *testing.T) {
	cpu := metrics.CPU.Def()
	tick := 100.0 / 70
	at := func(ticks ...float64) budget.Runs {
		r := budget.Runs{}
		for _, n := range ticks {
			r.Values = append(r.Values, n*tick)
			r.Resolution = append(r.Resolution, tick)
		}
		return r
	}
	base := at(3, 3, 3, 3, 3, 3)
	c := budget.CompareRuns(base, at(4, 4, 4, 4, 4, 3), cpu, budget.Gate{})
	if !c.Significant || c.Regression || !slices.ContainsFunc(c.Warnings, func(w string) bool {
		return strings.Contains(w, "within the resolution of a run's value, 1.43%")
	}) {
		t.Errorf("one tick: significant %v, regression %v, warnings %q", c.Significant, c.Regression, c.Warnings)
	}
	unknown := at(4, 4, 4, 4, 4, 3)
	unknown.Resolution = nil
	if c := budget.CompareRuns(runsOf(base.Values...), unknown, cpu, budget.Gate{}); !c.Regression {
		t.Errorf("one tick, resolution unknown: %+v, want the regression the values show", c)
	}
	if c := budget.CompareRuns(base, at(7, 7, 7, 6, 7, 7), cpu, budget.Gate{}); !c.Regression {
		t.Errorf("four ticks: %+v, want a regression", c)
	}
}
