// Package causes says why a step's frames janked, from outside the app:
// each janky frame's phases (from the framestats stage columns), the
// main-thread message that delayed it (Looper's own slow-message log), the
// stacks the profiler sampled while it drew, and the app's ANRs; per step,
// the longest messages grouped by what ran them ("top blockers") and the
// most sampled stacks. It is pure: the session (package perftest) reads the
// device and hands the pieces to Attribute.
//
//	c := causes.Attribute(causes.Input{
//		Start: st.DeviceStartNs, End: st.DeviceEndNs,
//		Frames: frames, Summary: st.FrameStats,
//		Blocks: blocks, Samples: samples, ANRs: anrs,
//	})
//	fmt.Println(c.Line()) // "4 late in layout; top block 166 ms in com.x.FeedAdapter.onBindViewHolder"
//
// How the pieces meet: a frame's time window runs from its IntendedVsync to
// its FrameCompleted (for SurfaceFlinger frames, from the previous present
// to its own); the block tied to a frame is the message that overlaps that
// window most (a message just before the vsync delays the frame, the
// frame's own Choreographer message draws it); a frame's stack is the one
// sampled most often inside its window, and a block's inside the block.
// Every time is on the device's monotonic clock.
package causes

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/android/profiler"
	"github.com/perfgate/perfgate/frames"
)

// Sources of causes, the keys of Step.NotMeasured.
const (
	SourcePhases = "phases"
	SourceBlocks = "blocks"
	SourceStacks = "stacks"
	SourceANRs   = "anrs"
)

// Step is why a step's frames janked: each janky frame's phases, the
// main-thread message that delayed it and the stack sampled while it drew;
// the step's slow messages grouped by handler ("top blockers"), its most
// sampled stacks, and the app's ANRs.
type Step struct {
	// Frames are the step's janky frames, under any jank definition, in
	// time order.
	Frames []Frame `json:"frames,omitempty"`
	// Phases counts the janky frames of the default jank definition by the
	// phase each spent longest in.
	Phases map[frames.Phase]int `json:"phases,omitempty"`
	// Blocks are the main thread's messages Looper logged as slow in the
	// step, in time order.
	Blocks      []Block   `json:"blocks,omitempty"`
	TopBlockers []Blocker `json:"top_blockers,omitempty"`
	TopStacks   []Stack   `json:"top_stacks,omitempty"`
	ANRs        []ANR     `json:"anrs,omitempty"`
	// NotMeasured names each source of causes (SourcePhases, SourceBlocks,
	// SourceStacks, SourceANRs) the step has nothing from, and why.
	NotMeasured map[string]string `json:"not_measured,omitempty"`
}

// Frame is one janky frame and why it janked.
type Frame struct {
	// AtS is the frame's time since the step began; TimeNs the same on the
	// device clock (IntendedVsync, or the present time of SurfaceFlinger
	// frames).
	AtS    float64 `json:"at_s"`
	TimeNs int64   `json:"time_ns"`
	// DurationMs is FrameCompleted − IntendedVsync (gfxinfo frames).
	DurationMs float64 `json:"duration_ms,omitempty"`
	// Janks are the definitions that counted the frame: "deadline_missed",
	// "perfdog", "perfdog_big", "chromium".
	Janks []string `json:"janks"`
	// Phases are the frame's phases, Phase the longest (gfxinfo frames
	// with every stage column).
	Phases *frames.Phases `json:"phases,omitempty"`
	Phase  frames.Phase   `json:"phase,omitempty"`
	// Block is the index in Step.Blocks of the slow message that overlapped
	// the frame most, nil for none.
	Block *int `json:"block,omitempty"`
	// Unexplained says why no block is tied to the frame ("" when one is): its lateness was
	// RenderThread work, no slow message overlapped it, blocks not measured, ….
	Unexplained string `json:"unexplained,omitempty"`
	// Stack is the stack sampled most often while the frame drew, folded
	// (outermost first, ";"-separated): StackHits of the StackSamples
	// samples inside the frame. AppFrame is its innermost frame of the app's
	// own code.
	Stack        string `json:"stack,omitempty"`
	StackHits    int    `json:"stack_hits,omitempty"`
	StackSamples int    `json:"stack_samples,omitempty"`
	AppFrame     string `json:"app_frame,omitempty"`
}

