package assert

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/metrics"
)

// Limit is one budget: a ceiling (Max) or a floor (Min) on a metric of the
// catalogue (metrics.Catalogue), for every step or for one step and its
// iterations. It is metrics.Limit, which metrics.Judge checks.
type Limit = metrics.Limit

// Check checks limits against every step of s they apply to and reports one
// line per broken limit. Each named check (MaxJank, MinFPS, …) is Check with
// one Limit.
func Check(t TestingT, s Subject, limits ...Limit) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	ms := s.Measurements()
	if len(ms) == 0 {
		t.Errorf("perf budget exceeded: nothing measured (the run has no steps)")
		return false
	}
	ok := true
	for _, m := range ms {
		if m.Missing {
			// One line for the step, however many limits it had.
			t.Errorf("%s", metrics.Judge(m, Limit{}).Line())
			ok = false
			continue
		}
		for _, l := range limits {
			if !l.AppliesTo(m.Step) {
				continue
			}
			if v := metrics.Judge(m, l); !v.Pass {
				t.Errorf("%s", v.Line())
				ok = false
			}
		}
	}
	return ok
}

// Verdicts judges every limit against every step of s it applies to
// (metrics.Judge), in the order of the steps and then of the limits: what a
// report shows beside each metric, passed or not.
func Verdicts(s Subject, limits ...Limit) []metrics.Verdict {
	var out []metrics.Verdict
	for _, m := range s.Measurements() {
		for _, l := range limits {
			if l.AppliesTo(m.Step) {
				out = append(out, metrics.Judge(m, l))
			}
		}
	}
	return out
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
		return l, fmt.Errorf("perf budget %s: unknown metric %s (known: %s)", excerpt.Quote(s), excerpt.Quote(lhs), metrics.Names())
	}
	l.Metric = metrics.Name(lhs)
	v, err := strconv.ParseFloat(strings.TrimSpace(rhs), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return l, fmt.Errorf("perf budget %s: limit %s is not a number", excerpt.Quote(s), excerpt.Quote(strings.TrimSpace(rhs)))
	}
	l.Value = v
	return l, nil
}

// MaxJank checks the default jank count (deadline missed where frames have
// durations, PerfDog Jank where only present times exist; DESIGN.md
// "Pauses are not janks") of every step of s.
func MaxJank(t TestingT, s Subject, max int) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.Jank, Value: float64(max)})
}

// MinFPS checks FPS = (n − 1) / (t[n−1] − t[0]).
func MinFPS(t TestingT, s Subject, min float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.FPS, Value: min, Min: true})
}

// MaxFrameTimeP95 checks the nearest-rank 95th percentile of frame time
// (frame duration on gfxinfo, present-to-present on SurfaceFlinger).
func MaxFrameTimeP95(t TestingT, s Subject, max time.Duration) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.FrameTimeP95, Value: ms(max)})
}

// MaxBigJank checks the PerfDog BigJank count.
func MaxBigJank(t TestingT, s Subject, max int) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.BigJankPerfDog, Value: float64(max)})
}

// MaxStutter checks PerfDog stutter, the share of time spent in janks, in
// percent.
func MaxStutter(t TestingT, s Subject, maxPct float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.StutterPerfDog, Value: maxPct})
}

// MaxCPU checks the app's mean CPU over each step, as a share of the whole
// device in percent (DESIGN.md "CPU").
func MaxCPU(t TestingT, s Subject, maxPct float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.CPU, Value: maxPct})
}

// MaxCPUP90 checks the nearest-rank 90th percentile of the app's CPU over
// the step's ticks, as a share of the whole device in percent.
func MaxCPUP90(t TestingT, s Subject, maxPct float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.CPUP90, Value: maxPct})
}

// MaxPSS checks the highest TOTAL PSS of `dumpsys meminfo`, in KiB.
func MaxPSS(t TestingT, s Subject, maxKiB int64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.PSSMax, Value: float64(maxKiB)})
}

// MaxMemoryGrowth checks the least-squares slope of PSS, in KiB per
// minute.
func MaxMemoryGrowth(t TestingT, s Subject, kibPerMin float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.PSSGrowth, Value: kibPerMin})
}

// MaxTraffic checks the bytes received and sent (per UID where the device
// allows it; see the step's traffic scope).
func MaxTraffic(t TestingT, s Subject, rxBytes, txBytes uint64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.Rx, Value: float64(rxBytes)}, Limit{Metric: metrics.Tx, Value: float64(txBytes)})
}

// MaxStartup checks the time to initial display of the launches in each
// step (`am start -W` TotalTime, median over iterations), as Macrobenchmark
// reports it.
func MaxStartup(t TestingT, s Subject, max time.Duration) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.StartupInitial, Value: ms(max)})
}

// MaxFullDisplay checks the time to full display (logcat "Fully drawn",
// when the app calls reportFullyDrawn).
func MaxFullDisplay(t TestingT, s Subject, max time.Duration) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.StartupFull, Value: ms(max)})
}

// NoCrash checks that the app's process neither died nor was replaced.
func NoCrash(t TestingT, s Subject) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.Crashes, Value: 0})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// MaxBlock checks the longest message the app's main thread ran in the
// step, as Looper's slow-message log tells (max_block; needs Android 9 and
// an app started after the session set the log's property).
func MaxBlock(t TestingT, s Subject, max time.Duration) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.MaxBlock, Value: ms(max)})
}

// NoANR checks that the app did not stop responding in the step (anrs:
// logcat "ActivityManager: ANR in …").
func NoANR(t TestingT, s Subject) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, Limit{Metric: metrics.ANRs, Value: 0})
}
