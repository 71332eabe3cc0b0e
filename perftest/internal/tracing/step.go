package tracing

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/perftest/internal/startupphase"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
)

// StepInput is what placing a step in the trace takes from the session.
type StepInput struct {
	// ClockSource is the source of the steps' device times
	// (Result.Clock.Source).
	ClockSource string
	// ClockUncertaintyMs is how far a device time mapped from the host
	// clock may be off (Result.Clock.UncertaintyMs).
	ClockUncertaintyMs float64
	// RefreshHz is the display's refresh rate.
	RefreshHz float64
	// Frames are the frames the session polled (Result.Frames).
	Frames []frames.Frame
	// Whole says the step is the session as a whole (Result.Whole).
	Whole bool
}

// stepClock is the trace's name for the clock of the steps' device times.
func stepClock(source string) (trace.Clock, bool) {
	switch source {
	case "gfxinfo Uptime":
		return trace.Monotonic, true
	case "/proc/uptime":
		return trace.Boottime, true
	}
	return 0, false
}

// Span puts the trace's span on the steps' device clock, through
// toDevice, which maps host ns since the session started to it.
func (r *Recorder) Span(toDevice func(hostNs int64) int64) {
	if r.a == nil {
		return
	}
	r.info.StartNs = toDevice(r.startNs)
	r.info.EndNs = toDevice(min(r.stopNs, r.maxEndNs))
}

// Step is the step's part of the trace; nil without one, and then why,
// for the step's catalogue ("" when the session has no trace to read,
// which Why says).
func (r *Recorder) Step(st *result.Step, in StepInput) (*result.TraceStep, string) {
	if r.a == nil {
		return nil, ""
	}
	clock, ok := stepClock(in.ClockSource)
	if !ok {
		return nil, "trace: the steps' device times have no clock the trace knows (clock source " + in.ClockSource + ")"
	}
	a := r.a
	w, err := a.Window(trace.Window{Name: st.Name, Start: st.DeviceStartNs, End: st.DeviceEndNs, Clock: clock})
	if err != nil {
		return nil, "trace: " + err.Error()
	}
	ts := &result.TraceStep{Frames: w.Frames, Janky: w.Janky, AppJank: w.AppJank, ByType: w.ByType, NotMeasured: w.NotMeasured,
		FrameTiming: frameTiming(r.timing, w.Start, w.End)}
	// The session as a whole counts frames from the probe on, after the
	// trace began: it is not partial for starting before the trace.
	switch {
	case st.HostStartNs < r.startNs && !in.Whole:
		ts.Partial = fmt.Sprintf("the trace began %v after the step", time.Duration(r.startNs-st.HostStartNs).Round(time.Millisecond))
	case st.HostEndNs > r.maxEndNs:
		ts.Partial = fmt.Sprintf("the trace ended %v before the step (TraceConfig.MaxDuration %v)", time.Duration(st.HostEndNs-r.maxEndNs).Round(time.Millisecond), r.cfg.MaxDuration)
	}
	toDev := func(ns int64) int64 {
		v, err := a.ConvertTo(ns, clock)
		if err != nil {
			return 0
		}
		return v
	}
	period := int64(time.Second) / int64(max(1, in.RefreshHz))
	polled := gfxFrames(in.Frames)
	for _, f := range a.Frames {
		if t := f.Time(); t >= w.Start && t < w.End && joinPolled(polled, toDev(t), period) != nil {
			ts.Joined++
		}
	}
	for _, jf := range w.JankyFrames {
		tf := result.TraceFrame{JankyFrame: jf, DeviceStartNs: toDev(jf.Start), DeviceEndNs: toDev(jf.End)}
		due := toDev(jf.Time())
		tf.AtS = float64(due-st.DeviceStartNs) / 1e9
		tf.Polled = joinPolled(polled, due, period)
		ts.JankyFrames = append(ts.JankyFrames, tf)
	}
	if st.Startup != nil {
		fromDev := func(ns int64) (int64, error) { return a.Convert(ns, clock) }
		startupphase.Attach(a, w.Start, w.End, st.Startup, startupphase.Clock{ToDevice: toDev, FromDevice: fromDev, UncertaintyNs: int64(min(in.ClockUncertaintyMs, 1e6) * 1e6)})
	}
	return ts, ""
}

// gfxFrames are the gfxinfo frames of fs, by IntendedVsync.
func gfxFrames(fs []frames.Frame) []frames.Frame {
	var out []frames.Frame
	for _, f := range fs {
		if f.Source == frames.SourceGfxInfo {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(x, y frames.Frame) int { return cmp.Compare(x.IntendedVsync, y.IntendedVsync) })
	return out
}

// joinPolled is the polled frame whose IntendedVsync is nearest to due,
// within half a period; nil when none is.
func joinPolled(fs []frames.Frame, due, period int64) *frames.Frame {
	i := sort.Search(len(fs), func(k int) bool { return fs[k].IntendedVsync >= due })
	var best *frames.Frame
	bestD := period/2 + 1
	for _, k := range []int{i - 1, i} {
		if k < 0 || k >= len(fs) {
			continue
		}
		d := fs[k].IntendedVsync - due
		if d < 0 {
			d = -d
		}
		if d < bestD {
			best, bestD = &fs[k], d
		}
	}
	if best == nil {
		return nil
	}
	f := *best
	return &f
}

// Why says why a step has no trace figures at all; "" when it has them
// (the catalogue says why it lacks one of them: a trace without
// FrameTimeline has no jank_frametimeline, one without slices no
// frame_cpu_pXX).
func (r *Recorder) Why(st *result.Step) string {
	switch {
	case r.why != "":
		return "trace: " + r.why
	case r.a == nil:
		return "trace: not read"
	case st.Trace == nil:
		return ""
	case st.Trace.Partial != "":
		return "trace: covers only part of the step: " + st.Trace.Partial
	}
	return ""
}
