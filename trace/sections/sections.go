// Package sections measures an app's own trace sections
// (android.os.Trace.beginSection / endSection, androidx.tracing's trace {})
// in a Perfetto trace, the way androidx Macrobenchmark's
// TraceSectionMetric does: the durations of the sections a name or a
// pattern matches, as first, min, max, sum and count.
//
// A Collector reads the trace's atrace markers as trace.Analyze passes
// them (trace.Options.Marker), pairs each thread's begins and ends, and
// each process's async ones, into slices, and Measure gives a Spec's
// figures over a window:
//
//	var c sections.Collector
//	a, err := trace.Analyze(f, trace.Options{Package: pkg, Marker: c.Marker})
//	ss := c.Slices(a.AppPIDs, func(ns int64) (int64, bool) { v, err := a.Convert(ns, trace.Boottime); return v, err == nil })
//	st := sections.Measure(ss, sections.Spec{Name: "feed:bind"}, w.Start, w.End)
//
// What counts follows Macrobenchmark (androidx/androidx
// benchmark/benchmark-macro/src/main/java/androidx/benchmark/macro/Metric.kt
// and benchmark/benchmark-traceprocessor/…/TraceProcessor.kt, querySlices):
// slices of the app's processes only (targetPackageOnly, its default), a
// section that never ended is left out ("non-terminating slices … are
// always ignored"), and First is the earliest to begin. Where perfgate
// differs, it says so: see Spec.Match for the pattern, and Measure for
// the window.
package sections

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/metrics"
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

// mark is one atrace marker of a thread: a begin (name ≥ 0) or an end.
type mark struct {
	ts    int64
	tgid  int32
	name  int32 // index into Collector.names; -1 for an end
	order int   // the order read, to keep equal times in it
}

// asyncMark is an async section's begin or end: the same name and
// cookie of one process pair them, whatever thread wrote each.
type asyncMark struct {
	mark
	key   string // name and cookie
	begin bool
}

// Collector gathers the begins and ends of every thread's sections, and
// of the async sections of every process. The zero value is ready;
// Marker is trace.Options.Marker.
type Collector struct {
	byTID map[int32][]mark
	async []asyncMark
	names []string
	ids   map[string]int32
	n     int
	// Malformed counts markers that are neither a begin nor an end of a
	// section ("B|", a tgid that is no number, "S|" without a cookie).
	Malformed int
}

// Marker reads one atrace marker written by thread tid at boottime ns ts:
// "B|<tgid>|<name>" begins a section, "E|<tgid>" or "E" ends the
// thread's innermost one; "S|<tgid>|<name>|<cookie>" begins an async
// section (Trace.beginAsyncSection), which may end on another thread, at
// "F|<tgid>|<name>|<cookie>". Counters ("C|…") are no sections.
func (c *Collector) Marker(ts int64, tid int32, text []byte) {
	m, ok := parseMarker(text)
	if !ok {
		if len(text) > 0 && bytes.IndexByte([]byte("BESF"), text[0]) >= 0 {
			c.Malformed++
		}
		return
	}
	if c.byTID == nil {
		c.byTID, c.ids = map[int32][]mark{}, map[string]int32{}
	}
	k := int32(-1)
	if m.begin {
		k = c.intern(m.name)
	}
	if m.tgid <= 0 {
		m.tgid = tid
	}
	c.n++
	mk := mark{ts: ts, tgid: m.tgid, name: k, order: c.n}
	if m.cookie != nil {
		c.async = append(c.async, asyncMark{mark: mk, key: string(m.name) + "|" + string(m.cookie), begin: m.begin})
		return
	}
	c.byTID[tid] = append(c.byTID[tid], mk)
}

func (c *Collector) intern(name []byte) int32 {
	if k, ok := c.ids[string(name)]; ok {
		return k
	}
	k := int32(len(c.names))
	c.names = append(c.names, string(name))
	c.ids[string(name)] = k
	return k
}

