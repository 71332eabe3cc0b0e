package frametiming

import (
	"cmp"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/internal/markers"
)

// Collector gathers the atrace markers of a trace as trace.Analyze reads
// them (pass its Marker method as trace.Options.Marker): every begin and
// end of every thread, 16 bytes each (a slice's end names no slice:
// pairing needs them all), and async ones. It is sections.Collector too:
// one Collector serves Compute and sections.Slices. Its Malformed field
// counts the lines that look like a slice's begin or end and are none.
type Collector = markers.Collector

// slice is a frame slice of the app, on the trace clock.
type slice struct {
	start, end int64
	id         int64
}

// frameSlices pairs each thread's begins and ends (Collector.Threads) and
// returns the app's doFrame slices of its main threads and DrawFrame
// slices of its other threads, by start.
func frameSlices(a *trace.Analysis, c *Collector, app map[int32]bool, rejected map[string]int) (ui, rt []slice) {
	c.Threads(func(s markers.Slice, ended bool) {
		if !frameSlice(s.Name) || !app[s.PID] {
			return
		}
		if !ended {
			rejected["slice_unfinished"]++
			return
		}
		f, ok := onTrace(a, s.Start, s.End)
		switch {
		case !ok:
			rejected["slice_unknown_clock"]++
		case f.end <= f.start:
			rejected["slice_empty"]++
		case s.TID == s.PID && strings.HasPrefix(s.Name, "Choreographer#doFrame") && !strings.Contains(s.Name, "resynced"):
			f.id = frameID(s.Name)
			ui = append(ui, f)
		case s.TID != s.PID && strings.HasPrefix(s.Name, "DrawFrame"):
			f.id = frameID(s.Name)
			rt = append(rt, f)
		}
	})
	byStart := func(x, y slice) int { return cmp.Compare(x.start, y.start) }
	slices.SortStableFunc(ui, byStart)
	slices.SortStableFunc(rt, byStart)
	return ui, rt
}

// frameSlice: a name of a slice the frames are made of.
func frameSlice(name string) bool {
	return strings.HasPrefix(name, "Choreographer#doFrame") || strings.HasPrefix(name, "DrawFrame")
}

// onTrace moves a slice from boottime (ftrace's clock) onto the trace
// clock.
func onTrace(a *trace.Analysis, start, end int64) (slice, bool) {
	s, err1 := a.Convert(start, trace.Boottime)
	e, err2 := a.Convert(end, trace.Boottime)
	return slice{start: s, end: e}, err1 == nil && err2 == nil
}
