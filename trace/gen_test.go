package trace_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// A simulated phone's trace, written as a real one is, with its ground
// truth: the app's main thread follows a timeline of states decided up
// front (running, runnable, sleeping, in I/O, waiting on binder, preempted),
// and the scheduler, atrace and binder events are derived from it; noise
// threads fill every CPU; FrameTimeline frames follow the main thread's
// work. The truth of each frame (its states over its span, its longest
// slices) comes from the timeline, not from the events.

const (
	genPkg      = "com.perfgate.demo"
	genLayer    = "TX - com.perfgate.demo/com.perfgate.demo.MainActivity#0"
	genOther    = "com.other.app"
	genPID      = 4242
	genRender   = 4250
	genOtherPID = 5000
	genSSBinder = 1010
	genPeriod   = 16_666_667
	genT0       = 100_000_000_000 // boottime of the first vsync
	genMonoLag  = 3_000_000_000   // boottime − monotonic: 3 s of suspend
	genTrackID  = 77
	genTokenMin = 9000
)

type genOpts struct {
	frames      int   // app frames to write (0: until targetBytes)
	targetBytes int64 // with frames 0
	cpus        int
	noiseGap    int64 // mean ns between noise switches on a CPU
	seed        uint64
	truth       bool
}

type genInterval struct {
	start, end int64
	st         trace.ThreadState
}

type genSlice struct {
	name       string
	start, end int64
	depth      int
}

type truthFrame struct {
	token     int64
	time, end int64 // expected start; actual end
	start     int64 // actual start
	jank      trace.JankType
	display   trace.JankType // of the display frame it was composited in
	states    trace.States
	top       []genSlice
	// The frame's outer Choreographer#doFrame slice.
	doFrame                  string
	doFrameStart, doFrameEnd int64
}

type genEvent struct {
	ts        int64
	seq       int
	kind      int // 1 switch, 2 waking, 3 print, 4 binder
	pid       int32
	prevPID   int32
	prevState int64
	nextPID   int32
	text      string
	reply     bool
	toThread  int32
}

type genCPU struct {
	id     int
	cur    int32
	cursor int64
	ev     []genEvent
}

type generator struct {
	w     *tracewriter.Writer
	r     *rand.Rand
	o     genOpts
	cpus  []*genCPU
	seq   int
	noise []int32

	mainCPU   *genCPU // nil while the main thread is off CPU
	curState  trace.ThreadState
	curSince  int64
	intervals []genInterval
	stack     []genSlice
	done      []genSlice
	cookie    int64
	ft        []func()
	truth     []truthFrame
	other     int // other-app frames written
}

func newGenerator(w *tracewriter.Writer, o genOpts) *generator {
	g := &generator{w: w, r: rand.New(rand.NewPCG(o.seed, 7)), o: o}
	for i := range o.cpus {
		g.cpus = append(g.cpus, &genCPU{id: i, cursor: genT0 - 2*genPeriod})
	}
	// Threads of other processes, a kernel worker, another app's main
	// thread, and idle (0).
	g.noise = []int32{genRender, 4251, genSSBinder, 1011, 601, 5001, genOtherPID, 20, 0, 0}
	return g
}

func (g *generator) push(c *genCPU, e genEvent) {
	g.seq++
	e.seq = g.seq
	c.ev = append(c.ev, e)
}

func (g *generator) pickNoise() int32 { return g.noise[g.r.IntN(len(g.noise))] }

// fill runs noise on CPU c up to t.
func (g *generator) fill(c *genCPU, t int64) {
	if c == g.mainCPU {
		return
	}
	for {
		gap := g.o.noiseGap/2 + g.r.Int64N(g.o.noiseGap)
		if c.cursor+gap+3000 >= t {
			break
		}
		c.cursor += gap
		next := g.pickNoise()
		state := int64(g.r.IntN(2)) // R or S
		if c.cur == 0 {
			state = 0
		}
		g.push(c, genEvent{ts: c.cursor, kind: 1, prevPID: c.cur, prevState: state, nextPID: next, pid: c.cur})
		if next == genRender && g.r.IntN(3) == 0 {
			g.push(c, genEvent{ts: c.cursor + 1000, kind: 3, pid: genRender, text: fmt.Sprintf("B|%d|DrawFrame", genPID)})
			g.push(c, genEvent{ts: c.cursor + 2000, kind: 3, pid: genRender, text: fmt.Sprintf("E|%d", genPID)})
		}
		c.cur = next
	}
	if t > c.cursor {
		c.cursor = t
	}
}

