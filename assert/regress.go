package assert

import (
	"github.com/perfgate/perfgate/budget"
)

// NoRegression compares the run with the baselines of a golden budget file
// (a bare name is under testdata/): for every step and metric with a
// baseline, the run's iterations of that step ("scroll", "scroll#2", …;
// see perftest's Session.Repeat) against the recorded ones
// (budget.Regressions). It fails, one line per metric, only when a change
// is both significant (p < Gate.Alpha) and for the worse by more than
// Gate.ThresholdPct. Too few iterations to tell, or a baseline recorded on
// another device model or Android version, is a warning in the test's log
// (a failure with Gate.Strict), never a silent pass. Every verdict is kept
// with the run.
//
// With -update or PERFGATE_UPDATE=1 it records this run's iterations as the
// baselines instead, keeping every budget limit of the file.
func NoRegression(t TestingT, r budget.Run, path string, g budget.Gate) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	if budget.Updating() {
		u, err := budget.RecordBaselines(r, path, g)
		return updated(t, r, u, err)
	}
	f, err := budget.ReadBudgetFile(path)
	if err != nil {
		return report(t, r, []budget.Verdict{fileError(path, err)})
	}
	vs := budget.Regressions(r, f, g)
	ok := report(t, r, vs)
	if stepFailed(vs) {
		t.Errorf("run 'go test . -update' to record a new baseline in %s if the change is intended", f.Path)
	}
	return ok
}