// marker is a parsed atrace marker.
type marker struct {
	begin  bool
	tgid   int32 // 0 when the marker names none ("E")
	name   []byte
	cookie []byte // an async section's; nil for a thread's
}

// parseMarker reads a section's begin or end; ok is false for anything
// else.
func parseMarker(text []byte) (m marker, ok bool) {
	text = bytes.TrimRight(text, "\n\x00")
	if len(text) == 0 || bytes.IndexByte([]byte("BESF"), text[0]) < 0 {
		return m, false
	}
	m.begin = text[0] == 'B' || text[0] == 'S'
	if text[0] == 'S' || text[0] == 'F' {
		return parseAsync(text, m)
	}
	rest := text[1:]
	if len(rest) == 0 {
		return m, !m.begin
	}
	if rest[0] != '|' {
		return m, false
	}
	f, name, _ := bytes.Cut(rest[1:], []byte("|"))
	v, err := strconv.ParseInt(string(f), 10, 32)
	if err != nil || v < 0 {
		return m, false
	}
	m.tgid = int32(v)
	if m.begin {
		if len(name) == 0 {
			name = []byte("[empty slice name]")
		}
		m.name = name
	}
	return m, true
}

// parseAsync reads "S|<tgid>|<name>|<cookie>" or "F|…": the cookie is
// what follows the last '|', the name may hold '|'.
func parseAsync(text []byte, m marker) (marker, bool) {
	f := bytes.SplitN(text, []byte("|"), 3)
	if len(f) != 3 || len(f[0]) != 1 {
		return m, false
	}
	v, err := strconv.ParseInt(string(f[1]), 10, 32)
	i := bytes.LastIndexByte(f[2], '|')
	if err != nil || v <= 0 || i <= 0 || i == len(f[2])-1 {
		return m, false
	}
	m.tgid, m.name, m.cookie = int32(v), f[2][:i], f[2][i+1:]
	return m, true
}

// Slices pairs each thread's begins and ends, in time order, and each
// process's async begins and ends by name and cookie, into the sections of
// the processes pids (every process when pids is empty), with times moved
// onto the trace clock by conv (false: the time cannot be, and the
// section is left out). An async section has TID 0: it runs on no one
// thread. A section still open at the end of the trace, and an end with
// no begin, are left out; unended counts the first.
func (c *Collector) Slices(pids []int32, conv func(int64) (int64, bool)) (out []Slice, unended int) {
	ours := func(pid int32) bool { return len(pids) == 0 || slices.Contains(pids, pid) }
	add := func(b, e mark, tid int32) {
		start, ok1 := conv(b.ts)
		end, ok2 := conv(e.ts)
		if ok1 && ok2 && ours(b.tgid) {
			out = append(out, Slice{Name: c.names[b.name], PID: b.tgid, TID: tid, Start: start, End: end})
		}
	}
	byTime := func(x, y mark) int { return cmp.Or(cmp.Compare(x.ts, y.ts), cmp.Compare(x.order, y.order)) }
	for tid, ms := range c.byTID {
		slices.SortStableFunc(ms, byTime)
		var open []mark
		for _, m := range ms {
			switch {
			case m.name >= 0:
				open = append(open, m)
			case len(open) > 0:
				add(open[len(open)-1], m, tid)
				open = open[:len(open)-1]
			}
		}
		for _, b := range open {
			if ours(b.tgid) {
				unended++
			}
		}
	}
	slices.SortStableFunc(c.async, func(x, y asyncMark) int { return byTime(x.mark, y.mark) })
	open := map[string][]mark{}
	for _, m := range c.async {
		k := strconv.Itoa(int(m.tgid)) + "|" + m.key
		if m.begin {
			open[k] = append(open[k], m.mark)
		} else if bs := open[k]; len(bs) > 0 {
			add(bs[len(bs)-1], m.mark, 0)
			open[k] = bs[:len(bs)-1]
		}
	}
	for _, bs := range open {
		for _, b := range bs {
			if ours(b.tgid) {
				unended++
			}
		}
	}
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
