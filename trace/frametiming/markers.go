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
// of every thread (a slice's end names no slice: pairing needs them all),
// 16 bytes each, and the names of frame slices only.
type Collector struct {
	marks []mark
	tgids map[int32]int32 // each thread's process, from its begins
	names []string        // of the frame slices, by mark.what − 1
}

// mark is one atrace begin or end.
type mark struct {
	ts  int64
	tid int32
	// what is endMark, otherSlice (a begin of a slice of no frame) or
	// k > 0, a begin of the frame slice names[k−1].
	what int32
}

const (
	endMark    = -1
	otherSlice = 0
)

// Marker takes one atrace marker line: "B|tgid|name" begins a slice,
// "E" or "E|tgid" ends the thread's innermost one; anything else (counters,
// async slices) is not a thread's slice and is passed over.
func (c *Collector) Marker(ts int64, tid int32, line []byte) {
	p, ok := parseMarker(line)
	if !ok {
		return
	}
	m := mark{ts: ts, tid: tid, what: endMark}
	if p.begin {
		if c.tgids == nil {
			c.tgids = map[int32]int32{}
		}
		if _, ok := c.tgids[tid]; !ok {
			c.tgids[tid] = p.tgid
		}
		m.what = otherSlice
		if p.name != "" {
			c.names = append(c.names, p.name)
			m.what = int32(len(c.names))
		}
	}
	c.marks = append(c.marks, m)
}

// parsed is a marker line read: a begin of process tgid (named when it
// begins a frame slice), or an end.
type parsed struct {
	begin bool
	tgid  int32
	name  string
}

// parseMarker reads a begin or an end.
func parseMarker(line []byte) (parsed, bool) {
	line = bytes.TrimRight(line, "\n\x00")
	if len(line) == 0 {
		return parsed{}, false
	}
	switch line[0] {
	case 'E':
		if len(line) > 1 && line[1] != '|' {
			return parsed{}, false
		}
		return parsed{}, true
	case 'B':
	default:
		return parsed{}, false
	}
	rest, ok := bytes.CutPrefix(line[1:], []byte("|"))
	if !ok {
		return parsed{}, false
	}
	pid, name, ok := bytes.Cut(rest, []byte("|"))
	if !ok {
		return parsed{}, false
	}
	tgid, err := strconv.ParseInt(string(pid), 10, 32)
	if err != nil || tgid <= 0 {
		return parsed{}, false
	}
	p := parsed{begin: true, tgid: int32(tgid)}
	if frameSlice(name) {
		p.name = string(name)
	}
	return p, true
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
			if m.what > 0 && app[c.tgids[m.tid]] {
				rejected["slice_unfinished"]++
			}
		}
		stack = stack[:0]
	}
	for i, m := range c.marks {
		if i > 0 && m.tid != c.marks[i-1].tid {
			flush()
		}
		if m.what != endMark {
			stack = append(stack, m)
			continue
		}
		if len(stack) == 0 {
			continue // its begin came before the trace
		}
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		tgid := c.tgids[b.tid]
		if b.what == otherSlice || !app[tgid] {
			continue
		}
		name := c.names[b.what-1]
		s, ok := onTrace(a, b.ts, m.ts)
		switch {
		case !ok:
			rejected["slice_unknown_clock"]++
		case s.end <= s.start:
			rejected["slice_empty"]++
		case b.tid == tgid && strings.HasPrefix(name, "Choreographer#doFrame") && !strings.Contains(name, "resynced"):
			s.id = frameID(name)
			ui = append(ui, s)
		case b.tid != tgid && strings.HasPrefix(name, "DrawFrame"):
			s.id = frameID(name)
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
