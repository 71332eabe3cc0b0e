package report

import (
	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
)

// verdicts judges every budget that applies to st, as assert's checks do
// (assert.Verdicts, metrics.Judge). A step that crashed fails a "crashes"
// verdict even without a budget for it, since a crash voids every other
// figure, unless the test expected the crash (perftest.ExpectCrash).
func verdicts(st *perftest.Step, budgets []assert.Limit) []metrics.Verdict {
	out := assert.Verdicts(st, budgets...)
	for _, v := range out {
		if v.Limit.Metric == metrics.Crashes {
			return out
		}
	}
	if len(st.Crashes) > 0 && !st.CrashExpected {
		out = append(out, assert.Verdicts(st, assert.Limit{Metric: metrics.Crashes})...)
	}
	return out
}

// budgetText is a limit without its metric's name, for a table cell beside
// the metric: "≤ 3", "≥ 50".
func budgetText(l assert.Limit) string {
	s := l.String()
	return s[len(l.Metric)+1:]
}

// Failed reports whether a session failed: it ended early, the app
// crashed, or a step broke one of budgets (see Options.Budgets).
func Failed(r *perftest.Result, budgets []assert.Limit) bool {
	if r.Error != "" || unexpectedCrash(r) {
		return true
	}
	for _, st := range r.Steps {
		for _, v := range verdicts(st, budgets) {
			if !v.Pass {
				return true
			}
		}
	}
	return false
}

// unexpectedCrash reports whether the app crashed outside the steps whose
// crashes the test expected, or outside every step.
func unexpectedCrash(r *perftest.Result) bool {
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
