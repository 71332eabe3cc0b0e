// Package markers reads the atrace markers of a Perfetto trace (the lines
// apps and the framework write to the kernel's trace_marker file, which
// ftrace records as print events) and pairs each thread's begins and ends,
// and each process's async ones, into slices. Packages trace,
// trace/frametiming and trace/sections read markers alike through it, and
// a session keeps each marker once, in one Collector.
//
// The format is libcutils' atrace ("B|<tgid>|<name>", "E|<tgid>",
// "S|<tgid>|<name>|<cookie>", "F|…", "C|<tgid>|<name>|<value>"), read as
// Perfetto's trace processor reads it (google/perfetto
// src/trace_processor/importers/systrace/systrace_parser.h,
// ParseSystraceTracePoint), since androidx Macrobenchmark's figures are
// queries over what trace processor made of a trace:
//   - a begin needs a tgid, a number (0 included); its name is what
//     follows the second '|', "[empty slice name]" when there is none;
//   - an end is "E" followed by anything: trace processor reads no tgid
//     from it ("E" alone is one, aosp/1244409), it ends the innermost
//     slice open on the thread that wrote it;
//   - an async begin or end needs a tgid above 0, a name and a cookie
//     after the name's last '|'; the same process, name and cookie pair
//     them, whatever thread wrote each;
//   - Android 14's markers on named tracks (named.go) and counters are
//     read too; TrackEvent packets go to a trackevent.Decoder (Packet).
package markers

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/perfgate/perfgate/trace/internal/trackevent"
)

// Kind is what a marker is.
type Kind uint8

// The kinds of marker a slice is made of.
const (
	Begin Kind = iota + 1
	End
	AsyncBegin
	AsyncEnd
	// TrackInstant, TrackBegin and TrackEnd are Android 14's markers on a
	// process's named track (Trace.instantForTrack,
	// Trace.asyncTraceForTrackBegin and …End); Counter a counter's value.
	TrackInstant
	TrackBegin
	TrackEnd
	Counter
	// Instant is a thread's instant ("I|<tgid>|<name>"): a slice of
	// length 0 on the thread that wrote it.
	Instant
)

// EmptyName is the name of a slice whose begin names none, as trace
// processor calls it.
const EmptyName = "[empty slice name]"

// Marker is one marker line read.
type Marker struct {
	Kind Kind
	// TGID is the process the line names; 0 when it names none (an end,
	// "B|0|…").
	TGID int32
	// Name is a begin's or an async marker's; Cookie an async marker's.
	// Track is a named track's. All alias the line.
	Name, Cookie, Track []byte
}

// Parse reads one marker line (a trailing "\n" or NUL is no part of it);
// ok is false for anything that is no slice's begin, end or instant, nor
// a counter: other text, a malformed begin.
func Parse(line []byte) (m Marker, ok bool) {
	line = bytes.TrimRight(line, "\n\x00")
	if len(line) == 0 || len(line) > 1 && line[1] != '|' {
		return m, false
	}
	switch line[0] {
	case 'E':
		m.Kind = End
		if f, _, _ := bytes.Cut(line[min(2, len(line)):], []byte("|")); len(f) > 0 {
			m.TGID, _ = tgid(f)
		}
		return m, true
	case 'B':
		if len(line) < 2 {
			return m, false
		}
		f, name, _ := bytes.Cut(line[2:], []byte("|"))
		m.Kind, m.Name = Begin, name
		if len(name) == 0 {
			m.Name = []byte(EmptyName)
		}
		m.TGID, ok = tgid(f)
		return m, ok
	case 'S', 'F':
		return parseAsync(line)
	case 'N', 'G', 'H', 'C', 'I':
		return parseNamed(line)
	}
	return m, false
}

// tgid reads a process id: a number from 0 to MaxInt32.
func tgid(f []byte) (int32, bool) {
	v, err := strconv.ParseUint(string(f), 10, 31)
	return int32(v), err == nil
}

// parseAsync reads "S|<tgid>|<name>|<cookie>" or "F|…": the cookie is
// what follows the last '|', the name may hold '|'.
func parseAsync(line []byte) (m Marker, ok bool) {
	f := bytes.SplitN(line, []byte("|"), 3)
	if len(f) != 3 {
		return m, false
	}
	t, ok := tgid(f[1])
	i := bytes.LastIndexByte(f[2], '|')
	if !ok || t == 0 || i <= 0 || i == len(f[2])-1 {
		return m, false
	}
	m.Kind = AsyncBegin
	if line[0] == 'F' {
		m.Kind = AsyncEnd
	}
	m.TGID, m.Name, m.Cookie = t, f[2][:i], f[2][i+1:]
	return m, true
}

// mark is one begin or end a thread wrote: 16 bytes, a trace has millions.
type mark struct {
	ts  int64
	tid int32
	// name is, for a begin, its index in Collector.names; endMark for an
	// end.
	name int32
}

const endMark = -1

// name is a begin's process and name.
type name struct {
	pid  int32 // 0: the begin named none
	text string
}

// asyncMark is an async begin or end.
type asyncMark struct {
	mark
	key   string // process, name and cookie
	begin bool
}

// Collector keeps the begins and ends of every thread, and the async ones
// of every process, as trace.Analyze reads them (Marker is
// trace.Options.Marker). The zero value is ready.
type Collector struct {
	marks  []mark
	async  []asyncMark
	named  []namedMark
	inst   []mark // threads' instants
	te     trackevent.Decoder
	names  []name
	recent *[1 << 12]int32 // index + 1 of the last name of each hash
	sorted bool
	// Malformed counts the lines that look like a begin or an end of a
	// slice ('B', 'E', 'S', 'F', 'N', 'G', 'H' or 'I' first) and are none
	// ("B|", a tgid that is no number, "S|" without a cookie, "G|" without
	// a track).
	Malformed int
}

