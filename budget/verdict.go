package budget

import (
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/metrics"
)

// Measurement is one step as budgets and gates read it.
type Measurement struct {
	// Step is the step's name as recorded: "scroll", "scroll#2" for a
	// repeat, "session" for a whole session without named steps.
	Step string
	// Missing is set when the run had no such step.
	Missing bool
	// Incomplete says why the step's figures are not those of the step it
	// was meant to be ("unfinished: the session stopped inside it", "an
	// action failed: …"): they are judged as they are, but never recorded
	// as budgets or baselines.
	Incomplete string
	// Metrics are the step's measured metrics (see (*result.Step).Metrics).
	Metrics []metrics.Metric
	// Evidence holds, per metric, short items a failure quotes: the times
	// of janky frames ("1.84s"), crash descriptions.
	Evidence map[metrics.Name][]string
	// Causes holds, per metric, why the step measured what it did, in a
	// few words a failure adds after its evidence: "4 late in layout; top
	// block 180 ms in com.x.FeedAdapter.onBindViewHolder".
	Causes map[metrics.Name]string
	// NotMeasured holds, per metric of the catalogue the step has no value
	// for, why: "traffic: /proc/<pid>/net/dev unreadable on every read in
	// the step (…)". A budget on such a metric is not checked, with the
	// reason, and fails; a regression gate skips it with the reason.
	NotMeasured map[metrics.Name]string
}

// Metric returns the named metric of the step.
func (m Measurement) Metric(name metrics.Name) (metrics.Metric, bool) {
	for _, x := range m.Metrics {
		if x.Name == name {
			return x, true
		}
	}
	return metrics.Metric{}, false
}

// Subject is what checks read: a step (one Measurement) or a whole run
// (every step, in order). *result.Step and *result.Result are Subjects.
type Subject interface {
	Measurements() []Measurement
}

// Run is a whole run: its steps and the device it ran on. *result.Result
// is a Run.
type Run interface {
	Subject
	// RunDevice is the device the run was measured on; baselines and
	// budgets per model are kept under its Name and Release.
	RunDevice() procfs.DeviceFacts
}

// Recorder keeps verdicts with what they judged: a Subject that is one
// (*result.Result, and a *result.Step of one) stores every verdict a
// check of it returns, so that reports, summaries and gates show the
// verdicts themselves and never judge again.
type Recorder interface {
	RecordVerdicts(vs ...Verdict)
}

// Status is a verdict's outcome.
type Status string

// The outcomes. A verdict Fails when it is Fail or NotChecked: a budget
// nobody could check is not a budget kept. Warn is said and kept, and
// fails nothing.
const (
	Pass       Status = "pass"
	Fail       Status = "fail"
	NotChecked Status = "not_checked"
	Warn       Status = "warn"
)

// Kind says what made a verdict.
type Kind string

// The kinds of verdict.
const (
	// KindBudget is a limit on a metric: a check such as MaxJank, a budget
	// file's entry, a scenario's budget, a report's -budget.
	KindBudget Kind = "budget"
	// KindRegression is a regression gate's verdict on one metric.
	KindRegression Kind = "regression"
	// KindCrash is a crash or ANR of the app in a step that did not
	// expect one: it fails the step whatever its budgets say.
	KindCrash Kind = "crash"
	// KindAction is a UI action of a step that failed (an element not
	// found, a tap refused): the step did not do what it was to measure.
	KindAction Kind = "action"
	// KindUpdate is a budget or baseline rewrite that was refused (it
	// would have loosened a budget, or there was nothing to record).
	KindUpdate Kind = "update"
)

// Verdict is one check's outcome: what was checked, against what, the
// value it found, whether it passed, and the line a failure prints. It is
// data: a session stores every verdict in its Result, and reports, pull
// request summaries and gates show the stored verdicts rather than judging
// again.
type Verdict struct {
	Kind   Kind         `json:"kind"`
	Step   string       `json:"step"`
	Metric metrics.Name `json:"metric,omitempty"`
	// Limit is the budget judged (KindBudget).
	Limit *Limit `json:"limit,omitempty"`
	// Value is the step's value of Metric, absent when it was not
	// measured; Unit and Definition are the metric's as measured.
	Value      *float64 `json:"value,omitempty"`
	Unit       string   `json:"unit,omitempty"`
	Definition string   `json:"definition,omitempty"`
	Status     Status   `json:"status"`
	// Missing is set when the run had no such step.
	Missing bool `json:"missing,omitempty"`
	// Reason says why a verdict is not checked, or warns.
	Reason string `json:"reason,omitempty"`
	// Evidence is what a failure quotes (Measurement.Evidence), and Cause
	// why it happened (Measurement.Causes).
	Evidence []string `json:"evidence,omitempty"`
	Cause    string   `json:"cause,omitempty"`
	// From names where the check came from: the file and line of a budget
	// file's entry or of the test's call, the scenario file, a command's
	// flag.
	From string `json:"from,omitempty"`
	// Gate holds a regression verdict's comparison and what it rests on.
	Gate *GateResult `json:"gate,omitempty"`
	// Line is the one line a failure or warning prints; empty on a pass.
	Line string `json:"line,omitempty"`
}

// Fails reports whether the verdict fails what it checked: it failed, or
// could not be checked.
func (v Verdict) Fails() bool { return v.Status == Fail || v.Status == NotChecked }

