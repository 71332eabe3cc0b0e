package report

import (
	"regexp"
	"strings"

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
func find(ms []Metric, name string) (Metric, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// iterationSuffix is what perftest appends to a step name used again
// ("scroll#2"); a step run N times is N iterations of one step.
var iterationSuffix = regexp.MustCompile(`#[0-9]+$`)

// baseStepName strips an iteration suffix.
func baseStepName(name string) string {
	return iterationSuffix.ReplaceAllString(name, "")
}

// benchName turns a free-form name into a benchmark name token: no spaces,
// and no "/" or "=" that would split it into more sub-names.
func benchName(s string) string {
	if s == "" {
		return "unnamed"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '/' || r == '=':
			return '_'
		}
		return r
	}, s)
}
