package budget_test

import (
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
)

// run is a Run of measurements on a device model.
type run struct {
	model string
	ms    []budget.Measurement
}

func (r run) Measurements() []budget.Measurement { return r.ms }
func (r run) RunDevice() procfs.DeviceFacts {
	return procfs.DeviceFacts{Manufacturer: "Google", Model: r.model, Release: "13", API: 33}
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

// A budget on context a team bounds either way (frames counted) is
// rewritten the way the file bounds it: frames ≤ 1000 with 36 measured
// tightens to ≤ 37, where it once was refused as loosening a floor.
func TestRecordContextBudgetKeepsItsDirection(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/ctx.budget.json"
	if err := os.WriteFile(path, []byte(`{"schema": "perfgate.budget/v1", "steps": {"scroll": {"frames": {"max": 1000, "unit": "frames"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run{"Pixel 7", []budget.Measurement{step("scroll", map[metrics.Name]float64{metrics.Frames: 36})}}
	u, err := budget.RecordBudgets(r, path, budget.Headroom{}, budget.Policy{})
	if err != nil || len(u.Refused) != 0 {
		t.Fatalf("record: %v, refused %+v", err, u.Refused)
	}
	f, err := budget.ReadBudgetFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e := f.Steps["scroll"]["frames"]
	if e.Max == nil || *e.Max != 37 || e.Min != nil {
		t.Errorf("frames budget %+v after recording 36; notes %q", e, u.Notes)
	}
	// The same run again changes nothing, and says so.
	u, err = budget.RecordBudgets(r, path, budget.Headroom{}, budget.Policy{})
	if want := "perf budgets unchanged: the run kept all 1 in " + path; err != nil || len(u.Notes) != 1 || u.Notes[0] != want {
		t.Errorf("recording again: %v, notes %q, want %q", err, u.Notes, want)
	}
}

// A budget recorded under one jank definition is not checked against
// another: a SurfaceFlinger run counts PerfDog Jank, and a "deadline
// missed" budget is not checked there, saying why. A limit in a unit that
// is not its metric's is an error naming the line.
func TestBudgetDefinitionAndUnit(t *testing.T) {
	f, err := budget.ParseBudgetFile("testdata/def.budget.json", []byte(`{"schema": "perfgate.budget/v1", "steps": {
  "scroll": {"jank": {"max": 3, "unit": "frames", "definition": "deadline missed"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	sf := budget.Measurement{Step: "scroll", Metrics: []metrics.Metric{metrics.Jank.Def().Measure(1, "PerfDog Jank")}}
	vs, _ := budget.CheckFile(run{"Pixel 7", []budget.Measurement{sf}}, f)
	want := "perf budget not checked: scroll: jank 1 (the step's jank is PerfDog Jank, the budget's deadline missed: a budget set under one definition is not checked under another; budget jank ≤ 3)"
	if len(vs) != 1 || vs[0].Status != budget.NotChecked || vs[0].Line != want {
		t.Errorf("PerfDog jank against a deadline-missed budget: %+v", vs)
	}
	gfx := budget.Measurement{Step: "scroll", Metrics: []metrics.Metric{metrics.Jank.Def().Measure(1, "deadline missed")}}
	if vs, _ := budget.CheckFile(run{"Pixel 7", []budget.Measurement{gfx}}, f); len(vs) != 1 || !vs[0].Passed() {
		t.Errorf("deadline-missed jank: %+v", vs)
	}
	_, err = budget.ParseBudgetFile("testdata/ms.budget.json", []byte(`{"schema": "perfgate.budget/v1", "steps": {
  "scroll": {"jank": {"max": 16, "unit": "ms"}}}}`))
	if err == nil || err.Error() != `testdata/ms.budget.json:2: step "scroll", metric "jank": unit "ms": jank is in frames` {
		t.Errorf("jank in ms: %v", err)
	}
}
