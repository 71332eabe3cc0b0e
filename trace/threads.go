package trace

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// timeline is what one thread did: its states as a step function and its
// slices, on the trace clock.
type timeline struct {
	segs   []seg   // by start; each lasts until the next one starts
	slices []Slice // by start
	maxDur int64   // the longest slice, to bound searches by start
}

type seg struct {
	start int64
	st    ThreadState
}

// buildTimeline replays a thread's events in time order. conv moves a
// boottime ns onto the trace clock.
func (b *builder) buildTimeline(tid int32, log *threadLog, conv func(int64) int64) *timeline {
	tl := &timeline{}
	var ev []tev
	if log != nil {
		ev = log.events()
		for i := range ev {
			ev[i].ts = conv(ev[i].ts)
		}
		sortStable(ev)
	}
	type open struct {
		name   uint32
		start  int64
		binder bool
	}
	var stack []open
	base, last := StateUnknown, StateUnknown
	binderCall := false
	binderSlices := 0
	for _, e := range ev {
		switch e.kind {
		case evSwitchIn:
			base = StateRunning
		case evSwitchOut:
			base = ThreadState(e.st)
		case evWake:
			if base != StateRunning && base != StateRunnable {
				base = StateRunnable
			}
		case evBinderCall:
			binderCall = true
		case evBinderReply:
			binderCall = false
		case evBegin:
			bi := binderSlice(b.names[e.arg])
			if bi {
				binderSlices++
			}
			stack = append(stack, open{name: e.arg, start: e.ts, binder: bi})
		case evEnd:
			if len(stack) == 0 {
				b.reject("slice_end_without_begin")
				continue
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if o.binder {
				binderSlices--
			}
			tl.slices = append(tl.slices, Slice{Name: b.names[o.name], TID: tid, Start: o.start, End: e.ts, Depth: len(stack)})
		}
		eff := base
		if (base == StateSleeping || base == StateUninterruptible) && (binderCall || binderSlices > 0) {
			eff = StateBinder
		}
		if eff != last {
			tl.segs = append(tl.segs, seg{start: e.ts, st: eff})
			last = eff
		}
	}
	b.rejected["slice_unfinished"] += len(stack)
	tl.slices = append(tl.slices, b.trackSlices(tid, conv)...)
	slices.SortStableFunc(tl.slices, func(x, y Slice) int { return cmp.Compare(x.Start, y.Start) })
	for _, s := range tl.slices {
		tl.maxDur = max(tl.maxDur, s.Dur())
	}
	return tl
}

// trackSlices builds the TrackEvent slices of thread tid's tracks.
func (b *builder) trackSlices(tid int32, conv func(int64) int64) []Slice {
	var out []Slice
	for uuid, info := range b.tracks {
		if !info.thread || info.tid != tid {
			continue
		}
		log := b.trackLogs[uuid]
		type ev struct {
			ts   int64
			name uint32
			kind uint8
		}
		evs := make([]ev, 0, len(log))
		for _, e := range log {
			ns, ok := b.clocks.convert(e.at.ns, e.at.clock, Boottime)
			if !ok {
				b.reject("track_event_unknown_clock")
				continue
			}
			evs = append(evs, ev{conv(ns), e.name, e.kind})
		}
		slices.SortStableFunc(evs, func(x, y ev) int { return cmp.Compare(x.ts, y.ts) })
		var stack []ev
		for _, e := range evs {
			if e.kind == evBegin {
				stack = append(stack, e)
				continue
			}
			if len(stack) == 0 {
				b.reject("slice_end_without_begin")
				continue
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			out = append(out, Slice{Name: b.names[o.name], TID: tid, Start: o.ts, End: e.ts, Depth: len(stack)})
		}
		b.rejected["slice_unfinished"] += len(stack)
	}
	return out
}

// binderSlice: a slice that stands for the thread waiting on a binder call
// it made (AIDL and HIDL client stubs, and the name Perfetto gives binder
// transactions).
func binderSlice(name string) bool {
	if name == "binder transaction" {
		return true
	}
	return (strings.HasPrefix(name, "AIDL::") || strings.HasPrefix(name, "HIDL::")) && strings.HasSuffix(name, "::client")
}

// states adds up the thread's states over [start, end).
func (tl *timeline) states(start, end int64) States {
	var s States
	if end <= start {
		return s
	}
	// The last segment starting at or before start.
	i := sort.Search(len(tl.segs), func(k int) bool { return tl.segs[k].start > start }) - 1
	t := start
	cur := StateUnknown
	if i >= 0 {
		cur = tl.segs[i].st
	}
	for k := i + 1; k < len(tl.segs) && tl.segs[k].start < end; k++ {
		s.Add(cur, tl.segs[k].start-t)
		t, cur = tl.segs[k].start, tl.segs[k].st
	}
	s.Add(cur, end-t)
	return s
}

// doFrameToken reads the vsync id of a `Choreographer#doFrame <id>` slice
// (Android 12+) or of its nested `Choreographer#doFrame - resynced to <id>
// in …`.
func doFrameToken(name string) (int64, bool) {
	rest, ok := strings.CutPrefix(name, "Choreographer#doFrame")
	if !ok {
		return 0, false
	}
	rest = strings.TrimPrefix(strings.TrimSpace(rest), "- resynced to ")
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		rest = rest[:i]
	}
	v, err := strconv.ParseInt(rest, 10, 64)
	return v, err == nil
}

// frameSlices picks the longest slices under the frame's
// Choreographer#doFrame on the thread; without one, the longest slices of
// the thread during the frame. from says which.
func (tl *timeline) frameSlices(f *Frame, top int) (out []Slice, from string) {
	var doFrame *Slice
	for k := range tl.slices {
		s := &tl.slices[k]
		if id, ok := doFrameToken(s.Name); ok && id == f.Token {
			// The outermost doFrame holding the match (the match can be
			// the nested resync slice).
			doFrame = tl.outermostDoFrame(s)
			break
		}
	}
	type ranked struct {
		s   Slice
		key int64
	}
	var cands []ranked
	if doFrame != nil {
		from = doFrame.Name
		for k := range tl.slices {
			s := &tl.slices[k]
			if s.Start > doFrame.End {
				break
			}
			// Under it: within its span on the same thread, whichever
			// source (atrace or TrackEvent) the slice came from.
			if s != doFrame && s.Start >= doFrame.Start && s.End <= doFrame.End {
				cands = append(cands, ranked{*s, s.Dur()})
			}
		}
	} else {
		from = "main thread during the frame (no Choreographer#doFrame " + strconv.FormatInt(f.Token, 10) + ")"
		lo := sort.Search(len(tl.slices), func(k int) bool { return tl.slices[k].Start >= f.Start-tl.maxDur })
		for _, s := range tl.slices[lo:] {
			if s.Start >= f.End {
				break
			}
			if ov := min(s.End, f.End) - max(s.Start, f.Start); ov > 0 {
				cands = append(cands, ranked{s, ov})
			}
		}
	}
	slices.SortStableFunc(cands, func(x, y ranked) int { return cmp.Compare(y.key, x.key) })
	for _, c := range cands[:min(top, len(cands))] {
		out = append(out, c.s)
	}
	return out, from
}

func (tl *timeline) outermostDoFrame(s *Slice) *Slice {
	best := s
	for k := range tl.slices {
		o := &tl.slices[k]
		if o.Start > s.Start {
			break
		}
		if o.Depth < best.Depth && o.End >= s.End && strings.HasPrefix(o.Name, "Choreographer#doFrame") {
			best = o
		}
	}
	return best
}