// otherCPU is a CPU the main thread is not running on.
func (g *generator) otherCPU() *genCPU {
	for {
		c := g.cpus[g.r.IntN(len(g.cpus))]
		if c != g.mainCPU {
			return c
		}
	}
}

func (g *generator) setState(t int64, st trace.ThreadState) {
	if g.o.truth && g.curSince != 0 && t > g.curSince {
		g.intervals = append(g.intervals, genInterval{g.curSince, t, g.curState})
	}
	g.curState, g.curSince = st, t
}

// run puts the main thread on a CPU at t.
func (g *generator) run(t int64) {
	c := g.otherCPU()
	g.fill(c, t)
	g.push(c, genEvent{ts: t, kind: 1, prevPID: c.cur, prevState: 0, nextPID: genPID, pid: c.cur})
	c.cur = genPID
	g.mainCPU = c
	g.setState(t, trace.StateRunning)
}

// leave takes the main thread off its CPU at t, into st.
func (g *generator) leave(t int64, st trace.ThreadState) {
	c := g.mainCPU
	var raw int64
	switch st {
	case trace.StateSleeping, trace.StateBinder:
		raw = 1
	case trace.StateUninterruptible:
		raw = 2
	case trace.StateRunnable:
		raw = []int64{0, 0x100}[g.r.IntN(2)] // preempted, as old and 4.14+ kernels say it
	}
	next := g.pickNoise()
	g.push(c, genEvent{ts: t, kind: 1, prevPID: genPID, prevState: raw, nextPID: next, pid: genPID})
	c.cur = next
	c.cursor = t
	g.mainCPU = nil
	g.setState(t, st)
}

func (g *generator) wake(t int64) {
	c := g.otherCPU()
	g.fill(c, t)
	g.push(c, genEvent{ts: t, kind: 2, pid: c.cur, nextPID: genPID})
	g.setState(t, trace.StateRunnable)
}

func (g *generator) begin(t int64, name string) {
	g.push(g.mainCPU, genEvent{ts: t, kind: 3, pid: genPID, text: fmt.Sprintf("B|%d|%s", genPID, name)})
	g.stack = append(g.stack, genSlice{name: name, start: t, depth: len(g.stack)})
}

func (g *generator) end(t int64) {
	g.push(g.mainCPU, genEvent{ts: t, kind: 3, pid: genPID, text: fmt.Sprintf("E|%d", genPID)})
	s := g.stack[len(g.stack)-1]
	g.stack = g.stack[:len(g.stack)-1]
	s.end = t
	if g.o.truth {
		g.done = append(g.done, s)
	}
}

// slice is a leaf slice of d ns while running; t is advanced past it.
func (g *generator) slice(t *int64, name string, d int64) {
	g.begin(*t, name)
	*t += d
	g.end(*t)
	*t += 1000
}

func (g *generator) us(lo, hi int64) int64 { return (lo + g.r.Int64N(hi-lo+1)) * 1000 }

