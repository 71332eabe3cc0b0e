package budget_test

import (
	"fmt"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
)

// Checking a step: a verdict per limit, kept and shown as it is.
func ExampleCheck() {
	scroll := budget.Measurement{Step: "scroll", Metrics: []metrics.Metric{
		metrics.Jank.Def().Measure(5, "deadline missed"),
		metrics.FPS.Def().Measure(58.2, "(n−1)/(t[n−1]−t[0]), gfxinfo"),
	}}
	run := measured{scroll}
	for _, v := range budget.Check(run, "feed_test.go:31",
		budget.Limit{Metric: metrics.Jank, Value: 3}, budget.Limit{Metric: metrics.FPS, Value: 55, Min: true}) {
		fmt.Printf("%s %s: %s %s\n", v.Status, v.Limit, v.From, v.Line)
	}
	// Output:
	// fail jank ≤ 3: feed_test.go:31 perf budget exceeded: scroll: jank 5 > 3 (deadline missed)
	// pass fps ≥ 55: feed_test.go:31
}

// measured is a Subject of steps.
type measured []budget.Measurement

func (m measured) Measurements() []budget.Measurement { return m }

// One pull-request run against twenty runs of the base branch: the new
// run is judged against how much the base runs differ.
func ExampleCompareRuns() {
	base := budget.Runs{Values: []float64{7.8, 7.9, 7.7, 8.0, 7.8, 7.9, 8.1, 7.8, 7.9, 7.7, 7.8, 8.0, 7.9, 7.8, 7.9, 8.0, 7.7, 7.9, 7.8, 7.9}}
	next := budget.Runs{Values: []float64{9.6}}
	c := budget.CompareRuns(base, next, metrics.FrameTimeP95.Def(), budget.Gate{})
	fmt.Println(c.Method, c.Regression)
	fmt.Println(budget.RegressionLine("scroll", metrics.FrameTimeP95, "ms", c))
	// Output:
	// prediction true
	// perf regression: scroll: frame_time_p95 7.87ms → 9.6ms (+22.1%, p<0.001, 20 base runs (spread ±1.4%) + 1 new run)
}

func ExampleCompareValues() {
	base := []float64{18.1, 18.3, 18.0, 18.4, 18.2, 18.5, 18.2, 18.3}
	next := []float64{24.8, 24.9, 25.1, 24.7, 24.9, 25.0, 24.8, 24.9}
	c := budget.CompareValues(base, next, metrics.Lower, budget.Gate{})
	fmt.Println(budget.RegressionLine("scroll", metrics.FrameTimeP95, "ms", c))
	// Output:
	// perf regression: scroll: frame_time_p95 18.25ms → 24.9ms (+36.4%, p<0.001, n=8+8)
}

// A budget as a command line gives it (perfgate report -budget).
func ExampleParseLimit() {
	l, err := budget.ParseLimit("scroll:fps>=55")
	fmt.Printf("step %q, metric %q, limit %g, floor %v, err %v: %s\n", l.Step, l.Metric, l.Value, l.Min, err, l)
	_, err = budget.ParseLimit("jnak<=3")
	fmt.Println(err != nil)
	// Output:
	// step "scroll", metric "fps", limit 55, floor true, err <nil>: fps ≥ 55
	// true
}

// A budget file with budgets per device model: each model's budgets add to
// the shared ones, overriding those of the same step and metric.
func ExampleFile_LimitsFor() {
	f, err := budget.ParseBudgetFile("feed.budget.json", []byte(`{
  "schema": "perfgate.budget/v1",
  "steps": {"launch": {"startup_initial": {"max": 1000, "unit": "ms"}}, "scroll": {"jank": {"max": 3, "unit": "frames"}}},
  "models": {"Google Pixel 4a": {"steps": {"scroll": {"jank": {"max": 8, "unit": "frames"}}}}}
}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range []procfs.DeviceFacts{{Manufacturer: "Google", Model: "Pixel 4a"}, {Manufacturer: "Google", Model: "Pixel 8"}} {
		limits, own := f.LimitsFor(d)
		fmt.Printf("%s: %v (its own: %v)\n", d.Name(), limits, own)
	}
	// Output:
	// Google Pixel 4a: [startup_initial ≤ 1000ms jank ≤ 8] (its own: true)
	// Google Pixel 8: [startup_initial ≤ 1000ms jank ≤ 3] (its own: false)
}
