package tracing

import (
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace/frametiming"
)

// frameTiming is Macrobenchmark's FrameTimingMetric over the frames due in
// [start, end) on the trace clock; nil without the trace's frame timing.
func frameTiming(t *frametiming.Timing, start, end int64) *result.FrameTiming {
	if t == nil {
		return nil
	}
	w := t.Window(start, end)
	ft := &result.FrameTiming{Frames: w.Frames, NotMeasured: w.NotMeasured,
		OverrunDefinition: w.OverrunDefinition, CPUDefinition: frametiming.CPUDefinition}
	conv := func(p *frametiming.Percentiles) *frames.Percentiles {
		if p == nil {
			return nil
		}
		return &frames.Percentiles{P50: p.P50, P90: p.P90, P95: p.P95, P99: p.P99}
	}
	ft.OverrunMs, ft.CPUMs = conv(w.Overrun), conv(w.CPU)
	return ft
}
