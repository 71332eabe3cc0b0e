package report_test

import (
	"bytes"
	"html"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// run is one session with one "scroll" step whose p95 frame time, FPS and
// PSS are given; the other metrics stay constant.
func run(p95, fps float64, pssKB int64) *result.Result {
	st := &result.Step{Name: "scroll"}
	st.FrameStats = frames.Summary{Source: "gfxinfo", Frames: 120, FPS: fps, Jank: 1, JankDefinition: frames.JankDefinitionDeadlineMissed,
		FrameTimeMS: frames.Percentiles{P50: 7, P90: p95 - 1, P95: p95, P99: p95 + 4}}
	st.MemoryStats = result.MemoryStats{PSSMaxKB: pssKB, PSSSamples: 3}
	return &result.Result{Schema: result.Schema, Name: "TestScroll", Device: procfs.DeviceFacts{Model: "Pixel 7", Release: "14", API: 34},
		App: result.AppInfo{Package: "com.example"}, Steps: []*result.Step{st}}
}

// runs draws n runs around the given centres with 2 % noise.
func runs(rng *rand.Rand, n int, p95, fps float64, pss int64) []*result.Result {
	out := make([]*result.Result, n)
	noise := func(v float64) float64 { return v * (1 + 0.02*rng.NormFloat64()) }
	for i := range out {
		out[i] = run(noise(p95), noise(fps), int64(noise(float64(pss))))
	}
	return out
}

// Hand-made samples: 10 runs with p95 18.00, 18.25 … 20.25 ms against 10
// with 24.00 … 26.25 ms. Every new value is above every old one, so the
// Mann-Whitney U p-value is its smallest for 10+10, 2/C(20,10) = 1.08e-5
// (reported as p=0.000); the medians are 19.125 and 25.125 ms (+31.4 %),
// shown rounded half away from zero; p90 is p95 − 1 ms, p99 p95 + 4 ms.
func TestCompareKnownRegression(t *testing.T) {
	var base, next []*result.Result
	for i := range 10 {
		base = append(base, run(18+0.25*float64(i), 60, 100000))
		next = append(next, run(24+0.25*float64(i), 60, 100000))
	}
	c := report.Compare(base, next, report.CompareOptions{})
	regs := c.Regressions()
	// frame_time_p90 and p99 moved as much, significant, but fail
	// nothing: only the gate's metrics do.
	assert.DeepEqual(t, regs, []string{
		"perf regression: TestScroll on Pixel 7, API 34: scroll: frame_time_p95 19.13ms → 25.13ms (+31.4%, p<0.001, n=10+10)",
	})
	for _, r := range c.Rows {
		if r.Metric == "frame_time_p90" || r.Metric == "frame_time_p99" {
			assert.Assert(t, r.Significant && !r.Gated && !r.Regression, "%s", r.Metric)
		}
	}
	for _, r := range c.Rows {
		if r.Metric == "frame_time_p95" {
			assert.Assert(t, r.P > 1.0e-5 && r.P < 1.1e-5, "p %g, want 2/184756", r.P)
			assert.Equal(t, r.Old.Center, 19.125)
			assert.Equal(t, r.New.Center, 25.125)
		}
		if r.Metric == "fps" || r.Metric == "jank" {
			assert.Assert(t, !r.Significant, "%s: equal samples are not different", r.Metric)
		}
	}
	// A threshold above the change keeps it from failing.
	c = report.Compare(base, next, report.CompareOptions{ThresholdPct: 34})
	assert.Equal(t, len(c.Regressions()), 0)
	// An FPS drop is a regression; a rise is not.
	c = report.Compare([]*result.Result{run(18, 60, 1), run(18, 60.5, 1), run(18, 59.5, 1), run(18, 60.2, 1), run(18, 59.8, 1)},
		[]*result.Result{run(18, 45, 1), run(18, 45.5, 1), run(18, 44.5, 1), run(18, 45.2, 1), run(18, 44.8, 1)}, report.CompareOptions{})
	assert.DeepEqual(t, c.Regressions(), []string{"perf regression: TestScroll on Pixel 7, API 34: scroll: fps 60 → 45 (-25.0%, p=0.008, n=5+5)"})
	c = report.Compare(next[:5], base[:5], report.CompareOptions{})
	assert.Equal(t, len(c.Regressions()), 0, "faster is not a regression")
}

// Pure noise: both sides drawn from one distribution. Over 200 seeds the
// gate (α = 0.05, threshold 10 %) must not fire: 2 % noise cannot move a
// median by 10 %. With the threshold at 0 the Mann-Whitney U test alone
// fires at about its α per metric.
func TestCompareNoise(t *testing.T) {
	t.Parallel()
	fired, firedNoThreshold, tests := 0, 0, 0
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 7))
		base := runs(rng, 10, 18, 60, 120000)
		next := runs(rng, 10, 18, 60, 120000)
		if len(report.Compare(base, next, report.CompareOptions{}).Regressions()) > 0 {
			fired++
		}
		c := report.Compare(base, next, report.CompareOptions{ThresholdPct: -1})
		for _, r := range c.Rows {
			if r.Metric == "frame_time_p95" {
				tests++
				if r.Significant {
					firedNoThreshold++
				}
			}
		}
	}
	assert.Equal(t, fired, 0)
	rate := float64(firedNoThreshold) / float64(tests)
	t.Logf("false-positive rate of the U test alone on frame_time_p95: %.3f over %d comparisons", rate, tests)
	assert.Assert(t, rate < 0.1, "false-positive rate %.3f at α = 0.05", rate)
}

