package scenario_test

import (
	"bytes"
	"testing"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/scenario"
)

func TestOutcome(t *testing.T) {
	r := &result.Result{Error: "app died"}
	r.RecordVerdicts(
		budget.Verdict{Kind: budget.KindBudget, Status: budget.Fail, Line: "scroll: jank 5 > 3"},
		budget.Verdict{Kind: budget.KindBudget, Status: budget.Pass, Line: "scroll: fps 58 >= 55"},
		budget.Verdict{Kind: budget.KindCrash, Status: budget.Fail, Line: "scroll: the app crashed"},
	)
	var out bytes.Buffer
	o := (&scenario.File{}).Outcome(&out, r, nil)
	want := "scroll: jank 5 > 3\nscroll: the app crashed; \"expect_crash\": true in the step if the scenario expects it\n"
	if out.String() != want {
		t.Errorf("lines:\n%s\nwant:\n%s", out.String(), want)
	}
	if o.OK() {
		t.Error("OK with two failures and an early end")
	}
	if got, want := o.String(), "0 failed steps, 1 broken budgets, 1 steps crashed, session ended early: app died"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if o := (&scenario.File{}).Outcome(&out, &result.Result{}, nil); !o.OK() {
		t.Errorf("an empty Result: %s", o)
	}
}
