package trace

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// DefaultTopSlices is how many slices a janky frame lists unless
// Options.TopSlices says otherwise.
const DefaultTopSlices = 5

// Options says what Analyze looks at.
type Options struct {
	// Package is the app: its processes' layers and main threads are
	// analysed. Empty: every process that drew frames.
	Package string
	// TopSlices is how many of the longest slices to list per janky frame
	// (DefaultTopSlices when 0).
	TopSlices int
	// MaxPacket bounds a packet's size (DefaultMaxPacket when 0).
	MaxPacket int
	// Marker, when set, is given every atrace marker line of every thread
	// in the order read (ts on boottime, tid its writer, text such as
	// "B|tgid|name"), of threads Analyze keeps none of too: packages
	// trace/frametiming and trace/sections pair them. With a Package, the
	// lines of a process already named another's are not given.
	Marker func(ts int64, tid int32, line []byte)
	// Packet, when set, is given every TracePacket whose sequence's state
	// is whole, with its time on boottime (ok false: none), for the
	// TrackEvent slices of trace/sections.
	Packet      func(pkt []byte, boottime int64, ok bool)
	MainThreads bool // keep the app's main threads whole, for Analysis.MainThread
}

// Analysis is what a Perfetto trace says about an app's frames: every
// FrameTimeline frame of its layers with Android's own jank classification,
// and for each janky frame what the app's main thread was doing. Times are
// on the trace clock (TraceClock, boottime on Android), in ns.
type Analysis struct {
	TraceClock Clock `json:"trace_clock"`
	// Start and End are the earliest and latest times in the trace.
	Start int64 `json:"start_ns"`
	End   int64 `json:"end_ns"`
	// Packets counts the trace's packets (those of compressed batches
	// included).
	Packets int `json:"packets"`
	// Device is the build fingerprint and Kernel the kernel release, when
	// the trace has its system info; SDK the Android API level when given.
	Device string `json:"device,omitempty"`
	Kernel string `json:"kernel,omitempty"`
	SDK    int    `json:"sdk,omitempty"`
	// Package is Options.Package; AppPIDs its processes found in the trace
	// (by process name, or by a layer named after the package).
	Package string  `json:"package,omitempty"`
	AppPIDs []int32 `json:"app_pids,omitempty"`
	// Sources lists what the trace holds: "frametimeline", "sched",
	// "atrace", "track_event", "process_tree".
	Sources []string `json:"sources"`
	// Layers summarises the analysed layers, by pid then name.
	Layers []Layer `json:"layers"`
	// Frames are the analysed layers' actual frames, by Time.
	Frames []Frame `json:"-"`
	// Janky are the janky ones among Frames, with their main thread's
	// states and slices.
	Janky []JankyFrame `json:"-"`
	// DisplayFrames counts SurfaceFlinger's actual display frames.
	DisplayFrames int `json:"display_frames"`
	// NotMeasured says why a part of the analysis is absent: "frametimeline"
	// (no frames of the app), "thread_states" (no scheduler events),
	// "slices" (no atrace or TrackEvent slices).
	NotMeasured map[string]string `json:"not_measured,omitempty"`
	// Rejected counts what was read but cannot be data, by reason: a frame
	// that never ended, an end without a start, a slice still open at the
	// end, an event whose time went backwards, a malformed packet …
	Rejected map[string]int `json:"rejected,omitempty"`
	// Skipped counts what was passed over unread (see Reader.Skipped).
	Skipped map[string]int `json:"skipped,omitempty"`
	// Traces counts the traces of a file that holds several one after
	// another (the protobuf framing lets `cat a b` make one, and a ring
	// buffer read twice holds the same packets twice); 0 for one trace.
	// A frame, event or slice more than one of them holds is counted
	// once, and ReadAgain counts what was read again, by kind.
	Traces    int            `json:"traces,omitempty"`
	ReadAgain map[string]int `json:"read_again,omitempty"`
	// Notes says what else a reader should know: data lost while tracing,
	// the first malformed packets (with offset and field), a file that
	// ended early.
	Notes []string `json:"notes,omitempty"`

	clocks     clockTable
	mainThread func(pid int32) *timeline
}

// Layer summarises one layer's actual frames.
type Layer struct {
	Name    string `json:"name"`
	PID     int32  `json:"pid"`
	Process string `json:"process,omitempty"`
	Frames  int    `json:"frames"`
	// Expected counts the layer's expected frames; Janky its frames with any
	// jank, AppJank those counted as the app's (AppJank).
	Expected int `json:"expected"`
	Janky    int `json:"janky"`
	AppJank  int `json:"app_jank"`
	// ByType counts frames per jank type name; a frame with two types
	// counts under both.
	ByType map[string]int `json:"by_type,omitempty"`
}

