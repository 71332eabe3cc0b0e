package report

import (
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// fromReport names the verdicts a report makes itself, of the budgets it
// was given (Options.Budgets, Options.BudgetFile).
const fromReport = "report"

// stepVerdicts are the verdicts a report shows beside st's metrics: the
// ones the Result keeps for the step (its test's checks, budget files,
// gates, crashes), then the report's own of the budgets it was given
// (budgets), judged by budget.Check. A report never judges again what the
// Result holds a verdict of.
func stepVerdicts(r *result.Result, st *result.Step, budgets []budget.Limit) []budget.Verdict {
	var out []budget.Verdict
	for _, v := range r.Checked() {
		if v.Step == st.Name || v.Kind == budget.KindRegression && v.Step == metrics.BaseStep(st.Name) {
			out = append(out, v)
		}
	}
	if len(budgets) > 0 {
		out = append(out, budget.Check(st, fromReport, budgets...)...)
	}
	return out
}

// metricVerdict is what a table shows for metric among vs: "fail" when
// any fails, else "pass" when one passed, else "" (and the budget's bound
// text of the last budget verdict, for the budget column).
func metricVerdict(vs []budget.Verdict, metric metrics.Name) (verdict, bound string) {
	for _, v := range vs {
		if v.Metric != metric || v.Kind != budget.KindBudget && v.Kind != budget.KindRegression {
			continue
		}
		if v.Limit != nil {
			bound = v.Limit.Bound()
		}
		switch {
		case v.Fails():
			verdict = "fail"
		case verdict == "" && v.Passed():
			verdict = "pass"
		}
	}
	return verdict, bound
}

// limitsOf are the budgets among vs, for the charts.
func limitsOf(vs []budget.Verdict) []budget.Limit {
	var out []budget.Limit
	seen := map[budget.Limit]bool{}
	for _, v := range vs {
		if v.Kind == budget.KindBudget && v.Limit != nil && v.Limit.Metric != "" && !seen[*v.Limit] {
			seen[*v.Limit] = true
			out = append(out, *v.Limit)
		}
	}
	return out
}

// Failures lists why a session failed, one line a reason (see
// result.Result.Failed): every failing verdict it keeps, an early end, a
// crash no step expected, its test's failure; and the failing verdicts of
// the budgets a report was given (budgets, judged by budget.Check). Empty
// when it passed.
func Failures(r *result.Result, budgets []budget.Limit) []string {
	out := r.Failed()
	if len(budgets) == 0 {
		return out
	}
	for _, st := range r.Steps {
		for _, v := range budget.Check(st, fromReport, budgets...) {
			if v.Fails() {
				out = append(out, v.Line)
			}
		}
	}
	return out
}

// Failed reports whether a session failed (see Failures).
func Failed(r *result.Result, budgets []budget.Limit) bool {
	return len(Failures(r, budgets)) > 0
}

// unexpectedCrash reports whether the app crashed outside the steps whose
// crashes the test expected, or outside every step.
func unexpectedCrash(r *result.Result) bool {
	expected := map[string]bool{}
	for _, st := range r.Steps {
		if st.CrashExpected {
			expected[st.Name] = true
		}
	}
	for _, c := range r.Crashes {
		if !expected[c.Step] {
			return true
		}
	}
	return false
}
