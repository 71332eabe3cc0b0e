package budget

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/metrics"
)

// Limit is one budget: a ceiling on a metric of the catalogue
// (metrics.Catalogue), or a floor with Min, for every step or for one step
// and its iterations.
type Limit struct {
	// Step names the step the limit applies to, and so to its iterations
	// ("scroll" covers "scroll#2"); empty applies it to every step.
	Step   string       `json:"step,omitempty"`
	Metric metrics.Name `json:"metric"`
	// Value is in the metric's unit (metrics.Def.Unit).
	Value float64 `json:"value"`
	// Min makes Value a floor (fps must stay at or above it); otherwise it
	// is a ceiling.
	Min bool `json:"min,omitempty"`
	// Definition, when set, is the definition the limit was recorded
	// under (a budget file's "definition"). A metric whose definition
	// follows the frame source (jank: deadline missed or PerfDog Jank;
	// frame_time_pNN: durations or present intervals) is not checked
	// against a limit of another definition: a budget recorded under one
	// definition is never silently compared under another.
	Definition string `json:"definition,omitempty"`
}

// definitional reports whether n's definition depends on the frame
// source, so a limit holds only for the definition it was set under.
func definitional(n metrics.Name) bool {
	switch n {
	case metrics.Jank, metrics.FrameTimeP50, metrics.FrameTimeP90, metrics.FrameTimeP95, metrics.FrameTimeP99:
		return true
	}
	return false
}

// String is the limit as failure lines and reports show it: "jank ≤ 3",
// "frame_time_p95 ≤ 20.5ms", "fps ≥ 50".
func (l Limit) String() string {
	return fmt.Sprintf("%s %s", l.Metric, l.Bound())
}

// Bound is the limit without its metric's name, for a table cell beside
// the metric: "≤ 3", "≥ 50", "≤ 20.5ms".
func (l Limit) Bound() string {
	op := "≤"
	if l.Min {
		op = "≥"
	}
	return op + " " + metrics.FormatValue(l.Value, l.Metric.Def().Unit)
}

// AppliesTo reports whether the limit covers the named step.
func (l Limit) AppliesTo(step string) bool {
	return l.Step == "" || l.Step == step || l.Step == metrics.BaseStep(step)
}

// ParseLimit reads a limit written the way a command line gives it:
// "[step:]metric<=limit" or "[step:]metric>=limit", e.g. "jank<=3",
// "scroll:fps>=55". "<" and ">" mean the same as "<=" and ">=": a value on
// the limit meets it. The metric must be one of the catalogue's. Errors
// quote at most a bounded excerpt of s.
func ParseLimit(s string) (Limit, error) {
	var l Limit
	spec := strings.TrimSpace(s)
	i := strings.IndexAny(spec, "<>")
	if i < 0 {
		return l, fmt.Errorf("perf budget %s: want [step:]metric<=limit or [step:]metric>=limit", excerpt.Quote(s))
	}
	lhs, op, rhs := strings.TrimSpace(spec[:i]), spec[i:i+1], spec[i+1:]
	l.Min = op == ">"
	rhs = strings.TrimPrefix(rhs, "=")
	if j := strings.LastIndexByte(lhs, ':'); j >= 0 {
		l.Step, lhs = strings.TrimSpace(lhs[:j]), strings.TrimSpace(lhs[j+1:])
		if l.Step == "" {
			return l, fmt.Errorf("perf budget %s: empty step name before ':'", excerpt.Quote(s))
		}
	}
	if !metrics.Name(lhs).Known() {
		err := fmt.Errorf("perf budget %s: unknown metric %s (known: %s)", excerpt.Quote(s), excerpt.Quote(lhs), metrics.Names())
		if len(err.Error()) > excerpt.MaxMessage { // two long quotes and the whole catalogue
			err = fmt.Errorf("perf budget %s: unknown metric %s (the catalogue: README \"Metric definitions\")", excerpt.Quote(s), excerpt.Quote(lhs))
		}
		return l, err
	}
	l.Metric = metrics.Name(lhs)
	v, err := strconv.ParseFloat(strings.TrimSpace(rhs), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return l, fmt.Errorf("perf budget %s: limit %s is not a number", excerpt.Quote(s), excerpt.Quote(strings.TrimSpace(rhs)))
	}
	l.Value = v
	return l, nil
}