// JankyFrame is a janky frame with what its app's main thread (tid = pid)
// did meanwhile.
type JankyFrame struct {
	Frame
	// App tells whether the jank counts as the app's (AppJank).
	App bool `json:"app_jank"`
	// MainThread is the main thread's time per state over [Start, End);
	// nil when the trace has no scheduler events.
	MainThread *States `json:"main_thread,omitempty"`
	// Slices are the longest slices under the frame's
	// Choreographer#doFrame (by length), or without one the main thread's
	// slices during the frame (by their overlap with it).
	Slices []Slice `json:"slices,omitempty"`
	// SlicesFrom says where Slices come from: the doFrame slice's name, or
	// the fallback; empty when the thread has no slices.
	SlicesFrom string `json:"slices_from,omitempty"`
}

// Window is a span of time, such as a step: [Start, End) on Clock (the
// trace clock when 0). A frame is in it when its Time is.
type Window struct {
	Name  string
	Start int64
	End   int64
	Clock Clock
}

// Step is the analysis of one window.
type Step struct {
	Name string `json:"name"`
	// Start and End are the window on the trace clock.
	Start int64 `json:"start_ns"`
	End   int64 `json:"end_ns"`
	// Frames counts the analysed layers' frames in the window; Janky those
	// with any jank; AppJank those counted as the app's (AppJank).
	Frames  int `json:"frames"`
	Janky   int `json:"janky"`
	AppJank int `json:"app_jank"`
	// ByType counts frames per jank type name.
	ByType      map[string]int `json:"by_type,omitempty"`
	JankyFrames []JankyFrame   `json:"janky_frames,omitempty"`
	// NotMeasured is Analysis.NotMeasured; with "frametimeline" in it the
	// counts above are not measurements.
	NotMeasured map[string]string `json:"not_measured,omitempty"`
}

// Analyze reads a whole trace from r and analyses it, holding one packet of
// the file at a time plus what the analysis keeps (frames, process names,
// the events of threads that may be an app's main thread). On a malformed
// or truncated file it returns the analysis of every packet before the
// break along with the *FormatError.
func Analyze(r io.Reader, opts Options) (*Analysis, error) {
	b := newBuilder(opts)
	rd := NewReader(r)
	rd.SetMaxPacket(opts.MaxPacket)
	var ferr error
	for {
		p, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			ferr = err
			break
		}
		b.packet(p)
	}
	a := b.finish(rd.Skipped())
	if ferr == nil && b.packets == 0 {
		ferr = &FormatError{Offset: 0, Msg: "not a Perfetto trace: no TracePacket in it"}
	}
	if ferr != nil {
		a.Notes = append(a.Notes, "the analysis stops where the file breaks: "+ferr.Error())
	}
	return a, ferr
}

// finish turns what was kept into the Analysis.
func (b *builder) finish(skipped map[string]int) *Analysis {
	a := &Analysis{
		TraceClock:    b.traceClock,
		Packets:       b.packets,
		Device:        b.device,
		Kernel:        b.kernel,
		SDK:           b.sdk,
		Package:       b.opts.Package,
		DisplayFrames: b.displayFrames,
		NotMeasured:   map[string]string{},
		Rejected:      b.rejected,
		clocks:        b.clocks,
	}
	if len(skipped) > 0 {
		a.Skipped = skipped
	}
	b.rejected["frametimeline_no_end"] += len(b.ftOpen)
	b.actual = b.onceEach(b.actual)
	b.traceSpan(a)
	a.Sources = b.sources()
	app := b.appPIDs(a)
	b.frames(a, app)
	b.notMeasured(a)
	b.jankyFrames(a)
	b.notes(a)
	for k, v := range a.Rejected {
		if v == 0 {
			delete(a.Rejected, k)
		}
	}
	if len(a.Rejected) == 0 {
		a.Rejected = nil
	}
	if len(a.NotMeasured) == 0 {
		a.NotMeasured = nil
	}
	return a
}

// traceSpan sets the trace's span, on the trace clock.
func (b *builder) traceSpan(a *Analysis) {
	if b.bootSpan[0] != 0 {
		b.span[Boottime] = b.bootSpan
	}
	first := true
	for c, s := range b.span {
		lo, ok1 := b.clocks.convert(s[0], c, b.traceClock)
		hi, ok2 := b.clocks.convert(s[1], c, b.traceClock)
		if !ok1 || !ok2 {
			continue
		}
		if first || lo < a.Start {
			a.Start = lo
		}
		if first || hi > a.End {
			a.End = hi
		}
		first = false
	}
}

