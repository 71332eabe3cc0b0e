// Package frametiming computes androidx Macrobenchmark's FrameTimingMetric
// from a Perfetto trace: each frame's CPU duration (frameDurationCpuMs) and
// overrun (frameOverrunMs), and their p50, p90, p95 and p99 per window.
//
//	c := &frametiming.Collector{}
//	a, err := trace.Analyze(f, trace.Options{Package: pkg, Marker: c.Marker})
//	t := frametiming.Compute(a, c)
//	st := t.Window(start, end) // on the trace clock
//	fmt.Println(st.Overrun.P90, st.NotMeasured["cpu"])
//
// The definitions follow androidx's own sources (androidx/androidx,
// benchmark/benchmark-macro/src/main/java/androidx/benchmark/macro/perfetto/
// FrameTimingQuery.kt at f4fd4f16, Macrobenchmark 1.1; FrameTimingMetric in
// Metric.kt; the percentiles of benchmark-common MetricResult.kt):
//
//   - a frame is a RenderThread `DrawFrame <id>` slice with a main-thread
//     `Choreographer#doFrame <id>` slice of the same id and, on Android 12+
//     (where the trace has FrameTimeline), the app's actual and expected
//     FrameTimeline frames of token <id>; a frame lacking any of them does
//     not count. Slices that never ended, or last 0 ns, are left out, as are
//     the nested `Choreographer#doFrame - resynced to <id> in …` slices
//     (androidx FrameTimingQueryTest.fixedTrace35_resynced, b/394610806);
//   - frameDurationCpu = DrawFrame end − doFrame start;
//   - frameOverrun = actual frame end − expected frame end (negative: the
//     frame was done before its deadline); Android 12+ only;
//   - before Android 12 (slice names without ids) a DrawFrame slice goes
//     with the doFrame slice that holds its start, and there is no overrun;
//   - percentile p of the m values sorted: the value at rank p/100·(m−1),
//     interpolated linearly between the two ranks around it.
//
// Where the trace has no doFrame or no DrawFrame slice of the app (the
// atrace categories view or gfx were off) no frame counts by that rule; the
// CPU figures are then absent, and the overrun is taken over every app
// frame FrameTimeline holds with its expected frame, its definition saying
// so (Timing.OverrunDefinition).
//
// Thread names are not read: a DrawFrame slice counts when a thread of the
// app's process other than its main thread wrote it (hwui writes it on
// RenderThread only), where androidx asks for a thread named RenderThread.
package frametiming

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/trace"
)

// The names NotMeasured uses for the two figures.
const (
	CPU     = "cpu"
	Overrun = "overrun"
)

// The definitions of the figures.
const (
	CPUDefinition      = "Macrobenchmark frameDurationCpuMs: DrawFrame end − Choreographer#doFrame start (androidx FrameTimingQuery), percentile interpolated between ranks (androidx MetricResult)"
	OverrunDefinition  = "Macrobenchmark frameOverrunMs: FrameTimeline actual end − expected end of frames with doFrame and DrawFrame slices (androidx FrameTimingQuery), percentile interpolated between ranks (androidx MetricResult)"
	TimelineDefinition = "FrameTimeline actual end − expected end of every app frame (no Choreographer#doFrame and DrawFrame slices to match, as Macrobenchmark needs: atrace view and gfx off), percentile interpolated between ranks (androidx MetricResult)"
)

// Frame is one frame's figures.
type Frame struct {
	// Time places the frame in a window: its expected start (the vsync it
	// was due for) where FrameTimeline has it, else its doFrame's start;
	// on the trace clock.
	Time int64
	// ID is the frame's vsync id (its FrameTimeline token); 0 unknown.
	ID int64
	// CPUNs and OverrunNs are the frame's figures, where HasCPU and
	// HasOverrun say it has them.
	CPUNs, OverrunNs   int64
	HasCPU, HasOverrun bool
}

// Timing is every frame of a trace that counts, with why a figure has no
// value anywhere in it.
type Timing struct {
	Frames []Frame // by Time
	// OverrunDefinition is the rule the overruns follow (OverrunDefinition
	// or, without slices to match, TimelineDefinition).
	OverrunDefinition string
	// NotMeasured says why the trace gives no CPU or Overrun figure.
	NotMeasured map[string]string
	// Rejected counts the app's frame slices that cannot be data, by
	// reason.
	Rejected map[string]int
}

