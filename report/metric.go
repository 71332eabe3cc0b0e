package report

import (
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
)

// Better says which way a metric improves.
type Better = metrics.Better

// The directions a metric improves in.
const (
	Neither = metrics.Neither
	Lower   = metrics.Lower
	Higher  = metrics.Higher
)

// Metric is one number of a step, with its unit and where it came from.
type Metric = metrics.Metric

// StepMetrics lists every metric of a step that its Result holds; see
// (*perftest.Step).Metrics.
func StepMetrics(st *perftest.Step) []Metric { return st.Metrics() }

// find returns the named metric of ms.
func find(ms []Metric, name metrics.Name) (Metric, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
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
func reasonOf(absent []perftest.AbsentMetric, name metrics.Name) string {
	for _, a := range absent {
		if a.Name == name {
			return a.Reason
		}
	}
	return ""
}