// sources names what the trace holds.
func (b *builder) sources() []string {
	var out []string
	for _, s := range []struct {
		on   bool
		name string
	}{{b.haveFT, "frametimeline"}, {b.haveSched, "sched"}, {b.haveAtrace, "atrace"}, {b.haveTrackEvent, "track_event"}, {b.haveProcTree, "process_tree"}} {
		if s.on {
			out = append(out, s.name)
		}
	}
	return out
}

// appPIDs finds the app's processes, by name and by the layers of its
// windows, and lists them in a.AppPIDs.
func (b *builder) appPIDs(a *Analysis) map[int32]bool {
	app := map[int32]bool{}
	p := b.opts.Package
	if p == "" {
		return app
	}
	for pid, n := range b.procNames {
		if isPackageProcess(n, p) {
			app[pid] = true
		}
	}
	for _, f := range b.actual {
		if isPackageLayer(f.layer, p) {
			app[f.pid] = true
		}
	}
	for pid := range app {
		a.AppPIDs = append(a.AppPIDs, pid)
	}
	slices.Sort(a.AppPIDs)
	return app
}

// frames turns the analysed layers' actual frames into a.Frames, by time,
// and sums them up per layer in a.Layers.
func (b *builder) frames(a *Analysis, app map[int32]bool) {
	layers := map[expKey]*Layer{} // token unused
	for k := range b.expected {
		if b.opts.Package != "" && !app[k.pid] {
			continue
		}
		layerOf(layers, k.pid, k.layer, b.procNames).Expected++
	}
	for _, rf := range b.actual {
		if b.opts.Package != "" && !app[rf.pid] {
			continue
		}
		f, ok := b.frame(&rf)
		if !ok {
			b.reject("frametimeline_unknown_clock")
			continue
		}
		a.Frames = append(a.Frames, f)
		layerOf(layers, rf.pid, rf.layer, b.procNames).count(&f)
	}
	slices.SortStableFunc(a.Frames, func(x, y Frame) int { return cmp.Compare(x.Time(), y.Time()) })
	for _, l := range layers {
		a.Layers = append(a.Layers, *l)
	}
	slices.SortFunc(a.Layers, func(x, y Layer) int {
		return cmp.Or(cmp.Compare(x.PID, y.PID), cmp.Compare(x.Name, y.Name))
	})
}

// frame is an actual frame on the trace clock, with its expected span and
// its display frame's jank; false when its clock is not related to the
// trace clock.
func (b *builder) frame(rf *rawFrame) (Frame, bool) {
	conv := func(at stamp) (int64, bool) { return b.clocks.convert(at.ns, at.clock, b.traceClock) }
	start, ok1 := conv(rf.at)
	end, ok2 := conv(rf.end)
	if !ok1 || !ok2 {
		return Frame{}, false
	}
	f := Frame{
		Layer: rf.layer, PID: rf.pid, Token: rf.token, DisplayToken: rf.dtoken,
		Start: start, End: end, Jank: rf.jank, Present: rf.pres, OnTimeFinish: rf.onTime,
		GPUComposite: rf.gpu, Prediction: rf.pred,
	}
	if e, ok := b.expected[expKey{rf.pid, rf.token, rf.layer}]; ok {
		es, ok1 := conv(e[0])
		ee, ok2 := conv(e[1])
		if ok1 && ok2 {
			f.ExpectedStart, f.ExpectedEnd = es, ee
		}
	}
	if dj, ok := b.displayJank[rf.dtoken]; ok {
		f.DisplayJank = &dj
	}
	return f, true
}

// count adds one of the layer's actual frames.
func (l *Layer) count(f *Frame) {
	l.Frames++
	if !f.Jank.Janky() {
		return
	}
	l.Janky++
	if f.Jank.App() {
		l.AppJank++
	}
	for _, n := range f.Jank.Names() {
		if l.ByType == nil {
			l.ByType = map[string]int{}
		}
		l.ByType[n]++
	}
}

// notMeasured names the parts of the analysis the trace cannot give.
func (b *builder) notMeasured(a *Analysis) {
	switch {
	case !b.haveFT:
		a.NotMeasured["frametimeline"] = "the trace has no FrameTimeline events (Android 12+, data source android.surfaceflinger.frametimeline)"
	case len(a.Frames) == 0 && b.opts.Package != "":
		a.NotMeasured["frametimeline"] = fmt.Sprintf("no FrameTimeline frames of %s (no layer of its processes %v)", b.opts.Package, a.AppPIDs)
	case len(a.Frames) == 0:
		a.NotMeasured["frametimeline"] = "the FrameTimeline events hold no complete app frame"
	}
	if !b.haveSched {
		a.NotMeasured["thread_states"] = "the trace has no sched_switch or sched_waking events (ftrace sched/sched_switch off)"
	}
	if !b.haveAtrace && !b.haveTrackEvent {
		a.NotMeasured["slices"] = "the trace has no atrace (ftrace/print) or TrackEvent slices"
	}
}

