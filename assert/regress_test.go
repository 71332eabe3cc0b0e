package assert_test

import (
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// noisy returns n values around centre with a 6 % relative spread
// (lognormal), like frame-time percentiles of repeated scroll iterations.
func noisy(rng *rand.Rand, n int, centre float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = centre * (1 + 0.06*rng.NormFloat64())
	}
	return out
}

// The gate's error rates over many seeds: noise alone (both sides drawn
// from one distribution) must fail rarely even with no threshold, and a
// 30 % regression must nearly always be caught.
func TestGateFalsePositiveRateAndPower(t *testing.T) {
	const seeds, n = 1000, 10
	var fp0, fp10, caught int
	for s := range seeds {
		rng := rand.New(rand.NewPCG(uint64(s), 7))
		base := noisy(rng, n, 18)
		same := noisy(rng, n, 18)
		worse := noisy(rng, n, 18*1.3)
		if budget.CompareValues(base, same, metrics.Lower, budget.Gate{ThresholdPct: -1}).Regression {
			fp0++
		}
		if budget.CompareValues(base, same, metrics.Lower, budget.Gate{}).Regression {
			fp10++
		}
		if budget.CompareValues(base, worse, metrics.Lower, budget.Gate{}).Regression {
			caught++
		}
	}
	t.Logf("α=0.05, n=%d+%d, %d seeds: false positives %.3f with no threshold, %.3f with 10 %%; 30 %% regression caught %.3f",
		n, n, seeds, float64(fp0)/seeds, float64(fp10)/seeds, float64(caught)/seeds)
	if r := float64(fp0) / seeds; r > 0.05 {
		t.Errorf("false-positive rate %.3f with no threshold, want ≤ α = 0.05", r)
	}
	if r := float64(fp10) / seeds; r > 0.005 {
		t.Errorf("false-positive rate %.3f with a 10 %% threshold", r)
	}
	if r := float64(caught) / seeds; r < 0.95 {
		t.Errorf("30 %% regression caught in %.3f of runs, want ≥ 0.95", r)
	}
}

// stepsOf makes n iterations of "scroll" whose frame_time_p95 and fps are
// the given values.
func stepsOf(p95 []float64, fps float64) []*result.Step {
	var out []*result.Step
	for i, v := range p95 {
		st := scrollStep()
		if i > 0 {
			st.Name = "scroll#" + strconv.Itoa(i+1)
		}
		st.FrameStats.FrameTimeMS.P95 = v
		st.FrameStats.FPS = fps
		out = append(out, st)
	}
	return out
}

func TestNoRegression(t *testing.T) {
	p := filepath.Join(t.TempDir(), "feed.budget.json")
	base := []float64{18.1, 18.3, 18.0, 18.4, 18.2, 18.5, 18.2, 18.3, 18.1, 18.4}
	t.Setenv(budget.EnvUpdate, "1")
	f := &fakeT{}
	if !assert.NoRegression(f, run("Pixel 7", "14", stepsOf(base, 58)...), p, budget.Gate{Metrics: []metrics.Name{"frame_time_p95", "fps"}}) {
		t.Fatalf("record: %q", f.errs)
	}
	if want := "perf baseline recorded: scroll: frame_time_p95, 10 iterations on Google Pixel 7, Android 14 (API 34) (" + p + ")"; f.logs[0] != want {
		t.Errorf("log %q, want %q", f.logs[0], want)
	}
	// Recording a budget later keeps the baseline, and vice versa.
	assert.Budget(&fakeT{}, run("Pixel 7", "14", scrollStep()), p)
	file, err := budget.ReadBudgetFile(p)
	if err != nil {
		t.Fatal(err)
	}
	e := file.Steps["scroll"]["frame_time_p95"]
	if e.Baseline == nil || len(e.Baseline.Values) != 10 || e.Max == nil || e.Baseline.Device != "Google Pixel 7" || e.Baseline.Android != "14" {
		t.Fatalf("entry after both recordings: %+v", e)
	}
	t.Setenv(budget.EnvUpdate, "")

	// Noise: passes.
	noise := []float64{18.2, 18.0, 18.4, 18.3, 18.1, 18.5, 18.2, 18.3, 18.0, 18.4}
	f = &fakeT{}
	if !assert.NoRegression(f, run("Pixel 7", "14", stepsOf(noise, 58)...), p, budget.Gate{}) || len(f.errs) != 0 {
		t.Errorf("noise failed the gate: %q", f.errs)
	}
	// A 36 % regression: one line with the figures, and the hint.
	worse := []float64{24.8, 24.9, 25.1, 24.7, 24.9, 25.0, 24.8, 24.9, 25.2, 24.9}
	f = &fakeT{}
	if assert.NoRegression(f, run("Pixel 7", "14", stepsOf(worse, 58)...), p, budget.Gate{}) {
		t.Error("a 36 % regression passed")
	}
	want := "perf regression: scroll: frame_time_p95 18.25ms → 24.9ms (+36.4%, p<0.001, n=10+10)\n" +
		"run 'go test . -update' to record a new baseline in " + p + " if the change is intended"
	if f.text() != want {
		t.Errorf("got\n%s\nwant\n%s", f.text(), want)
	}
	// FPS is better higher: a rise is no regression, a fall is.
	f = &fakeT{}
	if !assert.NoRegression(f, run("Pixel 7", "14", stepsOf(base, 90)...), p, budget.Gate{}) {
		t.Errorf("an FPS rise failed: %q", f.errs)
	}
	f = &fakeT{}
	assert.NoRegression(f, run("Pixel 7", "14", stepsOf(base, 40)...), p, budget.Gate{})
	if !strings.HasPrefix(f.text(), "perf regression: scroll: fps 58 → 40 (-31.0%, p<0.001, n=10+10)") {
		t.Errorf("fps fall: %q", f.text())
	}
}