// frame writes app frame k (its vsync) and returns the vsync index of the
// next one.
func (g *generator) frame(k int) int {
	v := int64(genT0 + int64(k)*genPeriod)
	token := int64(genTokenMin + k)
	wake := v + g.us(30, 60)
	g.wake(wake)
	t := wake + g.us(50, 400)
	g.run(t)
	t += 3000
	doFrame := fmt.Sprintf("Choreographer#doFrame %d", token)
	if k%5 == 4 {
		// A resync: the outer doFrame names the vsync the frame was
		// scheduled for, a nested one the vsync it moved to, which is the
		// frame's token.
		doFrame = fmt.Sprintf("Choreographer#doFrame %d", token+100_000)
	}
	g.begin(t, doFrame)
	doFrameStart := t
	t += 2000
	variant := k % 7
	if k%5 == 4 {
		g.begin(t, fmt.Sprintf("Choreographer#doFrame - resynced to %d in 1.2ms", token))
		t += 1000
	}
	g.slice(&t, "input", g.us(50, 300))
	g.slice(&t, "animation", g.us(100, 800))
	g.begin(t, "traversal")
	t += 1000
	g.slice(&t, "measure", g.us(200, 1500))
	g.slice(&t, "layout", g.us(200, 1500))
	switch variant {
	case 1: // a long inflate
		g.begin(t, "inflate")
		t += 500
		g.slice(&t, "inflate:RecyclerView", g.us(9000, 14000))
		t += g.us(2000, 4000)
		g.end(t)
		t += 1000
	case 2: // a binder call on the main thread
		g.begin(t, "AIDL::java::IPackageManager::getPackageInfo::client")
		t += 20_000
		g.push(g.mainCPU, genEvent{ts: t, kind: 4, pid: genPID, toThread: 0})
		t += 30_000
		g.leave(t, trace.StateBinder)
		t += g.us(6000, 14000)
		rc := g.otherCPU()
		g.fill(rc, t)
		g.push(rc, genEvent{ts: t, kind: 4, pid: genSSBinder, reply: true, toThread: genPID})
		g.wake(t)
		t += g.us(100, 2500)
		g.run(t)
		t += 10_000
		g.end(t)
		t += 1000
	case 3: // disk I/O
		g.begin(t, "loadBitmap")
		t += 40_000
		g.leave(t, trace.StateUninterruptible)
		t += g.us(5000, 12000)
		g.wake(t)
		t += g.us(200, 1500)
		g.run(t)
		t += g.us(300, 900)
		g.end(t)
		t += 1000
	case 4: // preempted
		g.begin(t, "bindViewHolder")
		t += g.us(500, 1500)
		g.leave(t, trace.StateRunnable)
		t += g.us(4000, 10000)
		g.run(t)
		t += g.us(1000, 3000)
		g.end(t)
		t += 1000
	}
	if variant != 0 && variant < 5 {
		// A TrackEvent slice of the app's own (androidx.tracing), on the
		// main thread's track.
		g.w.SliceBegin(t, genTrackID, "", 1)
		ts := t
		t += g.us(600, 2000)
		g.w.SliceEnd(t, genTrackID)
		if g.o.truth {
			g.done = append(g.done, genSlice{name: "Compose:recompose", start: ts, end: t, depth: 0})
		}
		t += 1000
	}
	g.slice(&t, "draw", g.us(300, 2500))
	g.end(t) // traversal
	t += 1000
	if k%5 == 4 {
		g.end(t)
		t += 1000
	}
	g.end(t) // doFrame
	doFrameEnd := t
	t += 2000
	g.leave(t, trace.StateSleeping)
	actualEnd := t + g.us(800, 3000) // RenderThread's part
	deadline := v + genPeriod
	var jank trace.JankType
	switch {
	case actualEnd > deadline:
		jank = trace.JankAppDeadlineMissed
		if k%3 == 0 {
			jank |= trace.JankBufferStuffing
		}
	case k%11 == 5:
		jank = trace.JankBufferStuffing
	case k%13 == 6:
		jank = trace.JankUnknown
	case k%17 == 8:
		jank = trace.JankPredictionError
	default:
		jank = trace.JankNone
	}
	pres := trace.PresentOnTime
	if jank != trace.JankNone {
		pres = trace.PresentLate
	}
	dtoken := int64(500_000 + k)
	cookie := g.cookie
	g.cookie += 10
	sf := tracewriter.SurfaceFrame{Token: token, DisplayToken: dtoken, PID: genPID, Layer: genLayer}
	act := sf
	act.Cookie, act.Present, act.Jank, act.Prediction, act.OnTimeFinish = cookie+1, pres, jank, 1, actualEnd <= deadline
	exp := sf
	exp.Cookie = cookie
	disp := tracewriter.DisplayFrame{Cookie: cookie + 2, Token: dtoken, PID: 600, Present: pres, Jank: trace.JankNone, Prediction: 1}
	// SurfaceFlinger writes the display frame it expected beside the one
	// it had, with the same token, as real traces show.
	expDisp := tracewriter.DisplayFrame{Cookie: cookie + 3, Token: dtoken, PID: 600}
	if k%9 == 2 {
		disp.Jank = trace.JankSFCPUDeadlineMissed
	}
	g.ft = append(g.ft, func() {
		g.w.ExpectedSurfaceFrame(v, exp)
		g.w.ActualSurfaceFrame(wake, act)
		g.w.ExpectedDisplayFrame(v, expDisp)
		g.w.ActualDisplayFrame(deadline, disp)
		g.w.FrameEnd(deadline, exp.Cookie)
		g.w.FrameEnd(deadline, expDisp.Cookie)
		g.w.FrameEnd(actualEnd, act.Cookie)
		g.w.FrameEnd(deadline+4_000_000, disp.Cookie)
	})
	if g.o.truth {
		g.truth = append(g.truth, truthFrame{token: token, time: v, start: wake, end: actualEnd, jank: jank, display: disp.Jank,
			doFrame: doFrame, doFrameStart: doFrameStart, doFrameEnd: doFrameEnd})
	}
	// Another app draws at the same time, on every third vsync.
	if k%3 == 0 {
		oc := g.cookie
		g.cookie += 10
		ojank := trace.JankNone
		if k%15 == 0 {
			ojank = trace.JankAppDeadlineMissed
		}
		layer := "TX - " + genOther + "/" + genOther + ".Main#3"
		g.other++
		g.ft = append(g.ft, func() {
			g.w.ActualSurfaceFrame(v+200_000, tracewriter.SurfaceFrame{Cookie: oc, Token: 70_000 + int64(k), DisplayToken: dtoken, PID: genOtherPID, Layer: layer, Jank: ojank, Present: pres})
			g.w.FrameEnd(v+9_000_000, oc)
		})
	}
	next := int((t - genT0 + genPeriod - 1) / genPeriod)
	return max(next, k+1)
}

