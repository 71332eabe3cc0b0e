package result

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/trace"
)

// StartupPhase is one phase of a launch on the app's main thread, read
// from the session's trace: the process start (PostFork to
// bindApplication), bindApplication, activityStart, activityResume, the
// first Choreographer#doFrame, the first frame presented (from the end
// of that doFrame to the end of the app's first FrameTimeline frame) and
// reportFullyDrawn (from then to the app's call). A warm start has them
// from activityStart on, a hot start from activityResume on.
type StartupPhase struct {
	Name string `json:"name"`
	// DeviceStartNs and DeviceEndNs are the phase on the steps' device
	// clock (Result.Clock); DurMs its length.
	DeviceStartNs int64   `json:"device_start_ns"`
	DeviceEndNs   int64   `json:"device_end_ns"`
	DurMs         float64 `json:"dur_ms"`
	// MainThread is the main thread's time per state over the phase; nil
	// when the trace has no scheduler events.
	MainThread *trace.States `json:"main_thread,omitempty"`
	// Slices are the longest slices within the phase, longest first, the
	// slice that names the phase left out.
	Slices []PhaseSlice `json:"slices,omitempty"`
}

// PhaseSlice is a slice of the main thread within a startup phase.
type PhaseSlice struct {
	Name  string  `json:"name"`
	DurMs float64 `json:"dur_ms"`
}

// Line is the phase in a few words: "bindApplication 620 ms, of which
// 410 ms in com.example.App.onCreate".
func (p StartupPhase) Line() string {
	s := fmt.Sprintf("%s %.0f ms", p.Name, p.DurMs)
	if len(p.Slices) > 0 {
		s += fmt.Sprintf(", of which %.0f ms in %s", p.Slices[0].DurMs, p.Slices[0].Name)
	}
	return s
}

// Longest is the launch's longest phase up to initial display (full
// includes reportFullyDrawn); false when it has none.
func (it StartupSample) Longest(full bool) (StartupPhase, bool) {
	var best StartupPhase
	ok := false
	for _, p := range it.Phases {
		if (full || p.Name != "reportFullyDrawn") && (!ok || p.DurMs > best.DurMs) {
			best, ok = p, true
		}
	}
	return best, ok
}

// median is the launch whose figure is the step's (the nearest-rank
// median's), for the metric's value v.
func (st *StartupStats) median(v float64, full bool) (StartupSample, bool) {
	for _, it := range st.Iterations {
		x := float64(it.TotalTimeMs)
		if full {
			x = float64(it.FullyDrawnMs)
		}
		if math.Abs(x-v) < 0.5 {
			return it, true
		}
	}
	return StartupSample{}, false
}

// causes says, for the startup metrics, where the launch that is the
// step's figure spent its time: its longest phase and the longest slice in
// it. A budget keeps no phases of earlier runs, so the phase named is the
// longest, not the one that grew most.
func (st *StartupStats) causes(m *budget.Measurement) {
	if st == nil {
		return
	}
	for _, c := range []struct {
		name metrics.Name
		v    float64
		full bool
	}{{metrics.StartupInitial, st.InitialDisplayMs, false}, {metrics.StartupFull, st.FullDisplayMs, true}} {
		it, ok := st.median(c.v, c.full)
		if !ok {
			continue
		}
		if p, ok := it.Longest(c.full); ok {
			if m.Causes == nil {
				m.Causes = map[metrics.Name]string{}
			}
			m.Causes[c.name] = p.Line()
		}
	}
}
