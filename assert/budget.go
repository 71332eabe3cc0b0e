package assert

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Limit is one budget: a ceiling (Max) or a floor (Min) on a metric.
type Limit struct {
	// Metric is a metric name, e.g. "jank", "fps", "frame_time_p95" (see
	// (*perftest.Step).Metrics for the catalogue and units).
	Metric string
	Value  float64
	// Min makes Value a floor; otherwise it is a ceiling.
	Min bool
}

func (l Limit) String() string {
	op := "≤"
	if l.Min {
		op = "≥"
	}
	return fmt.Sprintf("%s %s %s", l.Metric, op, formatValue(l.Value, known[l.Metric].unit))
}

// Check checks limits against every step of s and reports one line per
// broken limit. Each named check (MaxJank, MinFPS, …) is Check with one
// Limit.
func Check(t TestingT, s Subject, limits ...Limit) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	ok := true
	for _, line := range violations(s.Measurements(), limits) {
		t.Errorf("%s", line)
		ok = false
	}
	return ok
}

// violations returns the failure line of every broken limit.
func violations(ms []Measurement, limits []Limit) []string {
	var out []string
	if len(ms) == 0 {
		return []string{"perf budget exceeded: nothing measured (the run has no steps)"}
	}
	for _, m := range ms {
		if m.Missing {
			out = append(out, fmt.Sprintf("perf budget exceeded: %s: step not measured (the run has no step %q)", m.Step, m.Step))
			continue
		}
		for _, l := range limits {
			if line, broken := violation(m, l); broken {
				out = append(out, line)
			}
		}
	}
	return out
}

// violation checks one limit against one step.
func violation(m Measurement, l Limit) (string, bool) {
	v, ok := m.Metric(l.Metric)
	if !ok {
		return NotCheckedLine(m.Step, l.Metric, m.NotMeasured[l.Metric], l.String()), true
	}
	if l.Min && v.Value >= l.Value || !l.Min && v.Value <= l.Value {
		return "", false
	}
	op := ">"
	if l.Min {
		op = "<"
	}
	why := v.Definition
	if ev := m.Evidence[l.Metric]; len(ev) > 0 {
		if len(ev) > 10 {
			ev = append(ev[:10:10], "…")
		}
		why += "; " + evidencePrefix(l.Metric) + strings.Join(ev, " ")
	}
	return fmt.Sprintf("perf budget exceeded: %s: %s %s %s %s (%s)", m.Step, l.Metric,
		formatValue(v.Value, v.Unit), op, formatValue(l.Value, v.Unit), why), true
}

// NotCheckedLine is the failure line of a budget on a metric the step has
// no value for: "perf budget not checked: scroll: rx not measured
// (traffic: …; budget rx ≤ 100B)". Unmeasured is never zero, and a budget
// nobody could check is not met; why is the step's reason, when known.
func NotCheckedLine(step, metric, why, budget string) string {
	if why == "" {
		return fmt.Sprintf("perf budget not checked: %s: %s not measured (budget %s)", step, metric, budget)
	}
	return fmt.Sprintf("perf budget not checked: %s: %s not measured (%s; budget %s)", step, metric, why, budget)
}

func evidencePrefix(metric string) string {
	if metric == "crashes" {
		return ""
	}
	return "frames at "
}

// formatValue writes v the way failure lines do: at most two decimals,
// the unit glued on for times, sizes and percentages ("18.2ms", "35%") and
// left off for counts and rates ("5", "48.2").
func formatValue(v float64, unit string) string {
	s := strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	switch unit {
	case "ms", "%", "KiB", "B", "KiB/min", "°C":
		return s + unit
	}
	return s
}

// MaxJank checks the default jank count (deadline missed where frames have
// durations, PerfDog Jank where only present times exist; DESIGN.md
// "Pauses are not janks") of every step of s.
func MaxJank(t TestingT, s Subject, max int) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "jank", Value: float64(max)})
}

// MinFPS checks FPS = (n − 1) / (t[n−1] − t[0]).
func MinFPS(t TestingT, s Subject, min float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "fps", Value: min, Min: true})
}

// MaxFrameTimeP95 checks the nearest-rank 95th percentile of frame time
// (frame duration on gfxinfo, present-to-present on SurfaceFlinger).
func MaxFrameTimeP95(t TestingT, s Subject, max time.Duration) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "frame_time_p95", Value: ms(max)})
}

// MaxBigJank checks the PerfDog BigJank count.
func MaxBigJank(t TestingT, s Subject, max int) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "big_jank_perfdog", Value: float64(max)})
}

// MaxStutter checks PerfDog stutter, the share of time spent in janks, in
// percent.
func MaxStutter(t TestingT, s Subject, maxPct float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "stutter_perfdog", Value: maxPct})
}

// MaxCPU checks the app's mean CPU over each step, as a share of the whole
// device in percent (DESIGN.md "CPU").
func MaxCPU(t TestingT, s Subject, maxPct float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "cpu", Value: maxPct})
}

// MaxCPUP90 checks the nearest-rank 90th percentile of the app's CPU over
// the step's ticks, as a share of the whole device in percent.
func MaxCPUP90(t TestingT, s Subject, maxPct float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "cpu_p90", Value: maxPct})
}

// MaxPSS checks the highest TOTAL PSS of `dumpsys meminfo`, in KiB.
func MaxPSS(t TestingT, s Subject, maxKiB int64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "pss_max", Value: float64(maxKiB)})
}

// MaxMemoryGrowth checks the least-squares slope of PSS, in KiB per
// minute.
func MaxMemoryGrowth(t TestingT, s Subject, kibPerMin float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "pss_growth", Value: kibPerMin})
}

// MaxTraffic checks the bytes received and sent (per UID where the device
// allows it; see the step's traffic scope).
func MaxTraffic(t TestingT, s Subject, rxBytes, txBytes uint64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "rx", Value: float64(rxBytes)}, Limit{Metric: "tx", Value: float64(txBytes)})
}

// MaxStartup checks the time to initial display of the launches in each
// step (`am start -W` TotalTime, median over iterations), as Macrobenchmark
// reports it.
func MaxStartup(t TestingT, s Subject, max time.Duration) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "startup_initial", Value: ms(max)})
}

// MaxFullDisplay checks the time to full display (logcat "Fully drawn",
// when the app calls reportFullyDrawn).
func MaxFullDisplay(t TestingT, s Subject, max time.Duration) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "startup_full", Value: ms(max)})
}

// NoCrash checks that the app's process neither died nor was replaced.
func NoCrash(t TestingT, s Subject) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: "crashes", Value: 0})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