// Block is one message the app's main thread ran slowly, as Looper logged
// it: "Slow dispatch took 41ms main h=… c=… m=0".
type Block struct {
	// AtS is when it started, since the step began; StartNs and EndNs are
	// on the device's monotonic clock (the end is when Looper logged it).
	AtS     float64 `json:"at_s"`
	StartNs int64   `json:"start_ns"`
	EndNs   int64   `json:"end_ns"`
	Ms      int64   `json:"ms"`
	// Handler, Callback (its class, without the identity hash) and What
	// are the message.
	Handler  string `json:"handler"`
	Callback string `json:"callback,omitempty"`
	What     int    `json:"what"`
	// Frames counts the step's janky frames tied to the block.
	Frames int `json:"frames"`
	// Stack is the stack sampled most often inside the block, folded, and
	// AppFrame its innermost frame of the app's own code.
	Stack    string `json:"stack,omitempty"`
	AppFrame string `json:"app_frame,omitempty"`
}

// Blocker is the step's blocks of one kind: one handler and callback
// class, and where in the app's code they ran when the stacks tell.
type Blocker struct {
	Handler  string `json:"handler"`
	Callback string `json:"callback,omitempty"`
	AppFrame string `json:"app_frame,omitempty"`
	Count    int    `json:"count"`
	TotalMs  int64  `json:"total_ms"`
	MaxMs    int64  `json:"max_ms"`
	// Frames counts the janky frames the blocks are tied to.
	Frames int    `json:"frames"`
	Stack  string `json:"stack,omitempty"`
}

// Where is where the blocks ran, in the words of failure lines: their app
// frame, else their callback's or handler's class.
func (b Blocker) Where() string {
	switch {
	case b.AppFrame != "":
		return b.AppFrame
	case b.Callback != "":
		return b.Callback
	}
	return b.Handler
}

// Stack is one folded stack and how often the profiler sampled it.
type Stack struct {
	Stack    string `json:"stack"`
	Samples  int    `json:"samples"`
	AppFrame string `json:"app_frame,omitempty"`
}

// ANR is one "Application Not Responding" of the app (logcat
// "ActivityManager: ANR in …").
type ANR struct {
	AtS    float64 `json:"at_s"`
	TimeNs int64   `json:"time_ns"`
	PID    int     `json:"pid"`
	Reason string  `json:"reason,omitempty"`
	// MainStack is the main thread's stack from the ANR's stack dump,
	// innermost first, where the device let it be read.
	MainStack []string `json:"main_stack,omitempty"`
}

// Sample is one sample of the app's main thread: its time, the stack
// folded (profiler.FoldStack) and the stack's innermost frame of the app's
// own code ("" for none).
type Sample struct {
	TimeNs   int64
	Stack    string
	AppFrame string
}

// SampleOf makes a profiler's sample of package pkg's main thread a Sample.
func SampleOf(s profiler.StackSample, pkg string) Sample {
	app := ""
	if i := profiler.AppFrame(s.Frames, pkg); i >= 0 {
		app = profiler.FrameName(s.Frames[i])
	}
	return Sample{TimeNs: s.TimeNs, Stack: profiler.FoldStack(s.Frames), AppFrame: app}
}

// BlockOf makes a Looper slow-dispatch line logged at device time endNs a
// Block: it ran for the ms the line gives, up to when it was logged.
func BlockOf(l logcat.LooperSlow, endNs int64) Block {
	return Block{StartNs: endNs - l.Millis*1e6, EndNs: endNs, Ms: l.Millis, Handler: l.Handler, Callback: l.CallbackClass(), What: l.What}
}

