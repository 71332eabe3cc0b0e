package simdevice

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/perfgate/perfgate/trace"
)

// What a Perfetto trace shows of each frame the app renders, decided when
// the frame is made (see planFrame): FrameTimeline's jank type, and the
// main thread's states and atrace slices over the frame. The simulated
// perfetto writes exactly this (trace_write.go), and the frame's truth
// (TruthFrame.Trace) says what it wrote.

// TruthTrace is what a Perfetto trace of the phone shows of one frame, as
// it really was.
type TruthTrace struct {
	// Jank is FrameTimeline's jank type of the frame's actual surface
	// frame, Present how it was presented.
	Jank    trace.JankType    `json:"jank_type"`
	Present trace.PresentType `json:"present_type"`
	// MainThread is the main thread's time per state over the frame's
	// actual span, [IntendedVsync, Completed); janky frames only.
	MainThread *trace.States `json:"main_thread,omitempty"`
	// Slices are the longest slices under the frame's Choreographer#doFrame,
	// longest first (trace.DefaultTopSlices of them), as a trace with the
	// view, dalvik and aidl categories and the app's own sections shows
	// them; janky frames only.
	Slices []TruthSlice `json:"slices,omitempty"`
	// DoFrameNs and DrawEndNs are when the main thread's
	// Choreographer#doFrame <vsync id> slice began and RenderThread's
	// DrawFrames <vsync id> slice ended (atrace view and gfx; before
	// Android 12 the names have no id, and DrawFrame begins inside the
	// doFrame, which waits for RenderThread's sync), so that
	// Macrobenchmark's frame CPU duration is DrawEndNs − DoFrameNs;
	// OverrunNs is FrameTimeline's actual end − expected end (Completed −
	// Deadline). Device monotonic ns.
	DoFrameNs int64 `json:"do_frame_ns"`
	DrawEndNs int64 `json:"draw_end_ns"`
	OverrunNs int64 `json:"overrun_ns"`
}

// TruthSlice is one slice of a frame's main thread.
type TruthSlice struct {
	Name  string `json:"name"`
	DurNs int64  `json:"dur_ns"`
}

// The atrace categories the app's slices belong to; "app" stands for the
// app's own sections, recorded when the config names it in atrace_apps.
const (
	catView   = "view"
	catDalvik = "dalvik"
	catAIDL   = "aidl"
	catGfx    = "gfx"
	catApp    = "app"
)

// planSlice is one slice of a frame's plan.
type planSlice struct {
	name       string
	cat        string
	start, end int64
	depth      int
}

// planSpan is a stretch of the main thread in one state.
type planSpan struct {
	start, end int64
	st         trace.ThreadState
}

// framePlan is the main thread's part in one frame, from its wake-up at
// IntendedVsync to SyncQueued, when it hands the frame to RenderThread and
// sleeps; the spans cover that time without a gap.
type framePlan struct {
	spans  []planSpan
	slices []planSlice // in the order they begin (outer before inner)
	// wait is the frame's wait (Jank.Wait) and [waitStart, waitEnd) when
	// the thread was off the CPU for it; back is when it ran again.
	wait               string
	waitStart, waitEnd int64
	back               int64
	// preempt is [preemptStart, preemptEnd) when another thread took the
	// CPU from it.
	preemptStart, preemptEnd int64
}

// planFrame lays out the main thread over frame f from the frame's own
// timestamps: woken at IntendedVsync and runnable until HandleInputStart
// (running, when it ran the cause's message then: f.WaitMessage);
// doFrame from then to SyncQueued, with input, animation and traversal
// (measure, layout, draw) at the frame's phase boundaries. A slow frame
// spends most of its layout in the app's RecyclerView binding, where it
// waits (Jank.Wait) or, computing, is preempted for a while.
//
// Where the block/stack work (issue 14) gives a slow frame a named cause,
// that cause decides f.Wait and, with it, the slice that names the wait.
func planFrame(f *TruthFrame) framePlan {
	var p framePlan
	v, h, a, pt, d, q := f.IntendedVsync, f.HandleInputStart, f.AnimationStart, f.PerformTraversalsStart, f.DrawStart, f.SyncQueued
	if !(v <= h && h <= a && a <= pt && pt <= d && d <= q) {
		// Not the shape makeFrame gives; the thread just runs the frame.
		h, a, pt, d = v, v, v, v
	}
	at := func(lo, hi int64, frac float64) int64 { return lo + int64(float64(hi-lo)*frac) }
	layout := at(pt, d, 0.4)
	sl := func(name, cat string, s, e int64, depth int) {
		p.slices = append(p.slices, planSlice{name: name, cat: cat, start: s, end: e, depth: depth})
	}
	sl("Choreographer#doFrame "+strconv.FormatInt(f.VsyncID, 10), catView, h, q, 0)
	sl("input", catView, h, a, 1)
	sl("animation", catView, a, pt, 1)
	sl("traversal", catView, pt, q, 1)
	sl("measure", catView, pt, layout, 2)
	sl("layout", catView, layout, d, 2)
	if f.Slow && f.Wait == "" {
		// Slow in the app's own code: binding rows. A frame that waits
		// does so in layout itself (a binder call, a query, a lock), so
		// that its wait is among its longest slices.
		sl("RV OnBindView", catApp, at(pt, d, 0.42), at(pt, d, 0.96), 3)
	}
	sl("draw", catView, d, q, 2)
	sl("Record View#draw()", catView, d, at(d, q, 0.8), 3)

	p.spans = []planSpan{{v, h, trace.StateRunnable}}
	if f.WaitMessage {
		p.spans[0].st = trace.StateRunning
	}
	run := func(s, e int64) {
		if e > s {
			p.spans = append(p.spans, planSpan{s, e, trace.StateRunning})
		}
	}
	switch {
	case f.Slow && f.Wait != "":
		p.wait = f.Wait
		p.waitStart, p.waitEnd = at(pt, d, 0.45), at(pt, d, 0.93)
		p.back = p.waitEnd + (d-pt)/100
		st, name, cat := trace.StateBinder, "AIDL::java::IPackageManager::getPackageInfo::client", catAIDL
		switch f.Wait {
		case WaitIO:
			st, name, cat = trace.StateUninterruptible, "SQLiteDatabase#query", catApp
		case WaitLock:
			st, name, cat = trace.StateSleeping, fmt.Sprintf("Lock contention on a monitor lock (owner tid: %d)", f.Pid+18), catDalvik
		}
		sl(name, cat, p.waitStart, p.back, 3)
		run(h, p.waitStart)
		p.spans = append(p.spans, planSpan{p.waitStart, p.waitEnd, st}, planSpan{p.waitEnd, p.back, trace.StateRunnable})
		run(p.back, q)
	case f.Slow:
		p.preemptStart, p.preemptEnd = at(pt, d, 0.5), at(pt, d, 0.6)
		run(h, p.preemptStart)
		p.spans = append(p.spans, planSpan{p.preemptStart, p.preemptEnd, trace.StateRunnable})
		run(p.preemptEnd, q)
	default:
		run(h, q)
	}
	p.slices = append(p.slices, sectionSlices(f)...)
	// Slices in the order they begin; a parent before the child that
	// starts with it.
	slices.SortStableFunc(p.slices, func(x, y planSlice) int {
		return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.depth, y.depth))
	})
	return p
}

