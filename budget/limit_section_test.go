package budget_test

import (
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
)

// A section metric's name holds ':' as the step's does: a limit on it
// parses with and without a step, and a step name with ':' still works.
func TestParseLimitSection(t *testing.T) {
	for spec, want := range map[string]budget.Limit{
		"section_sum:feed:bind<=12":              {Metric: "section_sum:feed:bind", Value: 12},
		"scroll:section_sum:feed:bind<=12":       {Step: "scroll", Metric: "section_sum:feed:bind", Value: 12},
		"open feed : section_count:JIT %<=3":     {Step: "open feed", Metric: "section_count:JIT %", Value: 3},
		"a:b:section_max:Recomposer:recompose<5": {Step: "a:b", Metric: "section_max:Recomposer:recompose", Value: 5},
		"a:b:jank<=3":                            {Step: "a:b", Metric: metrics.Jank, Value: 3},
	} {
		got, err := budget.ParseLimit(spec)
		if err != nil || got != want {
			t.Errorf("ParseLimit(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	if _, err := budget.ParseLimit("scroll:section_avg:x<=1"); err == nil {
		t.Error("section_avg parsed")
	}
}

// A step new to a budget file gets a budget, and a gate a baseline, of
// each section's sum the step measured, beside the catalogue's defaults:
// the sections are the session's own, in no catalogue.
func TestRecordSectionDefaults(t *testing.T) {
	sum := metrics.SectionName(metrics.SectionSum, "feed:bind")
	r := run{"Pixel 7", []budget.Measurement{step("scroll", map[metrics.Name]float64{metrics.Jank: 2, sum: 40,
		metrics.SectionName(metrics.SectionMax, "feed:bind"): 9, metrics.SectionName(metrics.SectionCount, "feed:bind"): 12})}}
	path := t.TempDir() + "/feed.budget.json"
	if _, err := budget.RecordBudgets(r, path, budget.Headroom{}, budget.Policy{}); err != nil {
		t.Fatal(err)
	}
	if _, err := budget.RecordBaselines(r, path, budget.Gate{}); err != nil {
		t.Fatal(err)
	}
	f, err := budget.ReadBudgetFile(path)
	if err != nil {
		t.Fatal(err)
	}
	es := f.Steps["scroll"]
	if e := es[string(sum)]; e == nil || e.Max == nil || *e.Max < 40 || e.Unit != "ms" || e.Baseline == nil || e.Baseline.Values[0] != 40 {
		t.Errorf("%s: %+v", sum, e)
	}
	if es["jank"] == nil || es["section_max:feed:bind"] != nil || es["section_count:feed:bind"] != nil {
		t.Errorf("entries %v", es)
	}
}