// jankyFrames gives each janky frame of a.Frames what its process's main
// thread did meanwhile, in a.Janky.
func (b *builder) jankyFrames(a *Analysis) {
	top := b.opts.TopSlices
	if top <= 0 {
		top = DefaultTopSlices
	}
	toTrace := func(ns int64) int64 {
		v, _ := b.clocks.convert(ns, Boottime, b.traceClock)
		return v
	}
	if b.traceClock != Boottime && !b.clocks.has(Boottime, b.traceClock) {
		a.Notes = append(a.Notes, fmt.Sprintf("ftrace times are boottime and the trace clock is %v, with no clock snapshot between them: thread states and slices are left out", b.traceClock))
		b.haveSched, b.haveAtrace, b.haveTrackEvent = false, false, false
	}
	spans, tokens := jankySpans(a.Frames)
	for i := 0; b.opts.MainThreads && i < len(a.AppPIDs); i++ {
		spans[a.AppPIDs[i]] = append(spans[a.AppPIDs[i]], span{-1 << 62, 1 << 62})
	}
	tls := map[int32]*timeline{}
	a.mainThread = func(pid int32) *timeline {
		if tls[pid] == nil { // The timeline holds what the frames need; the log goes.
			tls[pid] = b.buildTimeline(pid, b.threads[pid], toTrace, spans[pid], tokens[pid])
			delete(b.threads, pid)
		}
		return tls[pid]
	}
	for i := 0; b.opts.MainThreads && i < len(a.AppPIDs); i++ {
		a.mainThread(a.AppPIDs[i]) // now, for Rejected to count what its slices reject
	}
	for i := range a.Frames {
		f := &a.Frames[i]
		if !f.Jank.Janky() {
			continue
		}
		jf := JankyFrame{Frame: *f, App: f.Jank.App()}
		if b.haveSched {
			st := a.mainThread(f.PID).states(f.Start, f.End)
			jf.MainThread = &st
		}
		if len(a.mainThread(f.PID).slices) > 0 {
			jf.Slices, jf.SlicesFrom = a.mainThread(f.PID).frameSlices(f, top)
		}
		a.Janky = append(a.Janky, jf)
	}
}

// jankySpans are each process's janky frames: the spans and tokens its main
// thread's timeline is kept for.
func jankySpans(frames []Frame) (map[int32][]span, map[int32]map[int64]bool) {
	spans := map[int32][]span{}
	tokens := map[int32]map[int64]bool{}
	for i := range frames {
		f := &frames[i]
		if !f.Jank.Janky() {
			continue
		}
		spans[f.PID] = append(spans[f.PID], span{f.Start, f.End})
		if tokens[f.PID] == nil {
			tokens[f.PID] = map[int64]bool{}
		}
		tokens[f.PID][f.Token] = true
	}
	return spans, tokens
}

// notes says what else a reader should know, and what was read again.
func (b *builder) notes(a *Analysis) {
	if b.dataLoss {
		a.Notes = append(a.Notes, "data was lost while tracing (a ring buffer overwritten or packets dropped): thread states near the loss may be wrong")
	}
	if b.errCount > 0 {
		a.Notes = append(a.Notes, fmt.Sprintf("%d malformed packets skipped; the first: %s", b.errCount, strings.Join(b.errs, "; ")))
	}
	if b.compressed > 0 {
		a.Notes = append(a.Notes, fmt.Sprintf("%d packets came out of compressed batches", b.compressed))
	}
	var again []string
	for _, k := range sortedKeys(b.dups) {
		again = append(again, fmt.Sprintf("%s %d", k, b.dups[k]))
	}
	switch {
	case b.part > 0:
		a.Traces = b.part + 1
		a.Notes = append(a.Notes, fmt.Sprintf("the file holds %d traces one after another (concatenated, or a ring buffer read twice): what more than one of them holds is counted once; read again: %s",
			a.Traces, orNone(strings.Join(again, ", "))))
	case len(again) > 0:
		a.Notes = append(a.Notes, "the trace holds frames more than once (the same frame, start and end, again): each is counted once; read again: "+strings.Join(again, ", "))
	}
	if len(b.dups) > 0 {
		a.ReadAgain = b.dups
	}
}