// Too few runs is a warning, not an error; steps repeated inside one
// session count as runs.
func TestCompareFewRunsAndIterations(t *testing.T) {
	c := report.Compare([]*result.Result{run(18, 60, 1)}, []*result.Result{run(30, 60, 1)}, report.CompareOptions{})
	assert.Equal(t, len(c.Regressions()), 0, "one run each, without frames, cannot tell")
	var b bytes.Buffer
	assert.NilError(t, c.WriteText(&b))
	assert.Assert(t, strings.Contains(b.String(), "warning: too few runs to tell: the gate needs 5 base runs (the base branch's history, or repeated runs) to know how much runs differ (1+1 runs, too few to tell), in "), b.String())
	assert.Assert(t, strings.Contains(b.String(), " comparisons: TestScroll on Pixel 7, API 34: scroll ("), b.String())

	// Five runs a side of three steps: each warning is one line naming
	// every comparison it is about, not a line per comparison.
	var base5, next5 []*result.Result
	for i := range 5 {
		b, n := run(18+0.1*float64(i), 60, 1), run(19+0.1*float64(i), 60, 1)
		for _, r := range []*result.Result{b, n} {
			for _, name := range []string{"open", "back"} {
				s := *r.Steps[0]
				s.Name = name
				r.Steps = append(r.Steps, &s)
			}
		}
		base5, next5 = append(base5, b), append(next5, n)
	}
	c = report.Compare(base5, next5, report.CompareOptions{})
	b.Reset()
	assert.NilError(t, c.WriteText(&b))
	assert.Equal(t, strings.Count(b.String(), "need >= 6 samples"), 1, b.String())
	assert.Assert(t, strings.Contains(b.String(), "warning: need >= 6 samples for confidence interval at level 0.95 (n=5+5), in 42 comparisons: TestScroll on Pixel 7, API 34: scroll (every metric), TestScroll on Pixel 7, API 34: open (every metric), TestScroll on Pixel 7, API 34: back (every metric)\n"), b.String())

	// One session with scroll, scroll#2 … scroll#6 is six runs.
	iter := func(p95 float64) *result.Result {
		r := run(p95, 60, 1)
		for i := 2; i <= 6; i++ {
			s := *run(p95+0.1*float64(i), 60, 1).Steps[0]
			s.Name = "scroll#" + string(rune('0'+i))
			r.Steps = append(r.Steps, &s)
		}
		return r
	}
	c = report.Compare([]*result.Result{iter(18)}, []*result.Result{iter(25)}, report.CompareOptions{})
	for _, r := range c.Rows {
		if r.Metric == "frame_time_p95" {
			assert.Equal(t, r.N1, 6)
			assert.Equal(t, r.N2, 6)
			assert.Assert(t, r.Regression)
		}
	}
}