// Too few iterations to decide is a warning, or a failure when strict;
// a baseline from another device warns unless comparing across devices
// is asked for.
func TestNoRegressionWarnings(t *testing.T) {
	p := filepath.Join(t.TempDir(), "feed.budget.json")
	t.Setenv(budget.EnvUpdate, "1")
	assert.NoRegression(&fakeT{}, run("Pixel 7", "14", stepsOf([]float64{18, 18.2, 18.1}, 58)...), p, budget.Gate{Metrics: []metrics.Name{"frame_time_p95"}})
	t.Setenv(budget.EnvUpdate, "")
	few := run("Pixel 7", "14", stepsOf([]float64{30, 31, 30.5}, 58)...)
	f := &fakeT{}
	if !assert.NoRegression(f, few, p, budget.Gate{}) || len(f.errs) != 0 {
		t.Errorf("3+3 iterations failed instead of warning: %q", f.errs)
	}
	logs := strings.Join(f.logs, "\n")
	if !strings.Contains(logs, "perf regression gate: warning: scroll: frame_time_p95: need >= 4 samples to detect a difference at alpha level 0.05 (n=3+3); run more iterations") {
		t.Errorf("no too-few warning in %q", logs)
	}
	f = &fakeT{}
	if assert.NoRegression(f, few, p, budget.Gate{Strict: true}) {
		t.Error("strict gate passed with too few iterations")
	}

	// Another device.
	t.Setenv(budget.EnvUpdate, "1")
	base := []float64{18.1, 18.3, 18.0, 18.4, 18.2, 18.5}
	assert.NoRegression(&fakeT{}, run("Pixel 7", "14", stepsOf(base, 58)...), p, budget.Gate{})
	t.Setenv(budget.EnvUpdate, "")
	worse := run("Pixel 8", "15", stepsOf([]float64{25, 25.2, 24.9, 25.1, 25.3, 24.8}, 58)...)
	f = &fakeT{}
	if !assert.NoRegression(f, worse, p, budget.Gate{}) {
		t.Errorf("a baseline from another device failed the test: %q", f.errs)
	}
	want := "perf regression: scroll: frame_time_p95 18.25ms → 25.05ms (+37.3%, p=0.002, n=6+6) — not failed: the baseline was recorded on Google Pixel 7, Android 14, this run is on Google Pixel 8, Android 15 (API 34) (set Gate.AcrossDevices to compare)"
	if !strings.Contains(strings.Join(f.logs, "\n"), want) {
		t.Errorf("logs %q\nwant %q", f.logs, want)
	}
	f = &fakeT{}
	if assert.NoRegression(f, worse, p, budget.Gate{AcrossDevices: true}) {
		t.Error("AcrossDevices did not compare")
	}
}