// Compute finds the frames of the analysed app in a and c (which gathered
// a's atrace markers).
func Compute(a *trace.Analysis, c *Collector) *Timing {
	t := &Timing{NotMeasured: map[string]string{}, Rejected: map[string]int{}, OverrunDefinition: OverrunDefinition}
	app := appPIDs(a)
	ui, rt := frameSlices(a, c, app, t.Rejected)
	ft := timelineFrames(a, app)
	switch {
	case len(ui) == 0 || len(rt) == 0:
		missing := "Choreographer#doFrame slices on the app's main thread (atrace category view)"
		if len(ui) > 0 {
			missing = "DrawFrame slices on the app's RenderThread (atrace category gfx)"
		}
		if c.Len() == 0 {
			missing = "atrace markers read (ftrace/print)"
		}
		t.NotMeasured[CPU] = "the trace has no " + missing + ": no frame has both slices Macrobenchmark matches"
		t.OverrunDefinition = TimelineDefinition
		seen := map[[2]int64]bool{}
		for _, f := range ft {
			// One frame a process's token, as androidx finds a frame by id.
			if k := [2]int64{int64(f.PID), f.Token}; f.ExpectedEnd != 0 && !seen[k] {
				seen[k] = true
				t.Frames = append(t.Frames, Frame{Time: f.Time(), ID: f.Token, OverrunNs: f.End - f.ExpectedEnd, HasOverrun: true})
			}
		}
	case hasIDs(ui) && hasIDs(rt):
		// Slices without an id among those with one are left out.
		t.Frames = byID(ui, rt, ft)
	default:
		t.Frames = byContainment(ui, rt)
	}
	if len(ft) == 0 {
		t.NotMeasured[Overrun] = "the trace has no FrameTimeline frames of the app (Android 12+, data source android.surfaceflinger.frametimeline)"
		if r := a.NotMeasured["frametimeline"]; r != "" {
			t.NotMeasured[Overrun] = r
		}
	}
	slices.SortStableFunc(t.Frames, func(x, y Frame) int { return cmp.Compare(x.Time, y.Time) })
	return t
}

// appPIDs are the app's processes: a.AppPIDs, or without a package those
// that drew FrameTimeline frames.
func appPIDs(a *trace.Analysis) map[int32]bool {
	app := map[int32]bool{}
	for _, p := range a.AppPIDs {
		app[p] = true
	}
	if a.Package == "" {
		for _, f := range a.Frames {
			app[f.PID] = true
		}
	}
	return app
}

// timelineFrames are the app's FrameTimeline frames that lasted, by time.
func timelineFrames(a *trace.Analysis, app map[int32]bool) []trace.Frame {
	var out []trace.Frame
	for _, f := range a.Frames {
		if app[f.PID] && f.End > f.Start {
			if f.ExpectedEnd <= f.ExpectedStart {
				f.ExpectedStart, f.ExpectedEnd = 0, 0
			}
			out = append(out, f)
		}
	}
	return out
}

// byID matches each DrawFrame slice with the doFrame slice and the
// FrameTimeline frame of its id (the first of each by time).
func byID(ui, rt []slice, ft []trace.Frame) []Frame {
	uiOf := map[int64]*slice{}
	for i := range ui {
		if _, ok := uiOf[ui[i].id]; !ok && ui[i].id != 0 {
			uiOf[ui[i].id] = &ui[i]
		}
	}
	ftOf := map[int64]*trace.Frame{}
	for i := range ft {
		if _, ok := ftOf[ft[i].Token]; !ok {
			ftOf[ft[i].Token] = &ft[i]
		}
	}
	var out []Frame
	for _, r := range rt {
		u := uiOf[r.id]
		if u == nil {
			continue
		}
		fr := Frame{Time: u.start, ID: r.id, CPUNs: r.end - u.start, HasCPU: true}
		if len(ft) > 0 {
			// Android 12+: a frame without its FrameTimeline frames
			// does not count.
			f := ftOf[r.id]
			if f == nil || f.ExpectedEnd == 0 {
				continue
			}
			fr.Time, fr.OverrunNs, fr.HasOverrun = f.Time(), f.End-f.ExpectedEnd, true
		}
		out = append(out, fr)
	}
	return out
}

// byContainment matches each DrawFrame slice with the first doFrame slice
// that holds its start (slices without ids, before Android 12).
func byContainment(ui, rt []slice) []Frame {
	var out []Frame
	for _, r := range rt {
		for _, u := range ui {
			if u.start > r.start {
				break
			}
			if r.start <= u.end {
				out = append(out, Frame{Time: u.start, CPUNs: r.end - u.start, HasCPU: true})
				break
			}
		}
	}
	return out
}

// hasIDs: the slices name their frames (Android 12+).
func hasIDs(ss []slice) bool {
	return slices.ContainsFunc(ss, func(s slice) bool { return s.id != 0 })
}

// frameID is the id a frame slice's name ends with ("Choreographer#doFrame
// 123", "DrawFrames 123"), as androidx's Slice.frameId reads it: the text
// after the last space, an integer; 0 when there is none.
func frameID(name string) int64 {
	i := strings.LastIndexByte(name, ' ')
	if i < 0 {
		return 0
	}
	v, err := strconv.ParseInt(name[i+1:], 10, 64)
	if err != nil || v <= 0 {
		return 0
	}
	return v
}
