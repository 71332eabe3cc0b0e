// Package startupphase reads an app's launches out of a session's Perfetto
// trace: per cold, warm or hot start, the phases its main thread went
// through (ActivityThread's slices, the first frame, reportFullyDrawn),
// with the thread's states and its longest slices in each.
//
//	launches, why := startupphase.Find(a, pid, start, end)
//	startupphase.Attach(a, start, end, step.Startup, clock)
package startupphase

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
)

// Names of the phases, in the order a launch goes through them.
const (
	ProcessStart    = "process start"
	BindApplication = "bindApplication"
	ActivityStart   = "activityStart"
	ActivityResume  = "activityResume"
	FirstDoFrame    = "Choreographer#doFrame"
	FirstFrame      = "first frame presented"
	FullyDrawn      = "reportFullyDrawn"
)

// TopSlices is how many of its longest slices a phase lists.
const TopSlices = 3

// Phase is one phase of a launch on the trace clock.
type Phase struct {
	Name       string
	Start, End int64
	// MainThread is nil when the trace has no scheduler events.
	MainThread *trace.States
	// Slices are the longest within the phase, longest first.
	Slices []trace.Slice
}

// Launch is one start found in the trace: its phases in order, and the
// phases it lacks, with why.
type Launch struct {
	PID         int32
	Phases      []Phase
	NotMeasured string
}

// Find returns the cold starts of process pid whose bindApplication
// begins in [start, end) (trace clock), each ending where the next
// begins. Without a bindApplication slice (no atrace category am) it
// returns the one launch the app's frames and its own slices show: its
// first frame presented and reportFullyDrawn, and why the rest is absent.
// a must have been read with Options.MainThreads.
func Find(a *trace.Analysis, pid int32, start, end int64) []Launch {
	_, sl := a.MainThread(pid, start, end)
	sl = slices.DeleteFunc(slices.Clone(sl), func(s trace.Slice) bool { return s.End <= start || s.Start >= end })
	var binds []int
	for i, s := range sl {
		if s.Depth == 0 && s.Name == BindApplication {
			binds = append(binds, i)
		}
	}
	sched := a.NotMeasured["thread_states"] == ""
	if len(binds) == 0 {
		l := launchFrom(a, pid, sl, start, end, -1, sched)
		if len(l.Phases) == 0 {
			return nil
		}
		l.NotMeasured = "the trace has no bindApplication slice on the app's main thread (atrace category am): process start, bindApplication, activityStart and activityResume are not measured"
		return []Launch{l}
	}
	var out []Launch
	for k, i := range binds {
		hi := end
		if k+1 < len(binds) {
			hi = sl[binds[k+1]].Start
		}
		out = append(out, launchFrom(a, pid, sl, start, hi, i, sched))
	}
	return out
}

// launchFrom reads one launch from the slices sl (by start) up to hi,
// from the slice sl[bind] that begins it (none: -1): a cold start's
// bindApplication, a warm start's activityStart, a hot start's
// activityResume.
func launchFrom(a *trace.Analysis, pid int32, sl []trace.Slice, lo, hi int64, bind int, sched bool) Launch {
	l := Launch{PID: pid}
	add := func(name string, s, e int64) {
		if e > s {
			l.Phases = append(l.Phases, Phase{Name: name, Start: s, End: e})
		}
	}
	from, after := lo, lo
	if bind >= 0 {
		b := sl[bind]
		for i := bind - 1; i >= 0 && b.Name == BindApplication; i-- {
			if sl[i].Depth == 0 && sl[i].Name == "PostFork" && sl[i].Start >= lo {
				add(ProcessStart, sl[i].Start, b.Start)
				break
			}
		}
		add(b.Name, b.Start, b.End)
		from, after = b.Start, b.End
		rest := []string{ActivityStart, ActivityResume}
		for _, name := range rest[slices.Index(rest, b.Name)+1:] {
			if s, ok := first(sl, after, hi, func(s trace.Slice) bool { return s.Depth == 0 && s.Name == name }); ok {
				add(name, s.Start, s.End)
				after = s.End
			}
		}
	}
	shown := after
	if s, ok := first(sl, after, hi, func(s trace.Slice) bool { return strings.HasPrefix(s.Name, FirstDoFrame) }); ok {
		add(FirstDoFrame, s.Start, s.End)
		shown = s.End
	}
	frameEnd := int64(-1)
	for _, f := range a.Frames {
		if f.PID == pid && f.Start >= from && f.Start < hi {
			s := f.Start
			if shown > f.Start && shown < f.End {
				s = shown // from the end of the doFrame that drew it
			}
			add(FirstFrame, s, f.End)
			frameEnd = f.End
			break
		}
	}
	if s, ok := first(sl, from, hi, func(s trace.Slice) bool { return strings.HasPrefix(s.Name, FullyDrawn) }); ok && frameEnd > 0 {
		add(FullyDrawn, frameEnd, s.Start)
	}
	for i := range l.Phases {
		p := &l.Phases[i]
		if sched {
			st, _ := a.MainThread(pid, p.Start, p.End)
			p.MainThread = &st
		}
		p.Slices = longest(sl, p)
	}
	return l
}

