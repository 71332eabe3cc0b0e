package report

import (
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// StepMetrics lists every metric of a step that its Result holds; see
// (*result.Step).Metrics.
func StepMetrics(st *result.Step) []metrics.Metric { return st.Metrics() }

// find returns the named metric of ms.
func find(ms []metrics.Metric, name metrics.Name) (metrics.Metric, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return metrics.Metric{}, false
}

// benchName turns a free-form name into a benchmark name token
// (metrics.BenchToken), "unnamed" for none.
func benchName(s string) string {
	if s == "" {
		return "unnamed"
	}
	return metrics.BenchToken(s)
}

// reasonOf is why the step has no value for the named metric, "" when
// Absent does not list it.
func reasonOf(absent []result.AbsentMetric, name metrics.Name) string {
	for _, a := range absent {
		if a.Name == name {
			return a.Reason
		}
	}
	return ""
}
