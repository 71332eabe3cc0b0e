package simdevice

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// Section is a trace section the app's own code writes
// (android.os.Trace.beginSection / endSection) in some frames of a phase,
// for the sections a session measures (perftest.TraceConfig.Sections). A
// trace whose config names the app in atrace_apps holds them, and each
// frame's truth (TruthFrame.Sections) says where they were.
type Section struct {
	Name string `json:"name"`
	// Thread is where the section runs: "main" (or empty), in the frame's
	// measure pass on the main thread; "worker", on a background thread of
	// the app (SectionWorker) while the main thread runs the frame.
	Thread string `json:"thread,omitempty"`
	// At and Every pick the phase's frames as Jank's do; neither: every
	// frame.
	At    []int `json:"at,omitempty"`
	Every int   `json:"every,omitempty"`
	// Child, when set, is a section nested in this one, over its middle.
	Child string `json:"child,omitempty"`
	// Emit is how the app writes it: "atrace" (or empty), atrace markers
	// on its thread (Trace.beginSection); "track_event", TrackEvent
	// slices on its thread's track, as the Perfetto SDK
	// (androidx.tracing:tracing-perfetto) writes them, in a trace whose
	// config asks for the track_event data source; "named_track", async
	// markers on a named track of the app's process (Android 14's
	// Trace.asyncTraceForTrackBegin / …End), which the trace shows on no
	// thread.
	Emit string `json:"emit,omitempty"`
}

// The threads sections run on.
const (
	SectionMain   = "main"
	SectionWorker = "worker"
)

// The ways an app writes a section (Section.Emit).
const (
	EmitAtrace     = "atrace"
	EmitTrackEvent = "track_event"
	EmitNamedTrack = "named_track"
)

// sectionWorkerTid is the app's background thread that writes "worker"
// sections, named sectionWorkerName.
func sectionWorkerTid(pid int) int32 { return int32(pid + 31) }

const sectionWorkerName = "bg-sections"

// TruthSection is one section the app wrote in a frame: its name, the
// thread that wrote it (tid; Main when the trace shows it on the app's
// main thread: not on a named track), how (Section.Emit; empty: atrace),
// and when it began and ended, device monotonic ns.
type TruthSection struct {
	Name    string `json:"name"`
	TID     int32  `json:"tid"`
	Main    bool   `json:"main"`
	StartNs int64  `json:"start_ns"`
	EndNs   int64  `json:"end_ns"`
	Depth   int    `json:"depth"`
	Emit    string `json:"emit,omitempty"`
}

// validateSections checks a phase's sections at path f.
func validateSections(f string, ss []Section) error {
	for i, s := range ss {
		sf := fmt.Sprintf("%s.sections[%d]", f, i)
		for i, n := range []string{s.Name, s.Child} {
			if i == 1 && n == "" {
				continue // no child
			}
			if err := metrics.CheckSectionName(n); err != nil {
				return badField(sf, "%v", err)
			}
		}
		if s.Thread != "" && s.Thread != SectionMain && s.Thread != SectionWorker {
			return badField(sf+".thread", "%q is neither %q nor %q", s.Thread, SectionMain, SectionWorker)
		}
		if s.Emit != "" && s.Emit != EmitAtrace && s.Emit != EmitTrackEvent && s.Emit != EmitNamedTrack {
			return badField(sf+".emit", "%q is none of %q, %q, %q", s.Emit, EmitAtrace, EmitTrackEvent, EmitNamedTrack)
		}
		if s.Every < 0 || slices.ContainsFunc(s.At, func(i int) bool { return i < 0 }) {
			return badField(sf, "every and at must be >= 0")
		}
	}
	return nil
}

