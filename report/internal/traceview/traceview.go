// Package traceview is a session's Perfetto trace on the report's page:
// where the trace file is and how to open it, and per step its
// FrameTimeline analysis (the janky frames, the main thread's states and
// longest slices in each).
//
//	hr.Trace = traceview.Session(r, pageDir)
//	hs.Trace = traceview.StepOf(st)
package traceview

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/report/internal/cmppage"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
)

// Trace is a session's Perfetto trace on the page.
type Trace struct {
	File, Size, Sources string
	Href                template.URL
	NotRecorded         string
	Notes               []string
	UI                  string
}

// Step is a step's FrameTimeline analysis on the page.
type Step struct {
	Summary string
	Partial string
	Missing []string
	Frames  []Frame
}

// Frame is one janky frame of a step.
type Frame struct {
	At, Token, Length, Jank, Present, States, Polled string
	App                                              bool
	Slices                                           []string
}

// Session is the result's trace for the page written into pageDir (links
// go from there; "": file URLs); nil without one.
func Session(r *result.Result, pageDir string) *Trace {
	t := r.Trace
	if t == nil {
		return nil
	}
	h := &Trace{File: t.File, NotRecorded: t.NotRecorded, Notes: t.Notes, UI: trace.PerfettoUI,
		Sources: strings.Join(t.Sources, ", ")}
	if t.File != "" {
		f := cmppage.Beside(r.Path, t.File)
		if f == "" {
			f = t.File // gone: the link says where it was
		}
		h.Href = cmppage.Href(pageDir, f)
		h.Size = fmt.Sprintf("%.1f MB", float64(t.SizeBytes)/1e6)
	}
	return h
}

// StepOf is the step's FrameTimeline analysis for the page; nil without
// a trace.
func StepOf(st *result.Step) *Step {
	ts := st.Trace
	if ts == nil {
		return nil
	}
	h := &Step{Summary: Summary(ts), Partial: ts.Partial}
	for _, k := range slices.Sorted(maps.Keys(ts.NotMeasured)) {
		h.Missing = append(h.Missing, k+": "+ts.NotMeasured[k])
	}
	for _, jf := range ts.JankyFrames {
		hf := Frame{
			At: fmt.Sprintf("%.3f s", jf.AtS), Token: fmt.Sprint(jf.Token), Length: fmt.Sprintf("%.1f ms", float64(jf.Dur())/1e6),
			Jank: jf.Jank.String(), Present: jf.Present.String(), App: jf.App, States: States(jf.MainThread),
		}
		for _, s := range jf.Slices {
			hf.Slices = append(hf.Slices, fmt.Sprintf("%.1f ms %s", float64(s.Dur())/1e6, s.Name))
		}
		if p := jf.Polled; p != nil {
			hf.Polled = fmt.Sprintf("gfxinfo %.1f ms", float64(p.Duration())/1e6)
		}
		h.Frames = append(h.Frames, hf)
	}
	return h
}

// Summary is a step's FrameTimeline line: "12 frames, 3 janky, 1 app
// jank (App Deadline Missed 1, Buffer Stuffing 2)".
func Summary(ts *result.TraceStep) string {
	s := fmt.Sprintf("%d frames, %d janky, %d app jank", ts.Frames, ts.Janky, ts.AppJank)
	if len(ts.ByType) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(ts.ByType)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, ts.ByType[k]))
		}
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

// States is a main thread's time per state in ms.
func States(st *trace.States) string {
	if st == nil {
		return "no scheduler events"
	}
	var parts []string
	for _, k := range []trace.ThreadState{trace.StateRunning, trace.StateRunnable, trace.StateSleeping, trace.StateUninterruptible, trace.StateBinder, trace.StateOther, trace.StateUnknown} {
		if v := st.Get(k); v > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f", k, float64(v)/1e6))
		}
	}
	return strings.Join(parts, ", ")
}
