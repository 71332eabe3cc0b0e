package metrics

import (
	"fmt"
	"strings"
)

// Limit is one budget: a ceiling on a metric, or a floor with Min.
type Limit struct {
	// Step names the step the limit applies to, and so to its iterations
	// ("scroll" covers "scroll#2"); empty applies it to every step.
	Step   string
	Metric Name
	// Value is in the metric's unit (Def.Unit).
	Value float64
	// Min makes Value a floor (fps must stay at or above it); otherwise it
	// is a ceiling.
	Min bool
}

// String is the limit as failure lines and reports show it: "jank ≤ 3",
// "frame_time_p95 ≤ 20.5ms", "fps ≥ 50".
func (l Limit) String() string {
	op := "≤"
	if l.Min {
		op = "≥"
	}
	return fmt.Sprintf("%s %s %s", l.Metric, op, FormatValue(l.Value, l.Metric.Def().Unit))
}

// AppliesTo reports whether the limit covers the named step.
func (l Limit) AppliesTo(step string) bool {
	return l.Step == "" || l.Step == step || l.Step == BaseStep(step)
}

// Measurement is one step as budgets and gates read it.
type Measurement struct {
	// Step is the step's name as recorded: "scroll", "scroll#2" for a
	// repeat, "session" for a whole session without named steps.
	Step string
	// Missing is set when the run had no such step.
	Missing bool
	// Metrics are the step's measured metrics (see (*perftest.Step).Metrics).
	Metrics []Metric
	// Evidence holds, per metric, short items a failure quotes: the times
	// of janky frames ("1.84s"), crash descriptions.
	Evidence map[Name][]string
	// Causes holds, per metric, why the step measured what it did, in a
	// few words a failure adds after its evidence: "4 late in layout; top
	// block 180 ms in com.x.FeedAdapter.onBindViewHolder".
	Causes map[Name]string
	// NotMeasured holds, per metric of the catalogue the step has no value
	// for, why: "traffic: /proc/<pid>/net/dev unreadable on every read in
	// the step (…)". A budget on such a metric fails as not checked, with
	// the reason; a regression gate skips it with the reason.
	NotMeasured map[Name]string
}

// Metric returns the named metric of the step.
func (m Measurement) Metric(name Name) (Metric, bool) {
	for _, x := range m.Metrics {
		if x.Name == name {
			return x, true
		}
	}
	return Metric{}, false
}

// Verdict is one limit judged against one step.
type Verdict struct {
	Limit Limit
	Step  string
	// Missing is set when the run had no such step.
	Missing bool
	// Measured is false when the step has no value for the metric (or no
	// such step ran): the limit is not met, since a budget nobody could
	// check is not a budget kept. Reason says why, when known.
	Measured bool
	Reason   string
	// Metric is the step's value when Measured.
	Metric Metric
	// Evidence is what a failure quotes (Measurement.Evidence), and Cause
	// why it happened (Measurement.Causes).
	Evidence []string
	Cause    string
	Pass     bool
}

// Judge checks one limit against one step: the single place a measurement
// meets a limit, for assertions, session-bound checks and reports alike. A
// value on the limit meets it.
func Judge(m Measurement, l Limit) Verdict {
	v := Verdict{Limit: l, Step: m.Step}
	if m.Missing {
		v.Missing, v.Reason = true, fmt.Sprintf("the run has no step %q", m.Step)
		return v
	}
	x, ok := m.Metric(l.Metric)
	if !ok {
		v.Reason = m.NotMeasured[l.Metric]
		return v
	}
	v.Measured, v.Metric, v.Evidence, v.Cause = true, x, m.Evidence[l.Metric], m.Causes[l.Metric]
	v.Pass = l.Min && x.Value >= l.Value || !l.Min && x.Value <= l.Value
	return v
}

// Line is the verdict's one-line failure, "" for a pass:
//
//	perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s)
//	perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s …; 4 late in layout; top block 180 ms in com.x.Feed.bind)
//	perf budget not checked: scroll: rx not measured (traffic: …; budget rx ≤ 100000B)
//	perf budget exceeded: scroll: step not measured (the run has no step "scroll")
func (v Verdict) Line() string {
	switch {
	case v.Pass:
		return ""
	case v.Missing:
		return fmt.Sprintf("perf budget exceeded: %s: step not measured (%s)", v.Step, v.Reason)
	case !v.Measured && v.Reason == "":
		return fmt.Sprintf("perf budget not checked: %s: %s not measured (budget %s)", v.Step, v.Limit.Metric, v.Limit)
	case !v.Measured:
		return fmt.Sprintf("perf budget not checked: %s: %s not measured (%s; budget %s)", v.Step, v.Limit.Metric, v.Reason, v.Limit)
	}
	op := ">"
	if v.Limit.Min {
		op = "<"
	}
	why := v.Metric.Definition
	if ev := v.Evidence; len(ev) > 0 {
		if len(ev) > 10 {
			ev = append(ev[:10:10], "…")
		}
		prefix := "frames at "
		if v.Metric.Family != FamilyFrames {
			prefix = ""
		}
		why += "; " + prefix + strings.Join(ev, " ")
	}
	if v.Cause != "" {
		why += "; " + v.Cause
	}
	unit := v.Metric.Unit
	return fmt.Sprintf("perf budget exceeded: %s: %s %s %s %s (%s)", v.Step, v.Limit.Metric,
		FormatValue(v.Metric.Value, unit), op, FormatValue(v.Limit.Value, unit), why)
}