// frameSections lays out the sections phase p writes in its frame i (f):
// each of the phase's main-thread sections in a slot of its own of the
// measure pass (the first 40 % of traversal before draw, as planFrame lays
// it out), each worker section in a slot of its own of the main thread's
// part of the frame, from 10 % to 90 % of its slot, a child over the
// slot's 30 % to 70 %. Frames vary in length, so the sections do.
func frameSections(f *TruthFrame, p *Phase, i int) []TruthSection {
	h, pt, d, q := f.HandleInputStart, f.PerformTraversalsStart, f.DrawStart, f.SyncQueued
	if len(p.Sections) == 0 || !(f.IntendedVsync <= h && h <= pt && pt <= d && d <= q) {
		return nil
	}
	at := func(lo, hi int64, frac float64) int64 { return lo + int64(float64(hi-lo)*frac) }
	layout := at(pt, d, 0.4)
	var nMain, nWorker int
	for _, s := range p.Sections {
		if s.Thread == SectionWorker {
			nWorker++
		} else {
			nMain++
		}
	}
	var out []TruthSection
	var kMain, kWorker int
	for _, s := range p.Sections {
		lo, hi, n, k, tid, depth := pt, layout, nMain, &kMain, int32(f.Pid), 3
		if s.Thread == SectionWorker {
			lo, hi, n, k, tid, depth = h, q, nWorker, &kWorker, sectionWorkerTid(f.Pid), 0
		}
		slotLo, slotHi := at(lo, hi, float64(*k)/float64(n)), at(lo, hi, float64(*k+1)/float64(n))
		*k++
		if !(slices.Contains(s.At, i) || picks(s.Every, i) || s.Every == 0 && len(s.At) == 0) {
			continue
		}
		main := s.Thread != SectionWorker && s.Emit != EmitNamedTrack
		emit := s.Emit
		if emit == EmitAtrace {
			emit = ""
		}
		out = append(out, TruthSection{Name: s.Name, TID: tid, Main: main, Depth: depth, Emit: emit,
			StartNs: at(slotLo, slotHi, 0.1), EndNs: at(slotLo, slotHi, 0.9)})
		if s.Child != "" {
			out = append(out, TruthSection{Name: s.Child, TID: tid, Main: main, Depth: depth + 1, Emit: emit,
				StartNs: at(slotLo, slotHi, 0.3), EndNs: at(slotLo, slotHi, 0.7)})
		}
	}
	return out
}

// sectionSlices are the frame's main-thread sections as slices of its
// plan (the app's own, category "app"; those it writes as TrackEvent
// slices are the main thread's too, but no atrace category's: they are
// written apart, by trackEventSections).
func sectionSlices(f *TruthFrame) []planSlice {
	var out []planSlice
	for _, s := range f.Sections {
		if s.Main {
			cat := catApp
			if s.Emit == EmitTrackEvent {
				cat = catTrackEvent
			}
			out = append(out, planSlice{name: s.Name, cat: cat, start: s.StartNs, end: s.EndNs, depth: s.Depth})
		}
	}
	return out
}

// catTrackEvent marks a plan's slice the app writes as TrackEvent: no
// atrace category turns it on.
const catTrackEvent = "track_event"

// workerSections adds, when the trace records the app's own sections,
// the frame's worker sections on CPU 0 and its named-track sections on
// the CPU of the thread that writes them.
func (o *frameOps) workerSections(f *TruthFrame) {
	if !o.feat.cats[catApp] {
		return
	}
	for i, s := range f.Sections {
		cpu := 0
		if s.TID == o.main {
			cpu = 1
		}
		switch {
		case s.Emit == EmitNamedTrack:
			track, cookie := namedTrack(s), strconv.Itoa(i) // cookies recur: a track and a cookie pair them
			o.print(cpu, s.StartNs, s.TID, "G|"+o.pidText+"|"+track+"|"+s.Name+"|"+cookie, 2, s.Depth)
			o.print(cpu, s.EndNs, s.TID, "H|"+o.pidText+"|"+track+"|"+cookie, 1, -s.Depth)
		case !s.Main && s.Emit == "":
			o.print(0, s.StartNs, s.TID, "B|"+o.pidText+"|"+s.Name, 2, s.Depth)
			o.print(0, s.EndNs, s.TID, "E|"+o.pidText, 1, -s.Depth)
		}
	}
}

// sectionThread is the worker thread in the trace's process list.
func sectionThread(pid int) tracewriter.Thread {
	return tracewriter.Thread{TID: sectionWorkerTid(pid), TGID: int32(pid), Name: sectionWorkerName}
}