// The text and Markdown forms carry the table with the test, the
// regression line and the hint, and warn when the devices differ. Runs of
// different device models are compared only when asked.
func TestCompareOutput(t *testing.T) {
	var base, next []*result.Result
	for i := range 6 {
		base = append(base, run(18+0.25*float64(i), 60, 1))
		n := run(24+0.25*float64(i), 60, 1)
		n.Device.Model = "Pixel 8"
		next = append(next, n)
	}
	c := report.Compare(base, next, report.CompareOptions{})
	assert.Equal(t, len(c.Rows), 0, "Pixel 7 runs compared with Pixel 8 runs")
	assert.Assert(t, slices.Contains(c.Warnings, "TestScroll on Pixel 8, API 34 ran only in the new runs (the baseline ran it on Pixel 7, API 34; each model is compared with itself only, unless across devices)"), "%q", c.Warnings)
	c = report.Compare(base, next, report.CompareOptions{AcrossDevices: true})
	var txt, md bytes.Buffer
	assert.NilError(t, c.WriteText(&txt))
	assert.NilError(t, c.WriteMarkdown(&md))
	for _, want := range []string{
		"alpha: 0.05\nthreshold: 10%\n",
		"perf regression: TestScroll: scroll: frame_time_p95 18.63ms → 24.63ms (+32.2%, p=0.002, n=6+6)\n",
		"If the change is intended, compare later runs with the new runs: they are the new baseline.",
		"warning: new runs on Pixel 8, Android 14 (API 34), baseline on Pixel 7, Android 14 (API 34)",
	} {
		assert.Assert(t, strings.Contains(txt.String(), want), "text lacks %q:\n%s", want, txt.String())
	}
	// Folders compared: no merge makes the new runs a baseline, no -update.
	assert.Assert(t, !strings.Contains(txt.String(), "merged") && !strings.Contains(txt.String(), "-update"), txt.String())
	// Compared with the history of a branch, merging the change does.
	c.Options.From = "history main, last 10 runs"
	txt.Reset()
	assert.NilError(t, c.WriteText(&txt))
	assert.Assert(t, strings.Contains(txt.String(), "If the change is intended, it is the new baseline once merged."), txt.String())
	for _, want := range []string{
		"| TestScroll | scroll | frame_time_p95 | 18.63ms ± ",
		"| +32.2% | p=0.002 n=6+6 | ❌ |",
		"| TestScroll | scroll | fps | 60 | 60 | ~ |",
		"- ⚠️ new runs on Pixel 8",
	} {
		assert.Assert(t, strings.Contains(md.String(), want), "markdown lacks %q:\n%s", want, md.String())
	}
}

// A metric the new runs did not measure is no improvement to 0: the
// comparison says it was not measured, and why.
func TestCompareNotMeasured(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := runs(rng, 6, 18, 60, 100000)
	next := runs(rng, 6, 18, 60, 100000)
	why := "memory: dumpsys meminfo com.example unreadable on every read in the step (3 failed; last: …)"
	for _, r := range next {
		st := r.Steps[0]
		st.MemoryStats = result.MemoryStats{}
		st.NotMeasured = map[metrics.Name]string{"pss_max": why, "pss_growth": why}
	}
	base[0].Steps[0].MemoryStats = result.MemoryStats{}
	base[0].Steps[0].NotMeasured = map[metrics.Name]string{"pss_max": why, "pss_growth": why}
	c := report.Compare(base, next, report.CompareOptions{})
	for _, r := range c.Rows {
		assert.Assert(t, r.Metric != "pss_max", "pss_max compared: %+v", r)
	}
	var b bytes.Buffer
	assert.NilError(t, c.WriteText(&b))
	assert.Assert(t, strings.Contains(b.String(), "warning: TestScroll on Pixel 7, API 34: scroll: pss_max: not measured in the new runs ("+why+")\n"), b.String())

	// Measured on one side in 5 of 6 runs: compared, with a warning.
	c = report.Compare(base, runs(rng, 6, 18, 60, 100000), report.CompareOptions{})
	b.Reset()
	assert.NilError(t, c.WriteText(&b))
	assert.Assert(t, strings.Contains(b.String(), "warning: TestScroll on Pixel 7, API 34: scroll: pss_max: not measured in 1 of the baseline runs ("+why+"); compared the others\n"), b.String())
}

