package budget_test

import (
	"os"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
)

// A figure below zero (a frame overrun, done before the deadline) gets a
// recorded budget with the headroom on the side it is due: an overrun of
// −5 ms a ceiling of −4.5 ms. The run passes the budget it recorded, and
// an overrun past it fails, the line saying by how much.
func TestRecordNegativeFigures(t *testing.T) {
	path := t.TempDir() + "/neg.budget.json"
	err := os.WriteFile(path, []byte(`{"schema": "perfgate.budget/v1", "steps": {"scroll": {
  "frame_overrun_p95": {"max": 100, "unit": "ms"}}}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	r := run{"Pixel 7", []budget.Measurement{step("scroll", map[metrics.Name]float64{metrics.FrameOverrunP95: -5})}}
	if _, err := budget.RecordBudgets(r, path, budget.Headroom{}, budget.Policy{}); err != nil {
		t.Fatal(err)
	}
	f, err := budget.ReadBudgetFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if over := f.Steps["scroll"]["frame_overrun_p95"]; over.Max == nil || *over.Max != -4.5 {
		t.Fatalf("recorded overrun %+v; want max -4.5", over)
	}
	if vs, _ := budget.CheckFile(r, f); budget.Failed(vs) != 0 {
		t.Errorf("the run fails the budgets it recorded: %+v", vs)
	}
	late := run{"Pixel 7", []budget.Measurement{step("scroll", map[metrics.Name]float64{metrics.FrameOverrunP95: -3})}}
	vs, _ := budget.CheckFile(late, f)
	if budget.Failed(vs) != 1 {
		t.Fatalf("an overrun of -3ms against ≤ -4.5ms: %+v", vs)
	}
	for _, v := range vs {
		if v.Fails() && v.Line != "perf budget exceeded: scroll: frame_overrun_p95 -3ms > -4.5ms (test)" {
			t.Errorf("line %q", v.Line)
		}
	}
}
