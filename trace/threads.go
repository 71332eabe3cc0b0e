package trace

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/trace/internal/threadlog"
)

// timeline is what one thread did: its states as a step function and its
// slices, on the trace clock.
type timeline struct {
	segs   []seg   // by start; each lasts until the next one starts
	slices []Slice // by start
	maxDur int64   // the longest slice, to bound searches by start
	// doFrames indexes the first slice naming each token (see
	// doFrameToken), made on first use: one scan of the slices, not one a
	// janky frame.
	doFrames map[int64]int
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
// the order they came, each CPU's in time order; see threadlog.Log.Each) and
// keeps of the thread's states and slices what the frames need: the
// states over the spans (the janky frames), the slices that overlap them,
// and the Choreographer#doFrame slices of the tokens with every slice
// under them and the doFrame slices around them. What the rest of the
// trace holds is replayed and let go, so a thread switched in millions of
// times costs the memory of its log. conv moves a boottime ns onto the
// trace clock.
func (b *builder) buildTimeline(tid int32, log *threadlog.Log, conv func(int64) int64, spans []span, tokens map[int64]bool) *timeline {
	states := newStateLog(spans)
	ss := b.newSliceStack(tid, tokens, slices.Clone(spans), nil)
	log.Each(func(e threadlog.Event) {
		e.Ts = conv(e.Ts)
		switch e.Kind {
		case threadlog.Begin:
			ss.begin(e.Arg, e.Ts)
		case threadlog.End:
			ss.end(e.Ts)
		default:
			states.event(e)
		}
		states.settle(e.Ts, ss.binders > 0)
	})
	ss.close()
	tl := &timeline{segs: states.close(), slices: ss.kept}
	tl.slices = append(tl.slices, b.trackSlices(tid, conv, spans, tokens, ss.doFrames)...)
	slices.SortStableFunc(tl.slices, func(x, y Slice) int { return cmp.Compare(x.Start, y.Start) })
	for _, s := range tl.slices {
		tl.maxDur = max(tl.maxDur, s.Dur())
	}
	return tl
}

// stateLog replays a thread's scheduling events into the segments of its
// states that overlap the spans.
type stateLog struct {
	segsOf     *overlap
	base, last ThreadState
	pending    seg // the segment under way
	binderCall bool
	segs       []seg
}

func newStateLog(spans []span) *stateLog {
	return &stateLog{
		segsOf: newOverlap(spans),
		base:   StateUnknown, last: StateUnknown,
		pending: seg{start: math.MinInt64, st: StateUnknown},
	}
}

// event takes a switch, a waking or a binder transaction.
func (s *stateLog) event(e threadlog.Event) {
	switch e.Kind {
	case threadlog.SwitchIn:
		s.base = StateRunning
	case threadlog.SwitchOut:
		s.base = ThreadState(e.St)
	case threadlog.Wake:
		if s.base != StateRunning && s.base != StateRunnable {
			s.base = StateRunnable
		}
	case threadlog.BinderCall:
		s.binderCall = true
	case threadlog.BinderReply:
		s.binderCall = false
	}
}

// settle begins a segment at ts when the state changed there; a sleep in a
// binder call or slice is StateBinder.
func (s *stateLog) settle(ts int64, inBinderSlice bool) {
	eff := s.base
	if (s.base == StateSleeping || s.base == StateUninterruptible) && (s.binderCall || inBinderSlice) {
		eff = StateBinder
	}
	if eff == s.last {
		return
	}
	// The segment that ends here is kept when a span needs it.
	if s.pending.start != math.MinInt64 && s.segsOf.with(s.pending.start, ts) {
		s.segs = append(s.segs, s.pending)
	}
	s.pending = seg{start: ts, st: eff}
	s.last = eff
}

// close ends the last segment with the trace and returns the segments kept.
func (s *stateLog) close() []seg {
	if s.pending.start != math.MinInt64 && s.segsOf.with(s.pending.start, math.MaxInt64) {
		s.segs = append(s.segs, s.pending)
	}
	return s.segs
}

// sliceStack replays a thread's (or a track's) slice begins and ends, in
// time order, and keeps the slices the janky frames need: those over the
// spans, the doFrames of the tokens with what is under them and the
// doFrames around them, and what lies within the spans of inside.
type sliceStack struct {
	b        *builder
	tid      int32
	tokens   map[int64]bool
	over     *overlap
	inside   []span
	open     []openSlice
	matched  int    // matching doFrames open
	binders  int    // binder slices open
	doFrames []span // the matching doFrames ended
	kept     []Slice
}

type openSlice struct {
	name   uint32
	start  int64
	binder bool
	match  bool // a doFrame of one of the tokens
	below  bool // one is under it
}

func (b *builder) newSliceStack(tid int32, tokens map[int64]bool, spans, inside []span) *sliceStack {
	return &sliceStack{b: b, tid: tid, tokens: tokens, over: newOverlap(spans), inside: inside}
}

func (s *sliceStack) begin(name uint32, ts int64) {
	n := s.b.names[name]
	o := openSlice{name: name, start: ts, binder: binderSlice(n)}
	if o.binder {
		s.binders++
	}
	if tok, ok := doFrameToken(n); ok && s.tokens[tok] {
		o.match = true
		s.matched++
	}
	s.open = append(s.open, o)
}

func (s *sliceStack) end(ts int64) {
	if len(s.open) == 0 {
		s.b.reject("slice_end_without_begin")
		return
	}
	o := s.open[len(s.open)-1]
	s.open = s.open[:len(s.open)-1]
	if o.binder {
		s.binders--
	}
	name := s.b.names[o.name]
	keep := s.over.with(o.start, ts) || s.matched > 0 || o.below && strings.HasPrefix(name, "Choreographer#doFrame") || s.within(o.start, ts)
	if o.match {
		s.matched--
		s.doFrames = append(s.doFrames, span{o.start, ts})
	}
	if n := len(s.open); n > 0 && (o.match || o.below) {
		s.open[n-1].below = true
	}
	if keep {
		s.kept = append(s.kept, Slice{Name: name, TID: s.tid, Start: o.start, End: ts, Depth: len(s.open)})
	}
}

// within tells whether [start, end) lies within one of the inside spans.
func (s *sliceStack) within(start, end int64) bool {
	for _, d := range s.inside {
		if start >= d.start && end <= d.end {
			return true
		}
	}
	return false
}

// close counts the slices still open.
func (s *sliceStack) close() { s.b.rejected["slice_unfinished"] += len(s.open) }

// trackSlices builds the TrackEvent slices of thread tid's tracks, keeping
// those buildTimeline keeps: over the spans, doFrames of the tokens and
// what is under them, and what lies within the doFrames (atrace's) given.
func (b *builder) trackSlices(tid int32, conv func(int64) int64, spans []span, tokens map[int64]bool, doFrames []span) []Slice {
	var out []Slice
	for uuid, info := range b.tracks {
		if !info.thread || info.tid != tid {
			continue
		}
		ss := b.newSliceStack(tid, tokens, slices.Clone(spans), doFrames)
		for _, e := range b.trackEvents(b.trackLogs[uuid], conv) {
			if e.kind == threadlog.Begin {
				ss.begin(e.name, e.ts)
			} else {
				ss.end(e.ts)
			}
		}
		ss.close()
		out = append(out, ss.kept...)
	}
	return out
}

// trackEv is a track's event on the trace clock.
type trackEv struct {
	ts   int64
	name uint32
	kind threadlog.Kind
}

// trackEvents are a track's events on the trace clock, in time order.
func (b *builder) trackEvents(log []teEvent, conv func(int64) int64) []trackEv {
	evs := make([]trackEv, 0, len(log))
	for _, e := range log {
		ns, ok := b.clocks.convert(e.at.ns, e.at.clock, Boottime)
		if !ok {
			b.reject("track_event_unknown_clock")
			continue
		}
		evs = append(evs, trackEv{conv(ns), e.name, e.kind})
	}
	slices.SortStableFunc(evs, func(x, y trackEv) int { return cmp.Compare(x.ts, y.ts) })
	return evs
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
	if tl.doFrames == nil {
		tl.doFrames = map[int64]int{}
		for k := len(tl.slices) - 1; k >= 0; k-- {
			if id, ok := doFrameToken(tl.slices[k].Name); ok {
				tl.doFrames[id] = k
			}
		}
	}
	var doFrame *Slice
	if k, ok := tl.doFrames[f.Token]; ok {
		// The outermost doFrame holding the match (the match can be the
		// nested resync slice).
		doFrame = tl.outermostDoFrame(&tl.slices[k])
	}
	type ranked struct {
		s   Slice
		key int64
	}
	var cands []ranked
	if doFrame != nil {
		from = doFrame.Name
		lo := sort.Search(len(tl.slices), func(k int) bool { return tl.slices[k].Start >= doFrame.Start })
		for k := lo; k < len(tl.slices); k++ {
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
	// A slice that ends after s starts at most maxDur before s's end.
	lo := sort.Search(len(tl.slices), func(k int) bool { return tl.slices[k].Start >= s.End-tl.maxDur })
	for k := lo; k < len(tl.slices); k++ {
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