// frameID is what makes an actual surface frame the frame it is: its
// layer's process and name, its token and its display frame's token
// (FrameTimelineEvent.ActualSurfaceFrameStart), and its start, which
// tells apart two frames of one token on one layer in one display frame
// (a buffer and a transaction without one). A trace that holds a frame
// twice holds it with all of them the same.
type frameID struct {
	pid           int32
	layer         string
	token, dtoken int64
	at            stamp
}

// onceEach keeps the first of frames that are the same frame (a file that
// holds two traces holds their frames twice), in the order they came.
func (b *builder) onceEach(frames []rawFrame) []rawFrame {
	id := func(f *rawFrame) frameID { return frameID{f.pid, f.layer, f.token, f.dtoken, f.at} }
	less := func(x, y frameID) int {
		return cmp.Or(cmp.Compare(x.pid, y.pid), cmp.Compare(x.layer, y.layer), cmp.Compare(x.token, y.token), cmp.Compare(x.dtoken, y.dtoken),
			cmp.Compare(x.at.clock, y.at.clock), cmp.Compare(x.at.ns, y.at.ns))
	}
	order := make([]int32, len(frames))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(i, j int32) int { return less(id(&frames[i]), id(&frames[j])) })
	again := make([]bool, len(frames))
	for k := 1; k < len(order); k++ {
		if id(&frames[order[k]]) == id(&frames[order[k-1]]) {
			again[order[k]] = true
		}
	}
	out := frames[:0]
	for i := range frames {
		if again[i] {
			b.readAgain("frames")
			continue
		}
		out = append(out, frames[i])
	}
	return out
}

func layerOf(m map[expKey]*Layer, pid int32, name string, procs map[int32]string) *Layer {
	k := expKey{pid: pid, layer: name}
	l := m[k]
	if l == nil {
		l = &Layer{Name: name, PID: pid, Process: procs[pid]}
		m[k] = l
	}
	return l
}

// MainThread is pid's main thread (Options.MainThreads): its states over [start, end) (trace clock) and all its slices.
func (a *Analysis) MainThread(pid int32, start, end int64) (States, []Slice) {
	return a.mainThread(pid).states(start, end), a.mainThread(pid).slices
}

// Convert moves a time from one clock onto the trace clock, with the trace's
// clock snapshots.
func (a *Analysis) Convert(ns int64, from Clock) (int64, error) {
	if from == 0 {
		from = a.TraceClock
	}
	v, ok := a.clocks.convert(ns, from, a.TraceClock)
	if !ok {
		return 0, fmt.Errorf("trace: no clock snapshot relates %v to the trace clock %v", from, a.TraceClock)
	}
	return v, nil
}

// ConvertTo moves a time from the trace clock onto another clock, with the
// trace's clock snapshots (the inverse of Convert).
func (a *Analysis) ConvertTo(ns int64, to Clock) (int64, error) {
	if to == 0 {
		to = a.TraceClock
	}
	v, ok := a.clocks.convert(ns, a.TraceClock, to)
	if !ok {
		return 0, fmt.Errorf("trace: no clock snapshot relates the trace clock %v to %v", a.TraceClock, to)
	}
	return v, nil
}

// All is the analysis of the whole trace as one step named "trace".
func (a *Analysis) All() *Step {
	s, _ := a.Window(Window{Name: "trace", Start: a.Start, End: a.End + 1})
	return s
}

// Window analyses the frames of one window. The error says when the
// window's clock cannot be related to the trace clock.
func (a *Analysis) Window(w Window) (*Step, error) {
	start, err := a.Convert(w.Start, w.Clock)
	if err != nil {
		return nil, err
	}
	end, err := a.Convert(w.End, w.Clock)
	if err != nil {
		return nil, err
	}
	s := &Step{Name: w.Name, Start: start, End: end, NotMeasured: a.NotMeasured}
	lo := sort.Search(len(a.Frames), func(i int) bool { return a.Frames[i].Time() >= start })
	for _, f := range a.Frames[lo:] {
		if f.Time() >= end {
			break
		}
		s.Frames++
		if !f.Jank.Janky() {
			continue
		}
		s.Janky++
		if f.Jank.App() {
			s.AppJank++
		}
		if s.ByType == nil {
			s.ByType = map[string]int{}
		}
		for _, n := range f.Jank.Names() {
			s.ByType[n]++
		}
	}
	for _, jf := range a.Janky {
		if t := jf.Time(); t >= start && t < end {
			s.JankyFrames = append(s.JankyFrames, jf)
		}
	}
	return s, nil
}
