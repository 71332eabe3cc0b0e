package result

import (
	"cmp"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
)

// FrameTiming is androidx Macrobenchmark's FrameTimingMetric over a step's
// frames, from the session's Perfetto trace (package trace/frametiming):
// the percentiles of each frame's overrun (FrameTimeline actual end −
// expected end; negative when done early) and CPU duration (DrawFrame end
// − Choreographer#doFrame start), interpolated between ranks, in ms.
type FrameTiming struct {
	// Frames counts the frames the figures are taken over.
	Frames    int                 `json:"frames"`
	OverrunMs *frames.Percentiles `json:"overrun_ms,omitempty"`
	CPUMs     *frames.Percentiles `json:"cpu_ms,omitempty"`
	// OverrunDefinition and CPUDefinition are the rules the figures
	// followed: Macrobenchmark's, or for the overrun on a trace without
	// the slices it matches, FrameTimeline's frames alone.
	OverrunDefinition string `json:"overrun_definition,omitempty"`
	CPUDefinition     string `json:"cpu_definition,omitempty"`
	// NotMeasured says why "overrun" or "cpu" has no figures.
	NotMeasured map[string]string `json:"not_measured,omitempty"`
}

// frameTiming adds the catalogue's frame_overrun_* and frame_cpu_*; why
// is the reason the step has no trace figures at all ("" when it has).
func (st *Step) frameTiming(add func(n metrics.Name, why string, v float64, def string), why string) {
	var ft FrameTiming
	if why == "" && st.Trace.FrameTiming == nil {
		why = "trace: the step's frame timing was not computed"
	}
	if why == "" {
		ft = *st.Trace.FrameTiming
	}
	for _, fig := range []struct {
		key  string
		p    *frames.Percentiles
		def  string
		name [4]metrics.Name
	}{
		{"overrun", ft.OverrunMs, ft.OverrunDefinition, [4]metrics.Name{metrics.FrameOverrunP50, metrics.FrameOverrunP90, metrics.FrameOverrunP95, metrics.FrameOverrunP99}},
		{"cpu", ft.CPUMs, ft.CPUDefinition, [4]metrics.Name{metrics.FrameCPUP50, metrics.FrameCPUP90, metrics.FrameCPUP95, metrics.FrameCPUP99}},
	} {
		var p frames.Percentiles
		w := why
		if w == "" && fig.p == nil {
			w = "trace: " + cmp.Or(ft.NotMeasured[fig.key], "no frame timing figures")
		}
		if fig.p != nil {
			p = *fig.p
		}
		for k, v := range []float64{p.P50, p.P90, p.P95, p.P99} {
			add(fig.name[k], w, v, fig.def)
		}
	}
}
