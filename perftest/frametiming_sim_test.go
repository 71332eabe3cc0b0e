package perftest_test

import (
	"bytes"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

var (
	overrunNames  = []metrics.Name{metrics.FrameOverrunP50, metrics.FrameOverrunP90, metrics.FrameOverrunP95, metrics.FrameOverrunP99}
	frameCPUNames = []metrics.Name{metrics.FrameCPUP50, metrics.FrameCPUP90, metrics.FrameCPUP95, metrics.FrameCPUP99}
)

// lerpPercentiles is p50, p90, p95, p99 of vs as androidx MetricResult
// takes them: the value at rank p/100·(m−1), linear between the ranks
// around it.
func lerpPercentiles(vs []float64) []float64 {
	slices.Sort(vs)
	var out []float64
	for _, p := range []float64{50, 90, 95, 99} {
		r := p / 100 * float64(len(vs)-1)
		lo := math.Floor(r)
		hi := math.Min(lo+1, float64(len(vs)-1))
		out = append(out, vs[int(lo)]+(vs[int(hi)]-vs[int(lo)])*(r-lo))
	}
	return out
}

// frameTimingTruth is the truth's overruns and CPU durations, in ms, of
// the frames due in the step (by their vsync, or without FrameTimeline by
// their doFrame's start).
func frameTimingTruth(dev *simdevice.Device, st *result.Step, timeline bool) (over, cpu []float64) {
	for _, f := range traceTruth(dev) {
		tr := f.Trace()
		at := f.IntendedVsync
		if !timeline {
			at = tr.DoFrameNs
		}
		if at < st.DeviceStartNs || at >= st.DeviceEndNs {
			continue
		}
		over = append(over, float64(tr.OverrunNs)/1e6)
		cpu = append(cpu, float64(tr.DrawEndNs-tr.DoFrameNs)/1e6)
	}
	return over, cpu
}

func checkFigures(t *testing.T, st *result.Step, names []metrics.Name, truth []float64) {
	t.Helper()
	want := lerpPercentiles(truth)
	for k, n := range names {
		if got := metric(t, st, n); math.Abs(got-want[k]) > 1e-9 {
			t.Errorf("%s = %v, truth %v (over %d frames)", n, got, want[k], len(truth))
		}
	}
}

// The done-when test of Macrobenchmark's frame timing: on the simulated
// phone every frame_overrun_pXX and frame_cpu_pXX of a step equals the
// percentile of the phone's truth over the frames due in it; the overruns
// include frames done early (below zero) and late ones.
func TestFrameTimingMatchesTruth(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, _, st := traceSession(t, 33, simdevice.Quirks{}, 40, perftest.TraceConfig{})
		over, cpu := frameTimingTruth(dev, st, true)
		if len(over) < 100 || slices.Min(over) >= 0 || slices.Max(over) <= 0 {
			t.Fatalf("the step has %d frames, overruns %v … %v: the test wants frames early and late", len(over), slices.Min(over), slices.Max(over))
		}
		checkFigures(t, st, overrunNames, over)
		checkFigures(t, st, frameCPUNames, cpu)
		ft := st.Trace.FrameTiming
		if ft.Frames != len(over) || ft.OverrunDefinition == "" || ft.CPUDefinition == "" {
			t.Errorf("frame timing %+v, truth %d frames", ft, len(over))
		}
		t.Logf("%d frames: overrun %+v ms, cpu %+v ms", ft.Frames, *ft.OverrunMs, *ft.CPUMs)
	})
}

// An Android 11 phone has no FrameTimeline: no overrun, saying why, and
// the CPU durations still equal the truth. A trace without the gfx
// category has no DrawFrame slice: no CPU duration, saying why, and the
// overrun taken over FrameTimeline's frames, its definition saying so.
func TestFrameTimingWithoutTimelineOrSlices(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, r, st := traceSession(t, 30, simdevice.Quirks{}, 30, perftest.TraceConfig{})
		// Before Android 12 the slices name no frame: a DrawFrame goes
		// with the doFrame that holds its start.
		if b, err := os.ReadFile(r.Trace.File); err != nil || bytes.Contains(b, []byte("DrawFrames ")) || !bytes.Contains(b, []byte("|DrawFrame")) {
			t.Fatalf("trace %s (%v): want DrawFrame slices without a vsync id", r.Trace.File, err)
		}
		_, cpu := frameTimingTruth(dev, st, false)
		checkFigures(t, st, frameCPUNames, cpu)
		absent(t, st, overrunNames, "FrameTimeline")
	})
	simtest.Bubble(t, func(t *testing.T) {
		cats := slices.DeleteFunc(slices.Clone(perftest.DefaultTraceCategories), func(c string) bool { return c == "gfx" })
		dev, _, st := traceSession(t, 33, simdevice.Quirks{}, 30, perftest.TraceConfig{Categories: cats})
		over, _ := frameTimingTruth(dev, st, true)
		checkFigures(t, st, overrunNames, over)
		absent(t, st, frameCPUNames, "DrawFrame slices", "atrace category gfx")
		if def := st.Trace.FrameTiming.OverrunDefinition; def == "" || !slices.ContainsFunc(st.Metrics(), func(m metrics.Metric) bool {
			return m.Name == metrics.FrameOverrunP50 && m.Definition == def
		}) {
			t.Errorf("overrun definition %q not the metric's", def)
		}
	})
}
