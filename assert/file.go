package assert

import (
	"fmt"

	"github.com/perfgate/perfgate/budget"
)

// Budget checks every budget of every step in a golden budget file (a
// bare name is under testdata/) against the run, one line per broken
// budget (budget.CheckFile). A repeated step ("scroll#2") is checked
// against the budgets of "scroll"; a step the file names but the run lacks
// fails, naming the file and line. Every verdict is kept with the run.
//
// With -update or PERFGATE_UPDATE=1 it rewrites the file from this run
// instead, with the default Headroom (see BudgetWith).
func Budget(t TestingT, r budget.Run, path string) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return BudgetWith(t, r, path, budget.Headroom{})
}

// BudgetWith is Budget with the headroom recorded budgets get. Rewriting
// (budget.RecordBudgets) keeps the steps and metrics the file already has
// (a step new to the file gets the usual metrics: jank, fps,
// frame_time_p95, …), keeps recorded baselines, and tightens freely; it
// never loosens a budget unless PERFGATE_UPDATE=loosen, and says so, with
// the old and the new value, either way.
func BudgetWith(t TestingT, r budget.Run, path string, h budget.Headroom) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	p, err := budget.ModelPath(path, r.RunDevice())
	if err != nil {
		return report(t, r, []budget.Verdict{fileError(path, err)})
	}
	if budget.Updating() {
		u, err := budget.RecordBudgets(r, p, h, budget.PolicyFromEnv())
		return updated(t, r, u, err)
	}
	f, err := budget.ReadBudgetFile(p)
	if err != nil {
		return report(t, r, []budget.Verdict{fileError(p, err)})
	}
	return BudgetFile(t, r, f)
}

// BudgetFile checks every budget of a budget file already read (see
// budget.ReadBudgetFile, budget.ParseBudgetFile) against the run, as
// Budget does.
func BudgetFile(t TestingT, r budget.Run, f *budget.File) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	vs, notes := budget.CheckFile(r, f)
	for _, n := range notes {
		logf(t, "%s", n)
	}
	ok := report(t, r, vs)
	if stepFailed(vs) {
		t.Errorf("run 'go test . -update' to rewrite %s if the change is intended", f.Path)
	}
	return ok
}

// stepFailed reports whether a verdict of a step failed: a rewrite of the
// file could change that, where it cannot change a file-wide failure (no
// budgets for the device, no baseline at all).
func stepFailed(vs []budget.Verdict) bool {
	for _, v := range vs {
		if v.Fails() && v.Step != "" {
			return true
		}
	}
	return false
}

// fileError is the failing verdict of a budget file that could not be
// read: its budgets were not checked.
func fileError(path string, err error) budget.Verdict {
	return budget.Verdict{Kind: budget.KindBudget, Status: budget.NotChecked, From: budget.Path(path), Reason: err.Error(), Line: err.Error()}
}

// updated reports a rewrite: its notes to the log, its refusals as
// failures kept with the run.
func updated(t TestingT, r budget.Run, u budget.Update, err error) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	if err != nil {
		return report(t, r, []budget.Verdict{{Kind: budget.KindUpdate, Status: budget.Fail, From: u.Path, Reason: err.Error(), Line: fmt.Sprint(err)}})
	}
	for _, n := range u.Notes {
		logf(t, "%s", n)
	}
	return report(t, r, u.Refused)
}