func TestNoRegressionWithoutBaseline(t *testing.T) {
	p := writeFile(t, t.TempDir(), "b.json", goodFile)
	f := &fakeT{}
	if assert.NoRegression(f, run("Pixel 7", "14", scrollStep()), p, budget.Gate{}) {
		t.Error("a file with no baseline passed the gate")
	}
	if want := "perf regression gate: " + p + " has no baseline this run measured (run 'go test . -update' to record one)"; f.text() != want {
		t.Errorf("got %q", f.text())
	}
}

// Gate.Steps limits recording and checking to the named steps.
func TestGateSteps(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.json")
	launch := scrollStep()
	launch.Name = "launch"
	r := run("Pixel 7", "14", append([]*result.Step{launch}, stepsOf([]float64{18, 18.2, 18.1, 18.3}, 58)...)...)
	t.Setenv(budget.EnvUpdate, "1")
	if f := (&fakeT{}); !assert.NoRegression(f, r, p, budget.Gate{Steps: []string{"scroll"}, Metrics: []metrics.Name{"frame_time_p95"}}) {
		t.Fatal(f.errs)
	}
	file, err := budget.ReadBudgetFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, has := file.Steps["launch"]; has || file.Steps["scroll"]["frame_time_p95"] == nil {
		t.Errorf("recorded steps %v, want only scroll", keys(file.Steps))
	}
}

// A baseline metric the run did not measure is skipped with the reason: a
// warning, a failure when strict. Iterations that missed it are left out
// of the comparison, with a warning.
func TestNoRegressionSkipsUnmeasured(t *testing.T) {
	p := filepath.Join(t.TempDir(), "feed.budget.json")
	t.Setenv(budget.EnvUpdate, "1")
	assert.NoRegression(&fakeT{}, run("Pixel 7", "14", stepsOf([]float64{18.1, 18.3, 18.0, 18.4, 18.2, 18.5}, 58)...), p,
		budget.Gate{Metrics: []metrics.Name{"frame_time_p95", "rx"}})
	t.Setenv(budget.EnvUpdate, "")
	why := "traffic: dumpsys netstats unreadable on every read in the step (3 failed; last: …)"
	steps := stepsOf([]float64{18.2, 18.0, 18.4, 18.3, 18.1, 18.5}, 58)
	for _, st := range steps {
		st.TrafficStats = nil
		st.NotMeasured = map[metrics.Name]string{"rx": why, "tx": why}
	}
	f := &fakeT{}
	if !assert.NoRegression(f, run("Pixel 7", "14", steps...), p, budget.Gate{}) || len(f.errs) != 0 {
		t.Errorf("an unmeasured metric failed the gate: %q", f.errs)
	}
	want := "perf regression gate: not checked: scroll: rx not measured (" + why + "; baseline at " + p + ":"
	if logs := strings.Join(f.logs, "\n"); !strings.Contains(logs, want) {
		t.Errorf("logs %q, want %q", logs, want)
	}
	f = &fakeT{}
	if assert.NoRegression(f, run("Pixel 7", "14", steps...), p, budget.Gate{Strict: true}) || !strings.Contains(f.text(), want) {
		t.Errorf("strict: %q", f.errs)
	}
	// Two iterations of six did not measure it.
	steps = stepsOf([]float64{18.2, 18.0, 18.4, 18.3, 18.1, 18.5}, 58)
	for _, st := range steps[:2] {
		st.TrafficStats = nil
		st.NotMeasured = map[metrics.Name]string{"rx": why, "tx": why}
	}
	f = &fakeT{}
	if !assert.NoRegression(f, run("Pixel 7", "14", steps...), p, budget.Gate{}) || len(f.errs) != 0 {
		t.Errorf("partly measured: %q", f.errs)
	}
	want = "perf regression gate: warning: scroll: rx not measured in 2 of 6 iterations (" + why + "); compared the other 4"
	if logs := strings.Join(f.logs, "\n"); !strings.Contains(logs, want) {
		t.Errorf("logs %q, want %q", logs, want)
	}
}
