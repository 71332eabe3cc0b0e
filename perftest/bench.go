package perftest

import (
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// benchT is *testing.B's ReportMetric.
type benchT interface {
	ReportMetric(n float64, unit string)
}

// reportBench reports each step's metrics to a benchmark in the units
// benchstat reads (STYLE.md rule 7: "p95-frame-ns", "pss-max-B", "jank").
// A session of one step reports bare units; with several, each unit is
// prefixed by the step's name ("scroll-jank"), since one benchmark has one
// line. Iterations of a step ("scroll#2") are averaged into "scroll".
func reportBench(b benchT, r *result.Result) {
	type acc struct {
		sum float64
		n   int
	}
	var order []string
	vals := map[string]*acc{}
	steps := map[string]bool{}
	for _, st := range r.Steps {
		steps[metrics.BaseStep(st.Name)] = true
	}
	add := func(step string, m metrics.Metric) {
		if m.BenchUnit == "" {
			return
		}
		unit := m.BenchUnit
		if len(steps) > 1 {
			unit = metrics.BenchToken(step) + "-" + unit
		}
		a := vals[unit]
		if a == nil {
			a = &acc{}
			vals[unit] = a
			order = append(order, unit)
		}
		a.sum += m.Value * m.BenchScale
		a.n++
	}
	for _, st := range r.Steps {
		for _, m := range st.Metrics() {
			add(metrics.BaseStep(st.Name), m)
		}
	}
	if len(r.Steps) == 0 && r.Whole != nil {
		for _, m := range r.Whole.Metrics() {
			add("session", m)
		}
	}
	for _, u := range order {
		b.ReportMetric(vals[u].sum/float64(vals[u].n), u)
	}
}
