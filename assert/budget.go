package assert

import (
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
)

// Check checks limits against every step of s they apply to and reports
// one line per broken limit (budget.Check); every verdict, passed or not,
// is kept with s when s keeps verdicts (a perftest Result or one of its
// steps). Each named check (MaxJank, MinFPS, …) is Check with one Limit.
func Check(t TestingT, s budget.Subject, limits ...budget.Limit) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return report(t, s, budget.Check(s, callSite(), limits...))
}

// MaxJank checks the default jank count (deadline missed where frames have
// durations, PerfDog Jank where only present times exist; DESIGN.md
// "Pauses are not janks") of every step of s.
func MaxJank(t TestingT, s budget.Subject, max int) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.Jank, Value: float64(max)})
}

// MinFPS checks FPS = (n − 1) / (t[n−1] − t[0]).
func MinFPS(t TestingT, s budget.Subject, min float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.FPS, Value: min, Min: true})
}

// MaxFrameTimeP95 checks the nearest-rank 95th percentile of frame time
// (frame duration on gfxinfo, present-to-present on SurfaceFlinger).
func MaxFrameTimeP95(t TestingT, s budget.Subject, max time.Duration) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.FrameTimeP95, Value: ms(max)})
}

// MaxBigJank checks the PerfDog BigJank count.
func MaxBigJank(t TestingT, s budget.Subject, max int) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.BigJankPerfDog, Value: float64(max)})
}

// MaxStutter checks PerfDog stutter, the share of time spent in janks, in
// percent.
func MaxStutter(t TestingT, s budget.Subject, maxPct float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.StutterPerfDog, Value: maxPct})
}

// MaxCPU checks the app's mean CPU over each step, as a share of the whole
// device in percent (DESIGN.md "CPU").
func MaxCPU(t TestingT, s budget.Subject, maxPct float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.CPU, Value: maxPct})
}

// MaxCPUP90 checks the nearest-rank 90th percentile of the app's CPU over
// the step's ticks, as a share of the whole device in percent.
func MaxCPUP90(t TestingT, s budget.Subject, maxPct float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.CPUP90, Value: maxPct})
}

// MaxPSS checks the highest TOTAL PSS of `dumpsys meminfo`, in KiB.
func MaxPSS(t TestingT, s budget.Subject, maxKiB int64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.PSSMax, Value: float64(maxKiB)})
}

// MaxMemoryGrowth checks the least-squares slope of PSS, in KiB per
// minute.
func MaxMemoryGrowth(t TestingT, s budget.Subject, kibPerMin float64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.PSSGrowth, Value: kibPerMin})
}

// MaxTraffic checks the bytes received and sent (per UID where the device
// allows it; see the step's traffic scope).
func MaxTraffic(t TestingT, s budget.Subject, rxBytes, txBytes uint64) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.Rx, Value: float64(rxBytes)}, budget.Limit{Metric: metrics.Tx, Value: float64(txBytes)})
}

// MaxStartup checks the time to initial display of the launches in each
// step (`am start -W` TotalTime, median over iterations), as Macrobenchmark
// reports it.
func MaxStartup(t TestingT, s budget.Subject, max time.Duration) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.StartupInitial, Value: ms(max)})
}

// MaxFullDisplay checks the time to full display (logcat "Fully drawn",
// when the app calls reportFullyDrawn).
func MaxFullDisplay(t TestingT, s budget.Subject, max time.Duration) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.StartupFull, Value: ms(max)})
}

// NoCrash checks that the app's process neither died nor was replaced.
func NoCrash(t TestingT, s budget.Subject) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.Crashes, Value: 0})
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// MaxBlock checks the longest message the app's main thread ran in the
// step, as Looper's slow-message log tells (max_block; needs Android 9 and
// an app started after the session set the log's property).
func MaxBlock(t TestingT, s budget.Subject, max time.Duration) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.MaxBlock, Value: ms(max)})
}

// NoANR checks that the app did not stop responding in the step (anrs:
// logcat "ActivityManager: ANR in …").
func NoANR(t TestingT, s budget.Subject) bool {
	if h, ok := t.(helperT); ok {
		h.Helper()
	}
	return Check(t, s, budget.Limit{Metric: metrics.ANRs, Value: 0})
}