// statesOver integrates the main thread's timeline over [a, b).
func (g *generator) statesOver(a, b int64) trace.States {
	var s trace.States
	for _, x := range g.intervals {
		lo, hi := max(a, x.start), min(b, x.end)
		if hi > lo {
			addState(&s, x.st, hi-lo)
		}
	}
	return s
}

func addState(s *trace.States, st trace.ThreadState, d int64) {
	switch st {
	case trace.StateRunning:
		s.RunningNs += d
	case trace.StateRunnable:
		s.RunnableNs += d
	case trace.StateSleeping:
		s.SleepingNs += d
	case trace.StateUninterruptible:
		s.UninterruptibleNs += d
	case trace.StateBinder:
		s.BinderNs += d
	default:
		s.OtherNs += d
	}
}

// topUnder is the five longest slices within the doFrame, longest first.
func (g *generator) topUnder(a, b int64, doFrame string) []genSlice {
	var in []genSlice
	for _, s := range g.done {
		if s.start >= a && s.end <= b && s.name != doFrame {
			in = append(in, s)
		}
	}
	slices.SortStableFunc(in, func(x, y genSlice) int {
		return cmp.Or(cmp.Compare(y.end-y.start, x.end-x.start), cmp.Compare(x.start, y.start))
	})
	return in[:min(5, len(in))]
}

// flush writes every CPU's events so far as bundles, then the FrameTimeline
// packets of the frames so far.
func (g *generator) flush(horizon int64) {
	for _, c := range g.cpus {
		g.fill(c, horizon)
	}
	for _, c := range g.cpus {
		slices.SortStableFunc(c.ev, func(x, y genEvent) int { return cmp.Compare(x.ts, y.ts) })
		for len(c.ev) > 0 {
			n := min(len(c.ev), 400)
			g.bundle(c, c.ev[:n])
			c.ev = c.ev[n:]
		}
		c.ev = nil
	}
	for _, f := range g.ft {
		f()
	}
	g.ft = g.ft[:0]
}

