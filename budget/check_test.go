package budget_test

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
)

// run is a Run of measurements on a device model.
type run struct {
	model string
	ms    []budget.Measurement
}

func (r run) Measurements() []budget.Measurement { return r.ms }
func (r run) RunDevice() metrics.DeviceFacts {
	return metrics.DeviceFacts{Manufacturer: "Google", Model: r.model, Release: "13", API: 33}
}

func step(name string, vals map[metrics.Name]float64) budget.Measurement {
	m := budget.Measurement{Step: name}
	for n, v := range vals {
		m.Metrics = append(m.Metrics, n.Def().Measure(v, "test"))
	}
	return m
}

const models = `{
  "schema": "perfgate.budget/v1",
  "steps": {
    "launch": { "startup_initial": { "max": 1000, "unit": "ms" } },
    "scroll": { "jank": { "max": 3, "unit": "frames" }, "fps": { "min": 50, "unit": "fps" } }
  },
  "models": {
    "Google Pixel 4a": { "steps": { "scroll": { "jank": { "max": 8, "unit": "frames" } } } }
  }
}
`

// A model's own budgets add to the shared ones: its jank budget overrides
// the shared jank budget of the step, and every other shared budget (the
// launch's startup, the scroll's fps) still applies to it. The slowest
// phone's 1300 ms cold start fails the shared 1000 ms budget.
func TestModelBudgetsAddToShared(t *testing.T) {
	f, err := budget.ParseBudgetFile("testdata/feed.budget.json", []byte(models))
	if err != nil {
		t.Fatal(err)
	}
	slow := run{"Pixel 4a", []budget.Measurement{
		step("launch", map[metrics.Name]float64{metrics.StartupInitial: 1300}),
		step("scroll", map[metrics.Name]float64{metrics.Jank: 6, metrics.FPS: 48}),
	}}
	vs, notes := budget.CheckFile(slow, f)
	if len(notes) != 0 {
		t.Errorf("notes %q", notes)
	}
	got := map[string]budget.Status{}
	for _, v := range vs {
		got[v.Step+" "+string(v.Metric)+" "+v.Limit.Bound()+" "+v.From] = v.Status
	}
	want := map[string]budget.Status{
		"launch startup_initial ≤ 1000ms testdata/feed.budget.json:4": budget.Fail,
		"scroll jank ≤ 8 testdata/feed.budget.json:8":                 budget.Pass,
		"scroll fps ≥ 50 testdata/feed.budget.json:5":                 budget.Fail,
	}
	if len(got) != len(want) {
		t.Fatalf("verdicts %v, want %v", got, want)
	}
	for k, s := range want {
		if got[k] != s {
			t.Errorf("%s: %q, want %q (all: %v)", k, got[k], s, got)
		}
	}
	// A model without budgets of its own gets the shared ones, and a note.
	other := run{"Pixel 7", slow.ms}
	vs, notes = budget.CheckFile(other, f)
	if len(notes) != 1 || !strings.Contains(notes[0], `"Google Pixel 7" has no budgets of its own`) || budget.Failed(vs) != 3 {
		t.Errorf("Pixel 7: %d failed, notes %q", budget.Failed(vs), notes)
	}
}

// A budget on a step the run lacks fails, naming the file and line of
// the step's budgets: a misspelt step is not a budget kept.
func TestBudgetOnMissingStep(t *testing.T) {
	f, err := budget.ParseBudgetFile("testdata/x.budget.json", []byte(`{
  "schema": "perfgate.budget/v1",
  "steps": {
    "scrol": { "jank": { "max": 3 } }
  }
}`))
	if err != nil {
		t.Fatal(err)
	}
	vs, _ := budget.CheckFile(run{"Pixel 7", []budget.Measurement{step("scroll", map[metrics.Name]float64{metrics.Jank: 0})}}, f)
	if len(vs) != 1 || !vs[0].Fails() || !vs[0].Missing ||
		vs[0].Line != `perf budget exceeded: scrol: step not measured (the run has no step "scrol"; budgets at testdata/x.budget.json:4)` {
		t.Errorf("verdicts %+v", vs)
	}
}
