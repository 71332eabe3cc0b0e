// Package sections measures an app's own trace sections
// (android.os.Trace.beginSection / endSection, androidx.tracing's trace {})
// in a Perfetto trace, the way androidx Macrobenchmark's
// TraceSectionMetric does: the durations of the sections a name or a
// pattern matches, as first, min, max, sum and count.
//
// A Collector reads the trace's atrace markers and TrackEvent packets as
// trace.Analyze passes them (trace.Options.Marker and Packet), Slices
// pairs each thread's begins and ends, each process's async ones, and
// those of named and TrackEvent tracks, into slices, and Measure gives a
// Spec's figures over a window:
//
//	var c sections.Collector
//	a, err := trace.Analyze(f, trace.Options{Package: pkg, Marker: c.Marker, Packet: c.Packet})
//	ss, _ := sections.Slices(&c, a.AppPIDs, func(ns int64) (int64, bool) { v, err := a.Convert(ns, trace.Boottime); return v, err == nil })
//	st := sections.Measure(ss, sections.Spec{Name: "feed:bind"}, w.Start, w.End)
//
// What counts follows Macrobenchmark (androidx/androidx
// benchmark/benchmark-macro/src/main/java/androidx/benchmark/macro/Metric.kt
// and benchmark/benchmark-traceprocessor/…/TraceProcessor.kt, querySlices):
// slices of the app's processes only (targetPackageOnly, its default), a
// section that never ended is left out ("non-terminating slices … are
// always ignored"), and First is the earliest to begin. Where perfgate
// differs, it says so: see Spec.Match for the pattern, and Measure for
// the window. A section on a process's track (an async one, one on an
// Android 14 named track or a TrackEvent process track) is matched by its
// own name: querySlices names such a slice after its track
// (process_track.name), which for "S|" markers is the slice's name but
// for a named track is the track's.
package sections

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/trace/internal/markers"
)

// Spec names the sections one set of metrics measures.
type Spec struct {
	// Name is a section's exact name, or a pattern where "%" stands for
	// any run of characters, empty included ("JIT %", "%:bind"). It names
	// the metrics: metrics.SectionName(stat, Name).
	Name string `json:"name"`
	// MainThread keeps only the sections of the app's main threads (a
	// thread whose id is its process's); otherwise every thread of the
	// app's processes counts, as in Macrobenchmark.
	MainThread bool `json:"main_thread,omitempty"`
}

// UnmarshalJSON reads a spec, or a name alone for a spec on any thread:
// "feed:bind" is {"name": "feed:bind"}.
func (s *Spec) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &s.Name); err == nil {
		s.MainThread = false
		return nil
	}
	type plain Spec
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p plain
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("sections: want a section's name or {\"name\", \"main_thread\"}: %v", err)
	}
	*s = Spec(p)
	return nil
}

// Validate reports why the spec cannot name metrics (see
// metrics.CheckSectionName).
func (s Spec) Validate() error {
	if err := metrics.CheckSectionName(s.Name); err != nil {
		return fmt.Errorf("sections: %v", err)
	}
	return nil
}