// Passed reports whether the verdict passed.
func (v Verdict) Passed() bool { return v.Status == Pass }

// Measured reports whether the verdict holds the step's value.
func (v Verdict) Measured() bool { return v.Value != nil }

// Failed counts the verdicts that fail (see Verdict.Fails).
func Failed(vs []Verdict) int {
	n := 0
	for _, v := range vs {
		if v.Fails() {
			n++
		}
	}
	return n
}

// Judge checks one limit against one step: the single place a measurement
// meets a limit, for assertions, session-bound checks, budget files,
// scenarios and reports alike. A value on the limit meets it. from names
// where the limit came from (Verdict.From).
func Judge(m Measurement, l Limit, from string) Verdict {
	lim := l
	v := Verdict{Kind: KindBudget, Step: m.Step, Metric: l.Metric, Limit: &lim, From: from, Unit: l.Metric.Def().Unit}
	switch x, ok := m.Metric(l.Metric); {
	case m.Missing:
		v.Missing, v.Status, v.Reason = true, NotChecked, fmt.Sprintf("the run has no step %q", m.Step)
	case !ok:
		v.Status, v.Reason = NotChecked, m.NotMeasured[l.Metric]
	default:
		val := x.Value
		v.Value, v.Unit, v.Definition = &val, x.Unit, x.Definition
		v.Evidence, v.Cause = m.Evidence[l.Metric], m.Causes[l.Metric]
		v.Status = Fail
		switch {
		case l.Definition != "" && definitional(l.Metric) && x.Definition != l.Definition:
			v.Status = NotChecked
			v.Reason = fmt.Sprintf("the step's %s is %s, the budget's %s", l.Metric, x.Definition, l.Definition)
		case l.Min && x.Value >= l.Value || !l.Min && x.Value <= l.Value:
			v.Status = Pass
		}
	}
	v.Line = v.budgetLine()
	return v
}

// budgetLine is a budget verdict's one-line failure, "" for a pass:
//
//	perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s 2.10s)
//	perf budget exceeded: scroll: jank 5 > 3 (deadline missed; frames at 1.84s …; 4 late in layout; top block 180 ms in com.x.Feed.bind)
//	perf budget not checked: scroll: rx not measured (traffic: …; budget rx ≤ 100000B)
//	perf budget exceeded: scroll: step not measured (the run has no step "scroll")
func (v Verdict) budgetLine() string {
	switch {
	case v.Status == Pass:
		return ""
	case v.Missing:
		return fmt.Sprintf("perf budget exceeded: %s: step not measured (%s)", v.Step, v.Reason)
	case v.Value == nil && v.Reason == "":
		return fmt.Sprintf("perf budget not checked: %s: %s not measured (budget %s)", v.Step, v.Metric, v.Limit)
	case v.Value == nil:
		return fmt.Sprintf("perf budget not checked: %s: %s not measured (%s; budget %s)", v.Step, v.Metric, v.Reason, v.Limit)
	case v.Status == NotChecked:
		return fmt.Sprintf("perf budget not checked: %s: %s %s (%s: a budget set under one definition is not checked under another; budget %s)",
			v.Step, v.Metric, metrics.FormatValue(*v.Value, v.Unit), v.Reason, v.Limit)
	}
	op := ">"
	if v.Limit.Min {
		op = "<"
	}
	why := v.Definition
	if ev := v.Evidence; len(ev) > 0 {
		if len(ev) > 10 {
			ev = append(ev[:10:10], "…")
		}
		prefix := "frames at "
		if v.Metric.Def().Family != metrics.FamilyFrames {
			prefix = ""
		}
		why += "; " + prefix + strings.Join(ev, " ")
	}
	if v.Cause != "" {
		why += "; " + v.Cause
	}
	return fmt.Sprintf("perf budget exceeded: %s: %s %s %s %s (%s)", v.Step, v.Metric,
		metrics.FormatValue(*v.Value, v.Unit), op, metrics.FormatValue(v.Limit.Value, v.Unit), why)
}

// Check judges limits against every step of s they apply to, in the order
// of the steps and then of the limits. A step the run lacks gets one
// verdict, however many limits it had. A run with no steps at all gets one
// failing verdict: nothing was measured, so nothing was kept. from names
// where the limits came from (Verdict.From).
func Check(s Subject, from string, limits ...Limit) []Verdict {
	ms := s.Measurements()
	if len(ms) == 0 {
		return []Verdict{{Kind: KindBudget, Status: NotChecked, From: from, Reason: "the run has no steps",
			Line: "perf budget exceeded: nothing measured (the run has no steps)"}}
	}
	var out []Verdict
	for _, m := range ms {
		if m.Missing {
			var l Limit
			if len(limits) > 0 {
				l = limits[0]
			}
			out = append(out, Judge(m, l, from))
			continue
		}
		for _, l := range limits {
			if l.AppliesTo(m.Step) {
				out = append(out, Judge(m, l, from))
			}
		}
	}
	return out
}

// Record stores vs with s when s keeps verdicts (a Recorder), and returns
// them.
func Record(s Subject, vs []Verdict) []Verdict {
	if rec, ok := s.(Recorder); ok && len(vs) > 0 {
		rec.RecordVerdicts(vs...)
	}
	return vs
}
