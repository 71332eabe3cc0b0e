package trace

import (
	"cmp"
	"math"
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

// span is [start, end) on the trace clock.
type span struct{ start, end int64 }

// overlap answers, for spans that begin ever later, whether one of a set
// of spans overlaps them.
type overlap struct {
	spans  []span // by start
	next   int
	maxEnd int64
}

func newOverlap(spans []span) *overlap {
	slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.start, y.start) })
	return &overlap{spans: spans, maxEnd: math.MinInt64}
}

// with reports whether one of the spans overlaps [a, b); b must not be
// less than in the calls before.
func (o *overlap) with(a, b int64) bool {
	for o.next < len(o.spans) && o.spans[o.next].start < b {
		o.maxEnd = max(o.maxEnd, o.spans[o.next].end)
		o.next++
	}
	return o.maxEnd > a
}

// buildTimeline replays a thread's events in time order (they were kept in
// the order they came, each CPU's in time order; see threadLog.each) and
// keeps of the thread's states and slices what the frames need: the
// states over the spans (the janky frames), the slices that overlap them,
// and the Choreographer#doFrame slices of the tokens with every slice
// under them and the doFrame slices around them. What the rest of the
// trace holds is replayed and let go, so a thread switched in millions of
// times costs the memory of its log. conv moves a boottime ns onto the
// trace clock.
func (b *builder) buildTimeline(tid int32, log *threadLog, conv func(int64) int64, spans []span, tokens map[int64]bool) *timeline {
	tl := &timeline{}
	type open struct {
		name   uint32
		start  int64
		binder bool
		match  bool // a doFrame of one of the tokens
		below  bool // one is under it
	}
	var stack []open
	matched := 0 // matching doFrames on the stack
	segsOf, slicesOf := newOverlap(spans), newOverlap(slices.Clone(spans))
	var doFrames []span // the matching doFrames
	base, last := StateUnknown, StateUnknown
	pending := seg{start: math.MinInt64, st: StateUnknown}
	binderCall := false
	binderSlices := 0
	log.each(func(e tev) {
		e.ts = conv(e.ts)
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
			name := b.names[e.arg]
			bi := binderSlice(name)
			if bi {
				binderSlices++
			}
			o := open{name: e.arg, start: e.ts, binder: bi}
			if tok, ok := doFrameToken(name); ok && tokens[tok] {
				o.match = true
				matched++
			}
			stack = append(stack, o)
		case evEnd:
			if len(stack) == 0 {
				b.reject("slice_end_without_begin")
				break
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if o.binder {
				binderSlices--
			}
			name := b.names[o.name]
			keep := slicesOf.with(o.start, e.ts) || matched > 0 || o.below && strings.HasPrefix(name, "Choreographer#doFrame")
			if o.match {
				matched--
				doFrames = append(doFrames, span{o.start, e.ts})
			}
			if n := len(stack); n > 0 && (o.match || o.below) {
				stack[n-1].below = true
			}
			if keep {
				tl.slices = append(tl.slices, Slice{Name: name, TID: tid, Start: o.start, End: e.ts, Depth: len(stack)})
			}
		}
		eff := base
		if (base == StateSleeping || base == StateUninterruptible) && (binderCall || binderSlices > 0) {
			eff = StateBinder
		}
		if eff != last {
			// The segment that ends here is kept when a span needs it.
			if pending.start != math.MinInt64 && segsOf.with(pending.start, e.ts) {
				tl.segs = append(tl.segs, pending)
			}
			pending = seg{start: e.ts, st: eff}
			last = eff
		}
	})
	if pending.start != math.MinInt64 && segsOf.with(pending.start, math.MaxInt64) {
		tl.segs = append(tl.segs, pending)
	}
	b.rejected["slice_unfinished"] += len(stack)
	tl.slices = append(tl.slices, b.trackSlices(tid, conv, spans, tokens, doFrames)...)
	slices.SortStableFunc(tl.slices, func(x, y Slice) int { return cmp.Compare(x.Start, y.Start) })
	for _, s := range tl.slices {
		tl.maxDur = max(tl.maxDur, s.Dur())
	}
	return tl
}

// trackSlices builds the TrackEvent slices of thread tid's tracks, keeping
// those buildTimeline keeps: over the spans, doFrames of the tokens and
// what is under them, and what lies within the doFrames (atrace's) given.
func (b *builder) trackSlices(tid int32, conv func(int64) int64, spans []span, tokens map[int64]bool, doFrames []span) []Slice {
	var out []Slice
	within := func(s, e int64) bool {
		for _, d := range doFrames {
			if s >= d.start && e <= d.end {
				return true
			}
		}
		return false
	}
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
		type open struct {
			ev
			match, below bool
		}
		var stack []open
		matched := 0
		of := newOverlap(slices.Clone(spans))
		for _, e := range evs {
			if e.kind == evBegin {
				o := open{ev: e}
				if tok, ok := doFrameToken(b.names[e.name]); ok && tokens[tok] {
					o.match = true
					matched++
				}
				stack = append(stack, o)
				continue
			}
			if len(stack) == 0 {
				b.reject("slice_end_without_begin")
				continue
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			name := b.names[o.name]
			keep := of.with(o.ts, e.ts) || matched > 0 || o.below && strings.HasPrefix(name, "Choreographer#doFrame") || within(o.ts, e.ts)
			if o.match {
				matched--
			}
			if n := len(stack); n > 0 && (o.match || o.below) {
				stack[n-1].below = true
			}
			if keep {
				out = append(out, Slice{Name: name, TID: tid, Start: o.ts, End: e.ts, Depth: len(stack)})
			}
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