// Validate checks every spec and that no name is given twice: the name
// alone names a section's metrics.
func Validate(specs []Spec) error {
	seen := map[string]bool{}
	for _, s := range specs {
		if err := s.Validate(); err != nil {
			return err
		}
		if seen[s.Name] {
			return fmt.Errorf("sections: %q given twice", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

// Match reports whether a section named name is one of the spec's. Without
// a "%" the name must be equal; with one, "%" matches any run of
// characters. Macrobenchmark passes the name to SQL's LIKE, which also
// takes "_" for any one character and ignores the case of ASCII letters;
// perfgate keeps "_" a character and the case significant, since section
// names use underscores ("RV_bind") and differ in case.
func (s Spec) Match(name string) bool {
	parts := strings.Split(s.Name, "%")
	if len(parts) == 1 {
		return name == s.Name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	rest := name[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return len(rest) >= len(last) && strings.HasSuffix(rest, last)
}

// Slice is one section a thread began and ended, times on the trace clock
// in ns.
type Slice struct {
	Name  string `json:"name"`
	PID   int32  `json:"pid"`
	TID   int32  `json:"tid"`
	Start int64  `json:"start_ns"`
	End   int64  `json:"end_ns"`
}

// Dur is the section's length in ns.
func (s Slice) Dur() int64 { return s.End - s.Start }

// Main reports whether the section ran on its process's main thread.
func (s Slice) Main() bool { return s.TID == s.PID }

// Collector gathers the begins and ends of every thread's sections, and
// of the async sections of every process: "B|<tgid>|<name>" begins a
// section, "E|<tgid>" or "E" ends the thread's innermost one;
// "S|<tgid>|<name>|<cookie>" begins an async section
// (Trace.beginAsyncSection), which may end on another thread, at
// "F|<tgid>|<name>|<cookie>". Counters ("C|…") are no sections. The zero
// value is ready; pass its Marker method as trace.Options.Marker. Its
// Malformed field counts the lines that look like a section's begin or
// end and are none ("B|", a tgid that is no number, "S|" without a
// cookie). It is frametiming.Collector too: one Collector serves Slices
// and frametiming.Compute. Pass its Packet method as trace.Options.Packet
// too, for the sections the Perfetto SDK writes as TrackEvent slices
// (androidx.tracing:tracing-perfetto); Android 14's named-track markers
// ("N|", "G|", "H|") come with the atrace markers.
type Collector = markers.Collector

// Slices pairs each thread's begins and ends, in time order, each
// process's async begins and ends by name and cookie, the begins and ends
// of Android 14's named tracks by process, track and cookie, and those of
// TrackEvent tracks (the Perfetto SDK's, Collector.Packet), into the
// sections of the processes pids (every process when pids is empty), with
// times moved onto the trace clock by conv (false: the time cannot be, and
// the section is left out). An async section, and one on a named track or
// a TrackEvent process track, has TID 0: it runs on no one thread; one on
// a TrackEvent thread track is its thread's. An instant (a thread's
// "I|…", a named track's "N|…", a TrackEvent TYPE_INSTANT) is a section
// of length 0, as in trace processor's slice table. A section still open at the end of the trace, and an end with
// no begin, are left out; unended counts the first.
func Slices(c *Collector, pids []int32, conv func(int64) (int64, bool)) (out []Slice, unended int) {
	ours := func(pid int32) bool { return len(pids) == 0 || slices.Contains(pids, pid) }
	add := func(s markers.Slice, ended bool) {
		switch {
		case !ours(s.PID):
		case !ended:
			unended++
		default:
			start, ok1 := conv(s.Start)
			end, ok2 := conv(s.End)
			if ok1 && ok2 {
				out = append(out, Slice{Name: s.Name, PID: s.PID, TID: s.TID, Start: start, End: end})
			}
		}
	}
	c.Threads(add)
	c.Async(add)
	c.Tracks(func(s markers.TrackSlice, ended bool) { add(s.Slice, ended) })
	slices.SortFunc(out, func(x, y Slice) int { return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.TID, y.TID)) })
	return out, unended
}

// Stats are the durations, in ns, of the sections of one Spec in a
// window; FirstNs, MinNs, MaxNs and SumNs mean nothing when Count is 0.
type Stats struct {
	Count                        int
	FirstNs, MinNs, MaxNs, SumNs int64
}

// Measure gives the figures of the sections of ss that spec names and
// that begin in [start, end) (times on the trace clock): a section
// belongs to the window it begins in, so that each is counted once
// however the windows cut the trace (Macrobenchmark measures a whole
// trace, one per iteration). First is the earliest to begin; ss must be
// in the order Slices gives.
func Measure(ss []Slice, spec Spec, start, end int64) Stats {
	var st Stats
	for _, s := range ss {
		if s.Start < start || s.Start >= end || spec.MainThread && !s.Main() || !spec.Match(s.Name) {
			continue
		}
		d := s.Dur()
		if st.Count == 0 {
			st.FirstNs, st.MinNs, st.MaxNs = d, d, d
		}
		st.Count++
		st.SumNs += d
		st.MinNs, st.MaxNs = min(st.MinNs, d), max(st.MaxNs, d)
	}
	return st
}
