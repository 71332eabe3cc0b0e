package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
)

// Budget is a limit on one metric of a step, drawn as a line on the chart
// that shows the metric and checked in the metrics table.
type Budget struct {
	// Step names the step; empty applies the budget to every step.
	Step string
	// Metric is a Metric.Name, e.g. "jank", "fps", "frame_time_p95".
	Metric string
	// Limit is in the metric's unit (Metric.Unit).
	Limit float64
	// Min makes Limit a floor (fps must stay above it); otherwise it is a
	// ceiling.
	Min bool
}

func (b Budget) String() string {
	op := "≤"
	if b.Min {
		op = "≥"
	}
	return fmt.Sprintf("%s %s %s", b.Metric, op, formatValue(b.Limit))
}

// Verdict is one budget checked against one step.
type Verdict struct {
	Budget Budget
	Step   string
	// Metric is the step's value; Found is false when the step has no such
	// metric (a collector that did not run), which fails the budget: a
	// budget nobody measured is not met.
	Metric Metric
	Found  bool
	Pass   bool
	// Reason says why the step has no value for the metric, when Found is
	// false (see (*perftest.Step).Absent).
	Reason string
}

// budgetsFor returns the budgets that apply to step name.
func budgetsFor(budgets []Budget, name string) []Budget {
	var out []Budget
	for _, b := range budgets {
		if b.Step == "" || b.Step == name || b.Step == metrics.BaseStep(name) {
			out = append(out, b)
		}
	}
	return out
}

// Check checks every budget that applies to st. A step that crashed fails a
// "crashes" verdict even without a budget for it, since a crash voids every
// other figure.
func Check(st *perftest.Step, budgets []Budget) []Verdict {
	ms := StepMetrics(st)
	absent := st.Absent()
	var out []Verdict
	hasCrash := false
	for _, b := range budgetsFor(budgets, st.Name) {
		m, ok := find(ms, b.Metric)
		v := Verdict{Budget: b, Step: st.Name, Metric: m, Found: ok}
		if !ok {
			v.Reason = reasonOf(absent, b.Metric)
		}
		if ok {
			if b.Min {
				v.Pass = m.Value >= b.Limit
			} else {
				v.Pass = m.Value <= b.Limit
			}
		}
		hasCrash = hasCrash || b.Metric == "crashes"
		out = append(out, v)
	}
	if !hasCrash && len(st.Crashes) > 0 {
		m, _ := find(ms, "crashes")
		out = append(out, Verdict{Budget: Budget{Metric: "crashes", Limit: 0}, Step: st.Name, Metric: m, Found: true})
	}
	return out
}

// message is the verdict's one-line failure text, in the budget gate's
// format: "perf budget exceeded: scroll: jank 5 > 3 (deadline missed)".
func (v Verdict) message() string {
	if !v.Found {
		return assert.NotCheckedLine(v.Step, v.Budget.Metric, v.Reason, v.Budget.String())
	}
	op := ">"
	if v.Budget.Min {
		op = "<"
	}
	return fmt.Sprintf("perf budget exceeded: %s: %s %s %s %s (%s)", v.Step, v.Budget.Metric,
		formatValue(v.Metric.Value), op, formatValue(v.Budget.Limit), v.Metric.Definition)
}

// ParseBudget reads a budget written the way a command line gives it:
// "[step:]metric<=limit" or "[step:]metric>=limit", e.g. "jank<=3",
// "scroll:fps>=55". "<" and ">" mean the same as "<=" and ">=": a value on
// the limit meets it. Errors quote at most a bounded excerpt of s.
func ParseBudget(s string) (Budget, error) {
	var b Budget
	spec := strings.TrimSpace(s)
	i := strings.IndexAny(spec, "<>")
	if i < 0 {
		return b, fmt.Errorf("report budget %s: want [step:]metric<=limit or [step:]metric>=limit", excerpt.Quote(s))
	}
	lhs, op, rhs := strings.TrimSpace(spec[:i]), spec[i:i+1], spec[i+1:]
	b.Min = op == ">"
	rhs = strings.TrimPrefix(rhs, "=")
	if j := strings.LastIndexByte(lhs, ':'); j >= 0 {
		b.Step, lhs = strings.TrimSpace(lhs[:j]), strings.TrimSpace(lhs[j+1:])
		if b.Step == "" {
			return b, fmt.Errorf("report budget %s: empty step name before ':'", excerpt.Quote(s))
		}
	}
	if lhs == "" || strings.ContainsAny(lhs, " \t=<>") {
		return b, fmt.Errorf("report budget %s: bad metric name %s", excerpt.Quote(s), excerpt.Quote(lhs))
	}
	b.Metric = lhs
	v, err := strconv.ParseFloat(strings.TrimSpace(rhs), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return b, fmt.Errorf("report budget %s: limit %s is not a number", excerpt.Quote(s), excerpt.Quote(strings.TrimSpace(rhs)))
	}
	b.Limit = v
	return b, nil
}

// BudgetsOf turns a golden budget file (see package assert) into report
// budgets, so a report shows the limits the tests check: drawn on the
// charts, checked in the tables.
func BudgetsOf(f *assert.File) []Budget {
	var out []Budget
	for step, entries := range f.Steps {
		for metric, e := range entries {
			if l, ok := e.Limit(metric); ok {
				out = append(out, Budget{Step: step, Metric: metric, Limit: l.Value, Min: l.Min})
			}
		}
	}
	slices.SortFunc(out, func(a, b Budget) int {
		return cmp.Or(strings.Compare(a.Step, b.Step), strings.Compare(a.Metric, b.Metric))
	})
	return out
}