// Two tests with a step of the same name are two things: each is compared
// with itself only, never pooled into one "scroll" of twice the runs, and
// the tables name the test.
func TestCompareKeepsTestsApart(t *testing.T) {
	named := func(name string, p95 float64) *result.Result {
		r := run(p95, 60, 1)
		r.Name = name
		return r
	}
	var base, next []*result.Result
	for i := range 6 {
		d := 0.25 * float64(i)
		base = append(base, named("TestFeed", 18+d), named("TestSearch", 30+d))
		// TestFeed got slower; TestSearch did not.
		next = append(next, named("TestFeed", 24+d), named("TestSearch", 30.1+d))
	}
	c := report.Compare(base, next, report.CompareOptions{})
	tests := map[string]int{}
	for _, r := range c.Rows {
		tests[r.Test]++
		assert.Equal(t, r.N1, 6, "%s %s: n=%d+%d, want 6+6", r.Test, r.Metric, r.N1, r.N2)
		assert.Equal(t, r.N2, 6)
		if r.Metric == "frame_time_p95" {
			assert.Equal(t, r.Regression, r.Test == "TestFeed", "%s", r.Test)
		}
	}
	assert.Equal(t, len(tests), 2, "%v", tests)
	assert.DeepEqual(t, c.Regressions(), []string{
		"perf regression: TestFeed on Pixel 7, API 34: scroll: frame_time_p95 18.63ms → 24.63ms (+32.2%, p=0.002, n=6+6)",
	})
	var md bytes.Buffer
	assert.NilError(t, c.WriteMarkdown(&md))
	assert.Assert(t, strings.Contains(md.String(), "| TestSearch (Pixel 7, API 34) | scroll | frame_time_p95 | 30.63ms ± 2% | 30.73ms ± 2% | ~ | p=0.699 n=6+6 |  |"), md.String())
}

// Jank from 0 in six runs to 5 in six: a change from zero has no size in
// percent, and every format says it in frames (budget.Change.Delta), never
// ∞ % or NaN %.
func TestCompareFromZero(t *testing.T) {
	var base, next []*result.Result
	for range 6 {
		b, n := run(18, 60, 1), run(18, 60, 1)
		b.Steps[0].FrameStats.Jank, n.Steps[0].FrameStats.Jank = 0, 5
		base, next = append(base, b), append(next, n)
	}
	c := report.Compare(base, next, report.CompareOptions{})
	var txt, md, page bytes.Buffer
	assert.NilError(t, c.WriteText(&txt))
	assert.NilError(t, c.WriteMarkdown(&md))
	assert.NilError(t, report.WriteCompareHTML(&page, c, base, next, report.Options{}))
	for name, out := range map[string]string{"text": txt.String(), "markdown": md.String(), "html": html.UnescapeString(page.String())} {
		assert.Assert(t, !strings.Contains(out, "∞") && !strings.Contains(out, "NaN") && !strings.Contains(out, "Inf"), "%s writes an infinite change", name)
		assert.Assert(t, strings.Contains(out, "jank 0 → 5 (+5 frames, p="), "%s lacks the regression line", name)
	}
	assert.Assert(t, strings.Contains(md.String(), "| jank | 0 | 5 | +5 frames |"), md.String())
}
