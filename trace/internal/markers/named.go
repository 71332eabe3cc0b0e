package markers

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"

	"github.com/perfgate/perfgate/trace/internal/trackevent"
)

// parseNamed reads Android 14's markers on a process's named track and
// counters, as trace processor's ParseSystraceTracePoint does
// (google/perfetto src/trace_processor/importers/systrace/systrace_parser.h):
// fields end at a '|', each marker needs a tgid that is a number,
//   - "N|<tgid>|<track>|<name>", an instant: a track and a name, neither
//     empty (the name ends at its first '|');
//   - "G|<tgid>|<track>|<name>|<cookie>", a begin: a track, a name and
//     a cookie that is a number;
//   - "H|<tgid>|<track>|<cookie>" or "H|<tgid>|<track>|<name>|<cookie>",
//     an end: a track and a cookie, the last of the two fields after the
//     track that is not empty;
//   - "C|<tgid>|<name>|<value>[|<group>]", a counter: a name and a value
//     that is a number (Chromium's group is ignored);
//   - "I|<tgid>|<name>", a thread's instant: a name.

func parseNamed(line []byte) (m Marker, ok bool) {
	f := bytes.Split(line, []byte("|"))
	field := func(i int) []byte {
		if i < len(f) {
			return f[i]
		}
		return nil
	}
	if len(f[0]) != 1 {
		return m, false
	}
	if m.TGID, ok = tgid(field(1)); !ok || len(field(2)) == 0 { // N, G, H: a track; C, I: a name
		return m, false
	}
	number := func(b []byte) bool { _, err := strconv.ParseInt(string(b), 10, 64); return err == nil }
	switch line[0] {
	case 'N':
		m.Kind, m.Track, m.Name = TrackInstant, f[2], field(3)
		return m, len(m.Name) > 0
	case 'G':
		m.Kind, m.Track, m.Name, m.Cookie = TrackBegin, f[2], field(3), field(4)
		return m, len(m.Name) > 0 && number(m.Cookie)
	case 'I':
		m.Kind, m.Name = Instant, f[2]
		return m, true
	case 'H':
		m.Kind, m.Track, m.Cookie = TrackEnd, f[2], field(4)
		if len(m.Cookie) == 0 {
			m.Cookie = field(3)
		}
		return m, number(m.Cookie)
	}
	m.Kind, m.Name = Counter, f[2]
	return m, number(field(3))
}

// namedMark is a marker on a named track.
type namedMark struct {
	ts   int64
	tid  int32
	kind Kind
	pid  int32
	// track names the process's track; name, a begin's or an instant's,
	// is its index in Collector.names; cookie pairs a begin with its end.
	track  string
	name   int32
	cookie int64
}

func (c *Collector) addNamed(ts int64, tid int32, m Marker) {
	c.sorted = false
	cookie, _ := strconv.ParseInt(string(m.Cookie), 10, 64)
	n := namedMark{ts: ts, tid: tid, kind: m.Kind, pid: m.TGID, track: string(m.Track), cookie: cookie, name: endMark}
	if m.Kind != TrackEnd {
		n.name = c.intern(m.TGID, m.Name)
	}
	c.named = append(c.named, n)
}

// Packet takes one TracePacket, as trace.Analyze gives it
// (trace.Options.Packet): its TrackEvent slices are the Collector's too.
func (c *Collector) Packet(pkt []byte, boottime int64, ok bool) { c.te.Packet(pkt, boottime, ok) }

// TrackSlice is a slice on a track: a named track's, or a TrackEvent
// track's.
type TrackSlice struct {
	Slice
	// Track is the track's name ("" for a TrackEvent thread track
	// without one).
	Track string
}

// Tracks pairs the slices of named tracks (Android 14's markers: the same
// process, track and cookie pair a begin and an end, the latest begin
// first; an instant is a slice of length 0) and of TrackEvent tracks, and
// hands fn each slice as it ends (ended true), then each left open (ended
// false, End 0). A named track's slice has TID 0, whichever thread wrote
// it: trace processor puts it on a process's track. It returns how many
// ends came with no slice open. A thread's instant ("I|…") comes too,
// as a slice of length 0 of its thread, on no named track.
func (c *Collector) Tracks(fn func(s TrackSlice, ended bool)) (endsWithoutBegin int) {
	if c == nil {
		return 0
	}
	slices.SortStableFunc(c.named, func(x, y namedMark) int { return cmp.Compare(x.ts, y.ts) })
	type key struct {
		pid    int32
		track  string
		cookie int64
	}
	open := map[key][]namedMark{}
	var order []key
	slice := func(b namedMark) TrackSlice {
		n := c.names[b.name]
		return TrackSlice{Slice: Slice{Name: n.text, PID: b.pid, Start: b.ts}, Track: b.track}
	}
	for _, m := range c.named {
		k := key{m.pid, m.track, m.cookie}
		switch m.kind {
		case TrackInstant:
			s := slice(m)
			s.End = m.ts
			fn(s, true)
		case TrackBegin:
			if len(open[k]) == 0 {
				order = append(order, k)
			}
			open[k] = append(open[k], m)
		default:
			bs := open[k]
			if len(bs) == 0 {
				endsWithoutBegin++
				continue
			}
			s := slice(bs[len(bs)-1])
			open[k] = bs[:len(bs)-1]
			s.End = m.ts
			fn(s, true)
		}
	}
	for _, k := range order {
		for _, b := range open[k] {
			fn(slice(b), false)
		}
		open[k] = nil
	}
	for _, m := range c.inst {
		s := c.slice(m, m.tid)
		s.End = s.Start
		fn(TrackSlice{Slice: s}, true)
	}
	endsWithoutBegin += c.te.Slices(func(s trackevent.Slice, ended bool) {
		fn(TrackSlice{Slice: Slice{Name: s.Name, PID: s.PID, TID: s.TID, Start: s.Start, End: s.End}, Track: s.Track}, ended)
	})
	return endsWithoutBegin
}