// Marker takes one marker line written by thread tid at boottime ts.
func (c *Collector) Marker(ts int64, tid int32, line []byte) {
	m, ok := Parse(line)
	if !ok {
		if len(line) > 0 && bytes.IndexByte([]byte("BESFNGHI"), line[0]) >= 0 {
			c.Malformed++
		}
		return
	}
	c.sorted = false
	switch m.Kind {
	case End:
		c.marks = append(c.marks, mark{ts: ts, tid: tid, name: endMark})
	case Begin:
		c.marks = append(c.marks, mark{ts: ts, tid: tid, name: c.intern(m.TGID, m.Name)})
	case TrackInstant, TrackBegin, TrackEnd:
		c.addNamed(ts, tid, m)
	case Instant:
		c.inst = append(c.inst, mark{ts: ts, tid: tid, name: c.intern(m.TGID, m.Name)})
	case Counter:
	default:
		k := strconv.Itoa(int(m.TGID)) + "|" + string(m.Name) + "|" + string(m.Cookie)
		c.async = append(c.async, asyncMark{mark: mark{ts: ts, tid: tid, name: c.intern(m.TGID, m.Name)}, key: k, begin: m.Kind == AsyncBegin})
	}
}

// intern is the index of a name of pid's text. A name recurs on most
// slices but a frame's (its id is in it): the last name of each hash is
// looked up, and a name not found is added, at most once per slice.
func (c *Collector) intern(pid int32, text []byte) int32 {
	if c.recent == nil {
		c.recent = new([1 << 12]int32)
	}
	h := uint32(2166136261) ^ uint32(pid) // FNV-1a
	for _, b := range text {
		h = (h ^ uint32(b)) * 16777619
	}
	slot := &c.recent[h%uint32(len(c.recent))]
	if k := *slot - 1; k >= 0 && c.names[k].pid == pid && c.names[k].text == string(text) {
		return k
	}
	if len(c.names) >= math.MaxInt32-1 {
		return 0 // more names than a trace's buffer can hold: never
	}
	k := int32(len(c.names))
	c.names = append(c.names, name{pid: pid, text: string(text)})
	*slot = k + 1
	return k
}

// Len is how many atrace markers of slices the Collector holds (a
// TrackEvent packet is none).
func (c *Collector) Len() int {
	if c == nil {
		return 0
	}
	return len(c.marks) + len(c.async) + len(c.named) + len(c.inst)
}

// Slice is a slice markers made, times on boottime in ns.
type Slice struct {
	Name string
	// PID is the process its begin named, or TID when it named none;
	// TID is the thread that wrote it, 0 for an async slice.
	PID, TID   int32
	Start, End int64
	// Depth counts the slices of the thread open when it began.
	Depth int
}

// Threads pairs each thread's begins and ends in time order (a thread's
// markers come in its CPUs' order, which a migration can interleave;
// markers of one time keep the order read) and hands fn each slice as it
// ends (ended true), then, thread by thread, each slice still open at the
// end of the trace, innermost last (ended false, End 0). It returns how
// many ends came with no slice open: their begins were before the trace.
func (c *Collector) Threads(fn func(s Slice, ended bool)) (endsWithoutBegin int) {
	if c == nil {
		return 0
	}
	if !c.sorted {
		slices.SortStableFunc(c.marks, func(x, y mark) int { return cmp.Or(cmp.Compare(x.tid, y.tid), cmp.Compare(x.ts, y.ts)) })
		c.sorted = true
	}
	var open []mark
	flush := func() {
		for i, b := range open {
			s := c.slice(b, b.tid)
			s.Depth = i
			fn(s, false)
		}
		open = open[:0]
	}
	for i, m := range c.marks {
		if i > 0 && m.tid != c.marks[i-1].tid {
			flush()
		}
		switch {
		case m.name != endMark:
			open = append(open, m)
		case len(open) == 0:
			endsWithoutBegin++
		default:
			s := c.slice(open[len(open)-1], m.tid)
			open = open[:len(open)-1]
			s.End, s.Depth = m.ts, len(open)
			fn(s, true)
		}
	}
	flush()
	return endsWithoutBegin
}

// slice is the slice begun by b on thread tid (0: async).
func (c *Collector) slice(b mark, tid int32) Slice {
	n := c.names[b.name]
	s := Slice{Name: n.text, PID: n.pid, TID: tid, Start: b.ts}
	if s.PID == 0 {
		s.PID = b.tid
	}
	return s
}

// Async pairs the async begins and ends in time order, by process, name
// and cookie (the latest begin open first), and hands fn each slice as it
// ends, then each left open (ended false), in no order; TID is 0.
func (c *Collector) Async(fn func(s Slice, ended bool)) {
	if c == nil {
		return
	}
	slices.SortStableFunc(c.async, func(x, y asyncMark) int { return cmp.Compare(x.ts, y.ts) })
	open := map[string][]mark{}
	for _, m := range c.async {
		if m.begin {
			open[m.key] = append(open[m.key], m.mark)
		} else if bs := open[m.key]; len(bs) > 0 {
			s := c.slice(bs[len(bs)-1], 0)
			s.End = m.ts
			open[m.key] = bs[:len(bs)-1]
			fn(s, true)
		}
	}
	for _, bs := range open {
		for _, b := range bs {
			fn(c.slice(b, 0), false)
		}
	}
}