// bundle writes a CPU's events; even CPUs use the compact sched encoding.
func (g *generator) bundle(c *genCPU, evs []genEvent) {
	bd := tracewriter.Bundle{CPU: uint32(c.id)}
	compact := c.id%2 == 0
	if compact {
		bd.Compact = &tracewriter.CompactSched{}
	}
	for _, e := range evs {
		switch {
		case e.kind == 1 && compact:
			bd.Compact.Switches = append(bd.Compact.Switches, tracewriter.CompactSwitch{Ts: e.ts, PrevState: e.prevState, NextPID: e.nextPID, NextPrio: 120, NextComm: commOf(e.nextPID)})
		case e.kind == 2 && compact:
			bd.Compact.Wakings = append(bd.Compact.Wakings, tracewriter.CompactWaking{Ts: e.ts, PID: e.nextPID, TargetCPU: int32(c.id), Prio: 110, Comm: commOf(e.nextPID)})
		case e.kind == 1:
			bd.Events = append(bd.Events, tracewriter.Event{Ts: e.ts, PID: e.pid, Switch: &tracewriter.SchedSwitch{
				PrevComm: commOf(e.prevPID), PrevPID: e.prevPID, PrevPrio: 120, PrevState: e.prevState,
				NextComm: commOf(e.nextPID), NextPID: e.nextPID, NextPrio: 120}})
		case e.kind == 2:
			bd.Events = append(bd.Events, tracewriter.Event{Ts: e.ts, PID: e.pid, Waking: &tracewriter.SchedWaking{Comm: commOf(e.nextPID), PID: e.nextPID, Prio: 110, TargetCPU: int32(c.id)}})
		case e.kind == 3:
			bd.Events = append(bd.Events, tracewriter.Event{Ts: e.ts, PID: e.pid, Print: e.text})
		case e.kind == 4:
			bd.Events = append(bd.Events, tracewriter.Event{Ts: e.ts, PID: e.pid, Binder: &tracewriter.BinderTransaction{DebugID: int32(e.seq), ToProc: 1000, ToThread: e.toThread, Reply: e.reply}})
		}
	}
	g.w.Ftrace(bd)
}

func commOf(tid int32) string {
	switch tid {
	case genPID:
		return "perfgate.demo"
	case genRender:
		return "RenderThread"
	case 0:
		return "swapper/0"
	}
	return fmt.Sprintf("thread-%d", tid)
}

// generate writes the whole trace.
func generate(w *tracewriter.Writer, o genOpts) *generator {
	g := newGenerator(w, o)
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: genT0 - 10*genPeriod, trace.Monotonic: genT0 - 10*genPeriod - genMonoLag, trace.Realtime: 1_700_000_000_000_000_000})
	w.SystemInfo("perfgate/sim/sim:14/SIM.1/1:user/release-keys", "6.1.25-android14-11", 34)
	w.ProcessTree(genT0-10*genPeriod, []tracewriter.Process{
		{PID: genPID, PPID: 700, Cmdline: genPkg},
		{PID: genOtherPID, PPID: 700, Cmdline: genOther},
		{PID: 1000, PPID: 700, Cmdline: "system_server"},
		{PID: 600, PPID: 1, Cmdline: "/system/bin/surfaceflinger"},
		{PID: 700, PPID: 1, Cmdline: "zygote64"},
		{PID: 20, PPID: 2, Cmdline: ""}, // a kernel worker
	}, []tracewriter.Thread{
		{TID: genRender, TGID: genPID, Name: "RenderThread"},
		{TID: 4251, TGID: genPID, Name: "DefaultDispatch"},
		{TID: genSSBinder, TGID: 1000, Name: "binder:1000_2"},
		{TID: 1011, TGID: 1000, Name: "android.ui"},
		{TID: 601, TGID: 600, Name: "RenderEngine"},
		{TID: 5001, TGID: genOtherPID, Name: "RenderThread"},
	})
	w.ThreadTrack(genTrackID, genPID, genPID, "main")
	w.InternNames(map[uint64]string{1: "Compose:recompose"})
	k := 0
	for i := 0; ; i++ {
		if o.frames > 0 && i >= o.frames {
			break
		}
		if o.frames == 0 && w.Written >= o.targetBytes {
			break
		}
		k = g.frame(k)
		if i%4 == 3 {
			g.flush(genT0 + int64(k)*genPeriod)
		}
	}
	g.flush(genT0 + int64(k)*genPeriod)
	end := genT0 + int64(k+1)*genPeriod
	if o.truth {
		g.setState(end, trace.StateUnknown)
		for i := range g.truth {
			tf := &g.truth[i]
			if tf.jank.Janky() {
				tf.states = g.statesOver(tf.start, tf.end)
				tf.top = g.topUnder(tf.doFrameStart, tf.doFrameEnd, tf.doFrame)
			}
		}
	}
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: end, trace.Monotonic: end - genMonoLag, trace.Realtime: 1_700_000_000_000_000_000 + end})
	return g
}
