package assert_test

import (
	"fmt"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
)

// printT prints what a check reports, in place of a *testing.T.
type printT struct{}

func (printT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (printT) FailNow()                          {}

func ExampleMaxJank() {
	// A step as a session summarises it (normally r.Step("scroll") of a
	// Result from perftest).
	step := &perftest.Step{Name: "scroll", FrameStats: perftest.FrameStats{
		Source: "gfxinfo", Frames: 180, FPS: 58.2, Jank: 5, JankDefinition: metrics.JankDefinitionDeadlineMissed},
		JankAtS: []float64{1.84, 2.1, 2.31, 3.02, 3.4}}
	ok := assert.MaxJank(printT{}, step, 3)
	fmt.Println(ok)
	ok = assert.MinFPS(printT{}, step, 55)
	fmt.Println(ok)
	// Output:
	// perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s 2.31s 3.02s 3.40s)
	// false
	// true
}

func ExampleBudget() {
	// testdata/example.budget.json holds jank ≤ 3 and fps ≥ 50 for "scroll".
	r := &perftest.Result{Steps: []*perftest.Step{{Name: "scroll", FrameStats: perftest.FrameStats{
		Source: "gfxinfo", Frames: 180, FPS: 48.5, Jank: 2, JankDefinition: metrics.JankDefinitionDeadlineMissed}}}}
	ok := assert.Budget(printT{}, r, "example.budget.json")
	fmt.Println(ok)
	// Output:
	// perf budget exceeded: scroll: fps 48.5 < 50 ((n−1)/(t[n−1]−t[0]), gfxinfo)
	// run 'go test . -update' to rewrite testdata/example.budget.json if the change is intended
	// false
}

func ExampleCompareValues() {
	base := []float64{18.1, 18.3, 18.0, 18.4, 18.2, 18.5, 18.2, 18.3}
	next := []float64{24.8, 24.9, 25.1, 24.7, 24.9, 25.0, 24.8, 24.9}
	c := assert.CompareValues(base, next, metrics.Lower, assert.Gate{})
	fmt.Println(assert.RegressionLine("scroll", metrics.FrameTimeP95, "ms", c))
	// Output:
	// perf regression: scroll: frame_time_p95 18.25ms → 24.9ms (+36.4%, p=0.000, n=8+8)
}

// A budget as a command line gives it (perfgate report -budget).
func ExampleParseLimit() {
	l, err := assert.ParseLimit("scroll:fps>=55")
	fmt.Printf("step %q, metric %q, limit %g, floor %v, err %v: %s\n", l.Step, l.Metric, l.Value, l.Min, err, l)
	_, err = assert.ParseLimit("jnak<=3")
	fmt.Println(err != nil)
	// Output:
	// step "scroll", metric "fps", limit 55, floor true, err <nil>: fps ≥ 55
	// true
}

// A budget file with budgets per device model: each device is judged by
// its own model's, a model without its own by the shared ones.
func ExampleFile_LimitsFor() {
	f, err := assert.ParseBudgetFile("feed.budget.json", []byte(`{
  "schema": "perfgate.budget/v1",
  "steps": {"scroll": {"jank": {"max": 3, "unit": "frames"}}},
  "models": {"Google Pixel 4a": {"steps": {"scroll": {"jank": {"max": 8, "unit": "frames"}}}}}
}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range []metrics.DeviceFacts{{Manufacturer: "Google", Model: "Pixel 4a"}, {Manufacturer: "Google", Model: "Pixel 8"}} {
		limits, own := f.LimitsFor(d)
		fmt.Printf("%s: %v (its own: %v)\n", d.Name(), limits, own)
	}
	// Output:
	// Google Pixel 4a: [jank ≤ 8] (its own: true)
	// Google Pixel 8: [jank ≤ 3] (its own: false)
}
