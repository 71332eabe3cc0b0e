package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report/internal/sessview"
	"github.com/perfgate/perfgate/result"
)

// CheckBudgetSteps refuses a budget of a step no Result has: a misspelt
// step would be a budget nobody checks. A Result without steps has the
// step "session". The error names the -budget flag for limits, or the
// budget file and line for f's (budget.CheckSteps).
func CheckBudgetSteps(results []*result.Result, limits []budget.Limit, f *budget.File) error {
	have := map[string]bool{}
	var steps []string
	for _, r := range results {
		for _, st := range r.Steps {
			if b := metrics.BaseStep(st.Name); !have[b] {
				have[b] = true
				steps = append(steps, b)
			}
		}
		if len(r.Steps) == 0 && r.Whole != nil && !have["session"] {
			have["session"] = true
			steps = append(steps, "session")
		}
	}
	if err := budget.CheckSteps(steps, limits, nil); err != nil {
		return fmt.Errorf("-budget %w", err)
	}
	return budget.CheckSteps(steps, nil, f)
}

// CountFailed counts the results with a broken budget (of those o gives
// each, Options.BudgetsFor), a crash or an early end.
func CountFailed(results []*result.Result, o Options) int {
	n := 0
	for _, r := range results {
		if Failed(r, o.BudgetsFor(r)) {
			n++
		}
	}
	return n
}

// CountUnfinished counts the Results of sessions that did not reach Stop
// (result.Result.Unfinished).
func CountUnfinished(results []*result.Result) int {
	n := 0
	for _, r := range results {
		if r.Unfinished != nil {
			n++
		}
	}
	return n
}

// StepSummary sums up step of r in one line, as perfgate record prints
// it: its duration, its figures (Figures), the Result's gaps, and
// "unfinished" when cut. why is Figures' note of what was not measured.
func StepSummary(r *result.Result, step string, cut bool) (summary, why string) {
	st := r.Step(step)
	figs, why := Figures(st)
	summary = fmt.Sprintf("%s, %s, %d gaps", st.Duration().Round(time.Millisecond), strings.Join(figs, ", "), len(r.Gaps))
	if cut {
		summary += ", unfinished"
	}
	return summary, why
}

// runValues are r's figures per step as a comparison with the history
// takes a run (RunsOf: the median of a step's iterations), for the
// page's sums over repeated runs (sessview.Aggregate).
func runValues(r *result.Result, label, href string) sessview.Run {
	one := RunsOf([]*result.Result{r}, false)
	run := sessview.Run{Label: label, Href: href}
	for _, k := range one.order {
		run.Values = append(run.Values, sessview.Value{Test: k.Test, Device: k.Device, Step: k.Step, Metric: k.Metric, V: one.runs[k].Values[0]})
	}
	return run
}