// states adds up the plan's states over the frame's actual span [v, end):
// the thread sleeps from SyncQueued on.
func (p framePlan) states(v, end int64) trace.States {
	var s trace.States
	last := v
	for _, sp := range p.spans {
		lo, hi := max(sp.start, v), min(sp.end, end)
		if hi > lo {
			s.Add(sp.st, hi-lo)
		}
		last = max(last, sp.end)
	}
	if end > last {
		s.Add(trace.StateSleeping, end-last)
	}
	return s
}

// top is the n longest slices under the doFrame (every category on),
// longest first; equal lengths by start, then by end, as a reader that
// sorts the thread's slices by start and then by length keeps them.
func (p framePlan) top(n int) []TruthSlice {
	if len(p.slices) == 0 {
		return nil
	}
	df := p.slices[0]
	var under []planSlice
	for _, s := range p.slices[1:] {
		if s.start >= df.start && s.end <= df.end {
			under = append(under, s)
		}
	}
	slices.SortStableFunc(under, func(x, y planSlice) int {
		return cmp.Or(cmp.Compare(y.end-y.start, x.end-x.start), cmp.Compare(x.start, y.start), cmp.Compare(x.end, y.end))
	})
	var out []TruthSlice
	for _, s := range under[:min(n, len(under))] {
		out = append(out, TruthSlice{Name: s.name, DurNs: s.end - s.start})
	}
	return out
}

// frameJank is FrameTimeline's verdict on f: App Deadline Missed when the
// app finished after its deadline, SurfaceFlinger CPU Deadline Missed when
// SurfaceFlinger missed the vsync the frame was due in, Buffer Stuffing
// when it waited behind an earlier frame's buffer; late presented for any
// of them.
func frameJank(f *TruthFrame) (trace.JankType, trace.PresentType) {
	var j trace.JankType
	if f.Missed {
		j |= trace.JankAppDeadlineMissed
	}
	if f.SFLate {
		j |= trace.JankSFCPUDeadlineMissed
	} else if f.Stuffed {
		j |= trace.JankBufferStuffing
	}
	if j == 0 {
		return trace.JankNone, trace.PresentOnTime
	}
	return j, trace.PresentLate
}

// Trace is what a Perfetto trace of the phone shows of the frame (see
// TruthTrace); nil for a frame without a frame-timeline vsync id, which
// FrameTimeline does not list.
func (f TruthFrame) Trace() *TruthTrace {
	if f.VsyncID < 0 || f.Deadline == int64Max {
		return nil
	}
	j, pr := frameJank(&f)
	p := planFrame(&f)
	_, drawEnd := renderSpan(&f)
	t := &TruthTrace{Jank: j, Present: pr, DoFrameNs: p.slices[0].start, DrawEndNs: drawEnd, OverrunNs: f.Completed - f.Deadline}
	if j.Janky() {
		st := p.states(f.IntendedVsync, f.Completed)
		t.MainThread = &st
		t.Slices = p.top(trace.DefaultTopSlices)
	}
	return t
}

// traceCausesLocked gives frame i of phase p what the workload says of it
// beyond its length: the wait of a slow frame, a SurfaceFlinger miss
// (presented a period late), whether its buffer queued behind an earlier
// one.
func (w *World) traceCausesLocked(f *TruthFrame, p *Phase, i int) {
	if j := jankAt(p, i, false); j != nil && f.Slow {
		f.Wait = j.Wait
	}
	if jankAt(p, i, true) != nil {
		f.SFLate = true
		f.Present += w.period
		f.SFActual = f.Present
	}
	f.Stuffed = f.Present > w.gridAtOrAfter(f.Completed+latchNs) && !f.SFLate
}

// jankAt is the phase's jank that hits frame i: a SurfaceFlinger one or an
// app one.
func jankAt(p *Phase, i int, sf bool) *Jank {
	for k := range p.Janks {
		j := &p.Janks[k]
		if j.SurfaceFlinger != sf {
			continue
		}
		if slices.Contains(j.At, i) || (j.Every > 0 && (i+1)%j.Every == 0) {
			return j
		}
	}
	return nil
}
