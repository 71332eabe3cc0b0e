package budget_test

import (
	"fmt"
	"testing"

	"github.com/perfgate/perfgate/budget"
)

// A budget of a step no run has is refused, naming the limit or the file's
// line, and the steps there are.
func TestCheckSteps(t *testing.T) {
	limit := func(s string) budget.Limit {
		l, err := budget.ParseLimit(s)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	f, err := budget.ParseBudgetFile("misspelt.budget.json", []byte(`{ "schema": "perfgate.budget/v1",
  "steps": { "scrol": { "jank": { "max": 3 } } }
}`))
	if err != nil {
		t.Fatal(err)
	}
	steps := []string{"scroll", "settle"}
	for _, c := range []struct {
		limits []budget.Limit
		f      *budget.File
		want   string
	}{
		{nil, nil, ""},
		{[]budget.Limit{limit("jank<=3"), limit("scroll:fps>=50")}, nil, ""},
		{[]budget.Limit{limit("scrol:jank<=3")}, nil, `scrol:jank ≤ 3: no result has step "scrol" (they have: scroll, settle)`},
		{nil, f, `misspelt.budget.json:2: budgets of step "scrol", which no result has (they have: scroll, settle)`},
	} {
		err := budget.CheckSteps(steps, c.limits, c.f)
		if got := fmt.Sprint(err); c.want == "" && err != nil || c.want != "" && got != c.want {
			t.Errorf("CheckSteps(%v, %v) = %v, want %q", c.limits, c.f != nil, err, c.want)
		}
	}
	if err := budget.CheckSteps([]string{"session"}, []budget.Limit{limit("session:cpu<=50")}, nil); err != nil {
		t.Errorf("the session of a run of no step: %v", err)
	}
}
