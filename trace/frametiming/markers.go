package frametiming

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/trace"
)

// Collector gathers the atrace markers of a trace as trace.Analyze reads
// them (pass Marker as trace.Options.Marker). It keeps every begin and end
// of every thread (a slice's end names no slice: pairing needs them all)
// and the names of frame slices only.
type Collector struct {
	marks []mark
}

// mark is one atrace begin or end.
type mark struct {
	ts    int64
	tid   int32
	tgid  int32 // from a begin's "B|tgid|", -1 for an end
	begin bool
	name  string // frame slices only
}

// Marker takes one atrace marker line: "B|tgid|name" begins a slice,
// "E" or "E|tgid" ends the thread's innermost one; anything else (counters,
// async slices) is not a thread's slice and is passed over.
func (c *Collector) Marker(ts int64, tid int32, line []byte) {
	m, ok := parseMarker(line)
	if !ok {
		return
	}
	m.ts, m.tid = ts, tid
	c.marks = append(c.marks, m)
}

// parseMarker reads a begin or an end.
func parseMarker(line []byte) (mark, bool) {
	line = bytes.TrimRight(line, "\n\x00")
	if len(line) == 0 {
		return mark{}, false
	}
	switch line[0] {
	case 'E':
		if len(line) > 1 && line[1] != '|' {
			return mark{}, false
		}
		return mark{tgid: -1}, true
	case 'B':
	default:
		return mark{}, false
	}
	rest, ok := bytes.CutPrefix(line[1:], []byte("|"))
	if !ok {
		return mark{}, false
	}
	pid, name, ok := bytes.Cut(rest, []byte("|"))
	if !ok {
		return mark{}, false
	}
	tgid, err := strconv.ParseInt(string(pid), 10, 32)
	if err != nil || tgid <= 0 {
		return mark{}, false
	}
	m := mark{tgid: int32(tgid), begin: true}
	if frameSlice(name) {
		m.name = string(name)
	}
	return m, true
}

// frameSlice: a name of a slice the frames are made of.
func frameSlice(name []byte) bool {
	return bytes.HasPrefix(name, []byte("Choreographer#doFrame")) || bytes.HasPrefix(name, []byte("DrawFrame"))
}

// slice is a frame slice of the app, on the trace clock.
type slice struct {
	start, end int64
	id         int64
}

// slices pairs each thread's begins and ends in time order (a thread's
// markers come in its CPUs' order, which a migration can interleave) and
// returns the app's doFrame slices of its main threads and DrawFrame
// slices of its other threads, by start.
func (c *Collector) slices(a *trace.Analysis, app map[int32]bool, rejected map[string]int) (ui, rt []slice) {
	if c == nil {
		return nil, nil
	}
	slices.SortStableFunc(c.marks, func(x, y mark) int { return cmp.Or(cmp.Compare(x.tid, y.tid), cmp.Compare(x.ts, y.ts)) })
	var stack []mark
	flush := func() {
		for _, m := range stack {
			if m.name != "" && app[m.tgid] {
				rejected["slice_unfinished"]++
			}
		}
		stack = stack[:0]
	}
	for i, m := range c.marks {
		if i > 0 && m.tid != c.marks[i-1].tid {
			flush()
		}
		if m.begin {
			stack = append(stack, m)
			continue
		}
		if len(stack) == 0 {
			continue // its begin came before the trace
		}
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if b.name == "" || !app[b.tgid] {
			continue
		}
		s, ok := onTrace(a, b.ts, m.ts)
		switch {
		case !ok:
			rejected["slice_unknown_clock"]++
		case s.end <= s.start:
			rejected["slice_empty"]++
		case b.tid == b.tgid && strings.HasPrefix(b.name, "Choreographer#doFrame") && !strings.Contains(b.name, "resynced"):
			s.id = frameID(b.name)
			ui = append(ui, s)
		case b.tid != b.tgid && strings.HasPrefix(b.name, "DrawFrame"):
			s.id = frameID(b.name)
			rt = append(rt, s)
		}
	}
	flush()
	byStart := func(x, y slice) int { return cmp.Compare(x.start, y.start) }
	slices.SortStableFunc(ui, byStart)
	slices.SortStableFunc(rt, byStart)
	return ui, rt
}

// onTrace moves a slice from boottime (ftrace's clock) onto the trace
// clock.
func onTrace(a *trace.Analysis, start, end int64) (slice, bool) {
	s, err1 := a.Convert(start, trace.Boottime)
	e, err2 := a.Convert(end, trace.Boottime)
	return slice{start: s, end: e}, err1 == nil && err2 == nil
}