// first is the first slice of sl that begins in [lo, hi) and matches.
func first(sl []trace.Slice, lo, hi int64, match func(trace.Slice) bool) (trace.Slice, bool) {
	for _, s := range sl {
		if s.Start >= lo && s.Start < hi && match(s) {
			return s, true
		}
	}
	return trace.Slice{}, false
}

// longest are the TopSlices longest slices within p, the one that names
// it (same name and span) left out.
func longest(sl []trace.Slice, p *Phase) []trace.Slice {
	var in []trace.Slice
	for _, s := range sl {
		if s.Start >= p.Start && s.End <= p.End && !(s.Start == p.Start && s.End == p.End && strings.HasPrefix(s.Name, p.Name)) {
			in = append(in, s)
		}
	}
	slices.SortStableFunc(in, func(x, y trace.Slice) int { return cmp.Compare(y.Dur(), x.Dur()) })
	return in[:min(len(in), TopSlices)]
}

// Attach gives the launches of a step their phases. Cold starts are the
// launches found in the step's window [start, end) (trace clock) of the
// app's processes, in order, one per launch of st; launches whose count
// differs from the trace's are not placed. Warm and hot starts are found
// each in its own window (attachWarm). st.PhasesNotMeasured says why
// launches have no phases.
func Attach(a *trace.Analysis, start, end int64, st *result.StartupStats, clk Clock) {
	if st.Kind != "cold" {
		attachWarm(a, st, clk)
		return
	}
	toDevice := clk.ToDevice
	all := Launches(a, start, end)
	switch {
	case len(all) == 1 && all[0].NotMeasured != "" && len(st.Iterations) > 1:
		// Without bindApplication the launches cannot be told apart.
		st.PhasesNotMeasured = "startup phases: " + all[0].NotMeasured + "; the step's " + strconv.Itoa(len(st.Iterations)) + " launches are not told apart"
		return
	case len(all) != len(st.Iterations):
		st.PhasesNotMeasured = "startup phases: the trace shows " + strconv.Itoa(len(all)) + " launches in the step, the step made " + strconv.Itoa(len(st.Iterations))
		return
	}
	for i, l := range all {
		st.Iterations[i].Phases = l.Result(toDevice)
		if l.NotMeasured != "" {
			st.PhasesNotMeasured = "startup phases: " + l.NotMeasured
		}
	}
}

// Launches are the cold starts of the app's processes (a.AppPIDs) whose
// bindApplication begins in [start, end) (trace clock), as Find gives
// them, in the order they began.
func Launches(a *trace.Analysis, start, end int64) []Launch {
	var all []Launch
	for _, pid := range a.AppPIDs {
		all = append(all, Find(a, pid, start, end)...)
	}
	slices.SortStableFunc(all, func(x, y Launch) int { return cmp.Compare(x.Phases[0].Start, y.Phases[0].Start) })
	return all
}

// Result is the launch's phases as a step keeps them, toDevice moving a
// trace time onto the steps' device clock.
func (l Launch) Result(toDevice func(int64) int64) []result.StartupPhase {
	var out []result.StartupPhase
	for _, p := range l.Phases {
		rp := result.StartupPhase{Name: p.Name, DeviceStartNs: toDevice(p.Start), DeviceEndNs: toDevice(p.End), DurMs: ms(p.End - p.Start), MainThread: p.MainThread}
		for _, s := range p.Slices {
			rp.Slices = append(rp.Slices, result.PhaseSlice{Name: s.Name, DurMs: ms(s.Dur())})
		}
		out = append(out, rp)
	}
	return out
}

// Phases is Launches as steps keep them, their times left on the trace
// clock, and why phases are absent ("" when none is).
func Phases(a *trace.Analysis, start, end int64) (launches [][]result.StartupPhase, notMeasured string) {
	for _, l := range Launches(a, start, end) {
		launches = append(launches, l.Result(func(ns int64) int64 { return ns }))
		if l.NotMeasured != "" {
			notMeasured = "startup phases: " + l.NotMeasured
		}
	}
	return launches, notMeasured
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }
