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