// Input is what Attribute joins for one step.
type Input struct {
	// Start and End bound the step on the device clock: [Start, End).
	Start, End int64
	// Frames are the step's frames and Summary their summary (the main
	// window's, which names the frames each definition counted).
	Frames  []frames.Frame
	Summary frames.Summary
	// Blocks are the app's main-thread slow messages and ANRs its ANRs,
	// of the session or the step; Attribute keeps those in the step.
	// Samples are the main thread's samples, in time order.
	Blocks  []Block
	Samples []Sample
	ANRs    []ANR
	// NotMeasured names the sources that gave nothing for the step, and
	// why (SourceBlocks, SourceStacks, SourceANRs); Attribute adds
	// SourcePhases when the frames cannot tell.
	NotMeasured map[string]string
}

// Attribute says why the step's janky frames janked.
func Attribute(in Input) *Step {
	a := &attribution{in: &in, out: &Step{NotMeasured: map[string]string{}}, picked: map[int]bool{}}
	for k, v := range in.NotMeasured {
		if v != "" {
			a.out.NotMeasured[k] = v
		}
	}
	a.blocks()
	a.frames()
	a.out.TopBlockers = topBlockers(a.out.Blocks, 5)
	a.out.TopStacks = stackCounts(a.inJank(), 5)
	a.anrs()
	if len(a.out.NotMeasured) == 0 {
		a.out.NotMeasured = nil
	}
	return a.out
}

// attribution is one run of Attribute: the input, the step it builds, the
// samples in time order and which of them lie inside a janky frame or a
// block.
type attribution struct {
	in      *Input
	out     *Step
	samples []Sample
	picked  map[int]bool
}

// at is a device time as seconds into the step, to the ms.
func (a *attribution) at(ns int64) float64 { return math.Round(float64(ns-a.in.Start)/1e6) / 1e3 }

func (a *attribution) inStep(ns int64) bool { return ns >= a.in.Start && ns < a.in.End }

// span is the indexes of the samples in [lo, hi].
func (a *attribution) span(lo, hi int64) (int, int) {
	i := sort.Search(len(a.samples), func(i int) bool { return a.samples[i].TimeNs >= lo })
	j := sort.Search(len(a.samples), func(i int) bool { return a.samples[i].TimeNs > hi })
	return i, max(i, j)
}

// pick marks the samples [i, j) as inside a janky frame or a block.
func (a *attribution) pick(i, j int) {
	for k := i; k < j; k++ {
		a.picked[k] = true
	}
}

// blocks keeps the blocks that end in the step, each with the stack
// sampled most inside it, and puts the samples in time order.
func (a *attribution) blocks() {
	if a.out.NotMeasured[SourceBlocks] == "" {
		for _, b := range a.in.Blocks {
			if a.inStep(b.EndNs) {
				b.AtS = a.at(b.StartNs)
				a.out.Blocks = append(a.out.Blocks, b)
			}
		}
	}
	a.samples = a.in.Samples
	if !slices.IsSortedFunc(a.samples, bySampleTime) {
		a.samples = slices.Clone(a.samples)
		slices.SortStableFunc(a.samples, bySampleTime)
	}
	for i := range a.out.Blocks {
		b := &a.out.Blocks[i]
		lo, hi := a.span(b.StartNs, b.EndNs)
		top := stackCounts(a.samples[lo:hi], 1)
		if len(top) > 0 {
			b.Stack, b.AppFrame = top[0].Stack, top[0].AppFrame
		}
		a.pick(lo, hi)
	}
}

// jankTimes are the times of the janky frames of each definition, with the
// definitions that count each.
func (a *attribution) jankTimes() ([]int64, map[int64][]string) {
	fs := &a.in.Summary
	janks := map[int64][]string{}
	for _, d := range []struct {
		name  string
		times []int64
	}{{frames.JankDefinitionDeadlineMissed, fs.Janked.DeadlineMissed}, {frames.JankDefinitionPerfDog, fs.Janked.PerfDog},
		{"perfdog_big", fs.Janked.PerfDogBig}, {"chromium", fs.Janked.Chromium}} {
		for _, t := range d.times {
			janks[t] = append(janks[t], d.name)
		}
	}
	times := make([]int64, 0, len(janks))
	for t := range janks {
		times = append(times, t)
	}
	slices.Sort(times)
	return times, janks
}

// frames attributes the janky frames of each definition, of the step's
// main window.
func (a *attribution) frames() {
	fs := &a.in.Summary
	byTime := map[int64]*frames.Frame{}
	for i := range a.in.Frames {
		if a.in.Frames[i].Window == fs.Window {
			byTime[a.in.Frames[i].Time()] = &a.in.Frames[i]
		}
	}
	times, janks := a.jankTimes()
	divided := 0
	for _, t := range times {
		fc, ok := a.frame(t, janks[t], byTime[t])
		if ok {
			divided++
		}
		a.out.Frames = append(a.out.Frames, fc)
	}
	switch {
	case fs.Source != "" && fs.Source != frames.SourceGfxInfo:
		a.out.NotMeasured[SourcePhases] = "phases: need the gfxinfo framestats stage columns; the frames came from " + fs.Source
	case len(times) > 0 && divided == 0:
		a.out.NotMeasured[SourcePhases] = "phases: no janky frame's stage columns divide its duration (columns missing or out of order)"
	}
}

// frame attributes the janky frame at t (f when the frames hold it) to
// its phases, the block that overlaps it most and the stack sampled most
// inside it; divided tells that its phases are known.
func (a *attribution) frame(t int64, janks []string, f *frames.Frame) (fc Frame, divided bool) {
	fs := &a.in.Summary
	fc = Frame{AtS: a.at(t), TimeNs: t, Janks: janks}
	lo, hi := t, t
	if f != nil && f.Source == frames.SourceGfxInfo {
		hi = f.FrameCompleted
		fc.DurationMs = math.Round(float64(f.Duration())/1e3) / 1e3
		if p, ok := frames.PhasesOf(f.FrameStats); ok {
			fc.Phases, fc.Phase = &p, p.Dominant()
			divided = true
			if slices.Contains(fc.Janks, fs.JankDefinition) {
				if a.out.Phases == nil {
					a.out.Phases = map[frames.Phase]int{}
				}
				a.out.Phases[fc.Phase]++
			}
		}
	} else if prev := prevTime(a.in.Frames, fs.Window, t); prev > 0 {
		lo = prev // a present time ends the frame time that led to it
	}
	best, bestOver := -1, int64(0)
	for i, b := range a.out.Blocks {
		if over := min(hi, b.EndNs) - max(lo, b.StartNs); over > bestOver {
			best, bestOver = i, over
		}
	}
	if best >= 0 {
		fc.Block = &best
		a.out.Blocks[best].Frames++
	}
	i, j := a.span(lo, hi)
	if top := stackCounts(a.samples[i:j], 1); len(top) > 0 {
		fc.Stack, fc.StackHits, fc.AppFrame = top[0].Stack, top[0].Samples, top[0].AppFrame
	}
	fc.StackSamples = j - i
	a.pick(i, j)
	return fc, divided
}

// inJank are the samples inside janky frames and blocks, in time order.
func (a *attribution) inJank() []Sample {
	idx := make([]int, 0, len(a.picked))
	for k := range a.picked {
		idx = append(idx, k)
	}
	slices.Sort(idx)
	inJank := make([]Sample, len(idx))
	for n, k := range idx {
		inJank[n] = a.samples[k]
	}
	return inJank
}

// anrs keeps the ANRs in the step.
func (a *attribution) anrs() {
	if a.out.NotMeasured[SourceANRs] != "" {
		return
	}
	for _, r := range a.in.ANRs {
		if a.inStep(r.TimeNs) {
			r.AtS = a.at(r.TimeNs)
			a.out.ANRs = append(a.out.ANRs, r)
		}
	}
}

// prevTime is the time of the frame of window win before t, 0 for none.
func prevTime(frames []frames.Frame, win string, t int64) int64 {
	var prev int64
	for _, f := range frames {
		if f.Window == win && f.Time() < t && f.Time() > prev {
			prev = f.Time()
		}
	}
	return prev
}

// topBlockers groups blocks by handler, callback class and app frame,
// those that explain the most janky frames first, then the most blocked
// time, then the most blocks, at most n: blocked time that explains no
// jank is still listed, after every blocker that does.
func topBlockers(blocks []Block, n int) []Blocker {
	type key struct{ h, c, app string }
	groups := map[key]*Blocker{}
	var order []key
	for _, b := range blocks {
		k := key{b.Handler, b.Callback, b.AppFrame}
		g := groups[k]
		if g == nil {
			g = &Blocker{Handler: b.Handler, Callback: b.Callback, AppFrame: b.AppFrame, Stack: b.Stack}
			groups[k] = g
			order = append(order, k)
		}
		g.Count++
		g.TotalMs += b.Ms
		g.MaxMs = max(g.MaxMs, b.Ms)
		g.Frames += b.Frames
	}
	out := make([]Blocker, 0, len(order))
	for _, k := range order {
		out = append(out, *groups[k])
	}
	slices.SortStableFunc(out, func(a, b Blocker) int {
		return cmp.Or(cmp.Compare(b.Frames, a.Frames), cmp.Compare(b.TotalMs, a.TotalMs), cmp.Compare(b.Count, a.Count))
	})
	return out[:min(len(out), n)]
}

// stackCounts counts samples by folded stack, most sampled first (the
// first sampled on a tie), at most n.
func stackCounts(ss []Sample, n int) []Stack {
	counts := map[string]*Stack{}
	var order []string
	for _, s := range ss {
		c := counts[s.Stack]
		if c == nil {
			c = &Stack{Stack: s.Stack, AppFrame: s.AppFrame}
			counts[s.Stack] = c
			order = append(order, s.Stack)
		}
		c.Samples++
	}
	out := make([]Stack, 0, len(order))
	for _, f := range order {
		out = append(out, *counts[f])
	}
	slices.SortStableFunc(out, func(a, b Stack) int { return cmp.Compare(b.Samples, a.Samples) })
	return out[:min(len(out), n)]
}

// TopPhase is the phase most janky frames spent longest in (the earlier
// phase on a tie) and how many; "", 0 when no frame had phases.
func (s *Step) TopPhase() (frames.Phase, int) {
	var best frames.Phase
	n := 0
	for _, p := range frames.PhaseOrder {
		if s.Phases[p] > n {
			best, n = p, s.Phases[p]
		}
	}
	return best, n
}

// MaxBlock is the step's longest block, false when it has none.
func (s *Step) MaxBlock() (Block, bool) {
	if len(s.Blocks) == 0 {
		return Block{}, false
	}
	longest := s.Blocks[0]
	for _, b := range s.Blocks[1:] {
		if b.Ms > longest.Ms {
			longest = b
		}
	}
	return longest, true
}

// Where is where the block ran: see Blocker.Where.
func (b Block) Where() string {
	return Blocker{Handler: b.Handler, Callback: b.Callback, AppFrame: b.AppFrame}.Where()
}

// Line is why the step's frames janked, in the few words a jank failure
// adds: how many janky frames spent longest in one phase, and the top
// blocker that made janky frames late (or, without one, the top stack's
// app frame): "4 late in layout; top block 166 ms in
// com.x.FeedAdapter.onBindViewHolder". A block that explains no janky
// frame (a launch's message logged in the step after it) is blocked time,
// not why those frames janked, and is not named here.
func (s *Step) Line() string {
	if s == nil {
		return ""
	}
	var parts []string
	if p, n := s.TopPhase(); n > 0 {
		parts = append(parts, fmt.Sprintf("%d late in %s", n, p))
	}
	switch {
	case len(s.TopBlockers) > 0 && s.TopBlockers[0].Frames > 0:
		b := s.TopBlockers[0]
		parts = append(parts, fmt.Sprintf("top block %d ms in %s", b.TotalMs, b.Where()))
	case len(s.TopStacks) > 0 && s.TopStacks[0].AppFrame != "":
		parts = append(parts, "top stack in "+s.TopStacks[0].AppFrame)
	}
	return strings.Join(parts, "; ")
}

func bySampleTime(x, y Sample) int { return cmp.Compare(x.TimeNs, y.TimeNs) }
