package trace_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// A second generator, of trace shapes rather than of one trace: the CPU
// count, the sched encoding, how busy the other threads are, how many
// processes there are and how often their threads are renamed, the app's
// slices, frame rate and jank, whether FrameTimeline and binder are on,
// how ftrace cuts its events into bundles and how often the interned
// names are sent again all vary, as they do between the traces users
// bring. BenchmarkAnalyzeShapes reads each with perfgate and with the
// reference script, testdata/trace_ref.py.

// traceShape is one kind of trace.
type traceShape struct {
	name        string
	cpus        int
	compact     int   // CPUs in the compact sched encoding: 0 none, 1 every other, 2 all
	noiseGap    int64 // mean ns between two switches of other threads on a CPU
	noiseTIDs   int   // other threads
	procs       int   // processes in the process tree
	renameEvery int   // frames between process trees that rename threads (0: never)
	depth       int   // atrace slices nested under Choreographer#doFrame
	nameLen     int   // bytes of a slice's name
	sliceUs     int64 // mean µs of a leaf slice
	hz          int64
	jankPct     int // frames whose work runs past their deadline
	binderPct   int // frames with a binder call on the main thread
	noFT        bool
	bundle      int // events per ftrace bundle
	flushEvery  int // frames between two writes of the CPUs' events
	resetEvery  int // frames between incremental state resets (0: once)
	seed        uint64
}

// traceShapes are the shapes BenchmarkAnalyzeShapes reads.
func traceShapes() []traceShape {
	base := traceShape{name: "baseline", cpus: 8, compact: 1, noiseGap: 150_000, noiseTIDs: 200, procs: 60,
		depth: 4, nameLen: 16, sliceUs: 300, hz: 60, jankPct: 10, binderPct: 10, bundle: 600, flushEvery: 4, seed: 1}
	with := func(name string, f func(*traceShape)) traceShape {
		s := base
		s.name, s.seed = name, uint64(len(name))*7919
		f(&s)
		return s
	}
	return []traceShape{
		base,
		with("cpus2-plain-120hz", func(s *traceShape) { s.cpus, s.compact, s.hz, s.noiseGap = 2, 0, 120, 300_000 }),
		with("cpus12-compact-90hz", func(s *traceShape) { s.cpus, s.compact, s.hz = 12, 2, 90 }),
		with("dense-noise", func(s *traceShape) { s.noiseGap, s.noiseTIDs, s.flushEvery = 15_000, 4000, 1 }),
		with("sparse-deep-long", func(s *traceShape) {
			s.noiseGap, s.noiseTIDs, s.depth, s.nameLen, s.sliceUs = 2_000_000, 12, 40, 300, 40
		}),
		with("procs-renames", func(s *traceShape) { s.procs, s.noiseTIDs, s.renameEvery = 3000, 6000, 40 }),
		with("janky-binder-120hz", func(s *traceShape) { s.hz, s.jankPct, s.binderPct = 120, 60, 50 }),
		with("no-frametimeline", func(s *traceShape) { s.noFT = true }),
		with("tiny-bundles", func(s *traceShape) { s.bundle = 3 }),
		with("huge-bundles-resets", func(s *traceShape) { s.bundle, s.flushEvery, s.resetEvery = 50_000, 120, 1 }),
	}
}

const (
	shapePkg   = "com.perfgate.shapes"
	shapePID   = 3100
	shapeOther = 3900 // another app drawing
	shapeSF    = 600
	shapeTrack = 88
	shapeT0    = 50_000_000_000
	shapeProc0 = 10_000 // pid of the first process of the tree's others
)

// shapeEv is one ftrace event of a CPU before it is written.
type shapeEv struct {
	ts       int64
	kind     int // 1 switch, 2 waking, 3 print, 4 binder
	pid      int32
	prev     int32
	prevSt   int64
	next     int32
	text     string
	reply    bool
	toThread int32
}

type shapeCPU struct {
	id     int
	cur    int32
	cursor int64
	ev     []shapeEv
}

type shapeGen struct {
	s      traceShape
	w      *tracewriter.Writer
	r      *rand.Rand
	cpus   []*shapeCPU
	main   *shapeCPU // the CPU the app's main thread runs on, nil when off CPU
	period int64
	gen    int // the thread names' generation, bumped by each rename
	iids   int // incremental state resets so far
	cookie int64
	depth  int // atrace slices open on the main thread
	ft     []func()
}

// writeShape writes shape s to a file in dir: about size bytes, or with
// frames > 0 that many of the app's frames.
func writeShape(tb testing.TB, dir string, s traceShape, size int64, frames int) string {
	tb.Helper()
	return writeTrace(tb, filepath.Join(dir, s.name+".perfetto-trace"), func(w *tracewriter.Writer) {
		genShape(w, s, size, frames)
	})
}

// genShape writes a trace of shape s until it holds size bytes, or with
// frames > 0 that many frames.
func genShape(w *tracewriter.Writer, s traceShape, size int64, frames int) {
	g := &shapeGen{s: s, w: w, r: rand.New(rand.NewPCG(s.seed, 35)), period: 1_000_000_000 / s.hz}
	for i := range s.cpus {
		g.cpus = append(g.cpus, &shapeCPU{id: i, cursor: shapeT0 - 2*g.period})
	}
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: shapeT0 - 10*g.period, trace.Monotonic: shapeT0 - 10*g.period - 1e9})
	w.SystemInfo("perfgate/shapes/sim:14/SIM.1/1:user/release-keys", "6.1.25-android14-11", 34)
	g.processTree(shapeT0 - 10*g.period)
	w.ThreadTrack(shapeTrack, shapePID, shapePID, "main")
	g.internNames()
	k := 0
	for i := 0; frames > 0 && i < frames || frames == 0 && w.Written < size; i++ {
		if s.renameEvery > 0 && i > 0 && i%s.renameEvery == 0 {
			g.gen++
			g.processTree(shapeT0 + int64(k)*g.period)
		}
		if s.resetEvery > 0 && i > 0 && i%s.resetEvery == 0 {
			g.internNames()
		}
		k = g.frame(k)
		if i%s.flushEvery == s.flushEvery-1 {
			g.flush(shapeT0 + int64(k)*g.period)
		}
	}
	g.flush(shapeT0 + int64(k)*g.period)
	end := shapeT0 + int64(k+1)*g.period
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: end, trace.Monotonic: end - 1e9})
}

// noiseTID is other thread i: the threads of the other processes, a
// process's first thread being its main thread; 0 is the idle task.
func (g *shapeGen) noiseTID(i int) int32 {
	if i == 0 {
		return 0
	}
	per := max(1, g.s.noiseTIDs/g.s.procs)
	return int32(shapeProc0 + (i/per)*1000 + i%per)
}

func (g *shapeGen) comm(tid int32) string {
	switch {
	case tid == 0:
		return "swapper"
	case tid == shapePID:
		return "perfgate.shapes"
	case g.gen > 0:
		return fmt.Sprintf("w%d-gen%d", tid, g.gen)
	}
	return fmt.Sprintf("worker-%d", tid)
}

// processTree writes every process and thread, the threads named after the
// current generation.
func (g *shapeGen) processTree(ts int64) {
	procs := []tracewriter.Process{
		{PID: shapePID, PPID: 700, Cmdline: shapePkg},
		{PID: shapeOther, PPID: 700, Cmdline: "com.other.app"},
		{PID: shapeSF, PPID: 1, Cmdline: "/system/bin/surfaceflinger"},
	}
	var threads []tracewriter.Thread
	seen := map[int32]bool{}
	for i := 1; i < g.s.noiseTIDs; i++ {
		tid := g.noiseTID(i)
		pid := tid - tid%1000
		if !seen[pid] {
			seen[pid] = true
			procs = append(procs, tracewriter.Process{PID: pid, PPID: 700, Cmdline: fmt.Sprintf("com.vendor.proc%d", pid)})
		}
		if tid != pid {
			threads = append(threads, tracewriter.Thread{TID: tid, TGID: pid, Name: g.comm(tid)})
		}
	}
	g.w.ProcessTree(ts, procs, threads)
}

// internNames clears the sequence's incremental state and interns the
// TrackEvent slice names anew, under iids that move with each reset.
func (g *shapeGen) internNames() {
	g.iids++
	g.w.InternNames(map[uint64]string{uint64(g.iids*2 + 1): "Compose:recompose", uint64(g.iids*2 + 2): "Recomposer:recompose"})
}

func (g *shapeGen) push(c *shapeCPU, e shapeEv) { c.ev = append(c.ev, e) }

// fill runs other threads on CPU c up to t.
func (g *shapeGen) fill(c *shapeCPU, t int64) {
	if c == g.main {
		return
	}
	for {
		gap := g.s.noiseGap/2 + g.r.Int64N(g.s.noiseGap)
		if c.cursor+gap+3000 >= t {
			break
		}
		c.cursor += gap
		next := g.noiseTID(g.r.IntN(g.s.noiseTIDs))
		st := int64(g.r.IntN(3))
		if c.cur == 0 {
			st = 0
		}
		g.push(c, shapeEv{ts: c.cursor, kind: 1, pid: c.cur, prev: c.cur, prevSt: st, next: next})
		if next != 0 && g.r.IntN(8) == 0 {
			// Another process's atrace slice: not the app's main thread.
			pid := next - next%1000
			g.push(c, shapeEv{ts: c.cursor + 500, kind: 3, pid: next, text: fmt.Sprintf("B|%d|work", pid)})
			g.push(c, shapeEv{ts: c.cursor + 1500, kind: 3, pid: next, text: fmt.Sprintf("E|%d", pid)})
		}
		c.cur = next
	}
	c.cursor = max(c.cursor, t)
}

// otherCPU is a CPU the main thread is not on.
func (g *shapeGen) otherCPU() *shapeCPU {
	for {
		if c := g.cpus[g.r.IntN(len(g.cpus))]; c != g.main {
			return c
		}
	}
}

// wake wakes the main thread at t from another CPU; run puts it on one.
func (g *shapeGen) wake(t int64) {
	c := g.otherCPU()
	g.fill(c, t)
	g.push(c, shapeEv{ts: t, kind: 2, pid: c.cur, next: shapePID})
}

func (g *shapeGen) run(t int64) {
	c := g.otherCPU()
	g.fill(c, t)
	g.push(c, shapeEv{ts: t, kind: 1, pid: c.cur, prev: c.cur, next: shapePID})
	c.cur, g.main = shapePID, c
}

// leave takes the main thread off its CPU at t in prev_state st.
func (g *shapeGen) leave(t, st int64) {
	c := g.main
	next := g.noiseTID(g.r.IntN(g.s.noiseTIDs))
	g.push(c, shapeEv{ts: t, kind: 1, pid: shapePID, prev: shapePID, prevSt: st, next: next})
	c.cur, c.cursor, g.main = next, t, nil
}

func (g *shapeGen) print(t int64, text string) {
	g.push(g.main, shapeEv{ts: t, kind: 3, pid: shapePID, text: text})
}

func (g *shapeGen) name(base string) string {
	if len(base) >= g.s.nameLen {
		return base
	}
	return base + ":" + strings.Repeat("x", g.s.nameLen-len(base)-1)
}

// work runs the main thread's slices for about d ns from t, nested depth
// deep, and returns where it ended; a preemption or an I/O wait may cut it.
func (g *shapeGen) work(t, d int64, depth int) int64 {
	end := t + d
	for t < end-20_000 {
		g.print(t, fmt.Sprintf("B|%d|%s", shapePID, g.name(fmt.Sprintf("level%d", depth))))
		t += 1000
		leaf := max(2000, g.s.sliceUs*1000/2+g.r.Int64N(g.s.sliceUs*1000))
		if depth < g.s.depth {
			t = g.work(t, min(leaf*3, end-t-2000), depth+1)
		} else {
			t += leaf
		}
		if g.r.IntN(40) == 0 {
			st := []int64{0, 0x100, 2}[g.r.IntN(3)] // preempted, as old and 4.14+ kernels say it, or I/O
			g.leave(t, st)
			t += g.us(300, 3000)
			if st == 2 {
				g.wake(t)
				t += g.us(20, 200)
			}
			g.run(t)
			t += 2000
		}
		g.print(t, fmt.Sprintf("E|%d", shapePID))
		t += 1000
		if depth > 0 {
			break
		}
	}
	return max(t, end)
}

func (g *shapeGen) us(lo, hi int64) int64 { return (lo + g.r.Int64N(hi-lo+1)) * 1000 }

// binder makes a binder call from the main thread at t and returns when it
// runs again.
func (g *shapeGen) binder(t int64) int64 {
	g.print(t, fmt.Sprintf("B|%d|AIDL::java::IPackageManager::getPackageInfo::client", shapePID))
	t += 5000
	g.push(g.main, shapeEv{ts: t, kind: 4, pid: shapePID})
	t += 10_000
	g.leave(t, 1)
	t += g.us(500, 6000)
	rc := g.otherCPU()
	g.fill(rc, t)
	g.push(rc, shapeEv{ts: t, kind: 4, pid: rc.cur, reply: true, toThread: shapePID})
	g.push(rc, shapeEv{ts: t + 1000, kind: 2, pid: rc.cur, next: shapePID})
	t += g.us(20, 300)
	g.run(t)
	t += 3000
	g.print(t, fmt.Sprintf("E|%d", shapePID))
	return t + 1000
}

// frame writes the app's frame at vsync k and returns the vsync of the
// next.
func (g *shapeGen) frame(k int) int {
	v := shapeT0 + int64(k)*g.period
	token := int64(20_000 + k)
	wake := v + g.us(20, 80)
	g.wake(wake)
	t := wake + g.us(30, 300)
	g.run(t)
	t += 2000
	g.print(t, fmt.Sprintf("B|%d|Choreographer#doFrame %d", shapePID, token))
	t += 1000
	if g.r.IntN(100) < g.s.binderPct {
		t = g.binder(t)
	}
	budget := g.period * int64(20+g.r.IntN(40)) / 100
	if g.r.IntN(100) < g.s.jankPct {
		budget = g.period * int64(110+g.r.IntN(200)) / 100
	}
	t = g.work(t, budget, 0)
	if g.r.IntN(3) == 0 {
		g.w.SliceBegin(t, shapeTrack, "", uint64(g.iids*2+1+g.r.IntN(2)))
		t += g.us(100, 900)
		g.w.SliceEnd(t, shapeTrack)
		t += 1000
	}
	g.print(t, fmt.Sprintf("E|%d", shapePID))
	t += 2000
	g.leave(t, 1)
	end := t + g.us(500, 2500)
	g.frameTimeline(k, v, wake, end)
	return max(k+1, int((t-shapeT0+g.period-1)/g.period))
}

// frameTimeline queues the frame's FrameTimeline packets, and on every
// other vsync another app's frame.
func (g *shapeGen) frameTimeline(k int, v, start, end int64) {
	if g.s.noFT {
		return
	}
	token, dtoken, c := int64(20_000+k), int64(800_000+k), g.cookie
	g.cookie += 8
	deadline := v + g.period
	jank, pres := trace.JankNone, trace.PresentOnTime
	switch {
	case end > deadline:
		jank, pres = trace.JankAppDeadlineMissed, trace.PresentLate
		if k%4 == 0 {
			jank |= trace.JankBufferStuffing
		}
	case k%13 == 3:
		jank, pres = trace.JankBufferStuffing, trace.PresentLate
	case k%29 == 7:
		jank = trace.JankSFCPUDeadlineMissed
	case k%31 == 9:
		jank = trace.JankNonAnimating
	}
	sf := tracewriter.SurfaceFrame{Token: token, DisplayToken: dtoken, PID: shapePID, Layer: "TX - " + shapePkg + "/" + shapePkg + ".Main#0"}
	exp, act := sf, sf
	exp.Cookie = c
	act.Cookie, act.Jank, act.Present, act.Prediction, act.OnTimeFinish = c+1, jank, pres, 1, end <= deadline
	other := tracewriter.SurfaceFrame{Cookie: c + 4, Token: 90_000 + int64(k), DisplayToken: dtoken, PID: shapeOther, Layer: "TX - com.other.app/com.other.app.Main#2", Jank: trace.JankNone, Present: pres}
	g.ft = append(g.ft, func() {
		g.w.ExpectedSurfaceFrame(v, exp)
		g.w.ActualSurfaceFrame(start, act)
		g.w.ExpectedDisplayFrame(v, tracewriter.DisplayFrame{Cookie: c + 2, Token: dtoken, PID: shapeSF})
		g.w.ActualDisplayFrame(deadline, tracewriter.DisplayFrame{Cookie: c + 3, Token: dtoken, PID: shapeSF, Present: pres, Jank: trace.JankNone, Prediction: 1})
		if k%2 == 0 {
			g.w.ActualSurfaceFrame(v+100_000, other)
			g.w.FrameEnd(v+6_000_000, other.Cookie)
		}
		g.w.FrameEnd(deadline, exp.Cookie)
		g.w.FrameEnd(end, act.Cookie)
		if k%97 != 50 { // a frame now and then that never ends
			g.w.FrameEnd(deadline+3_000_000, c+2)
			g.w.FrameEnd(deadline+4_000_000, c+3)
		}
	})
}

// flush writes every CPU's events up to horizon as bundles, then the
// FrameTimeline packets so far.
func (g *shapeGen) flush(horizon int64) {
	for _, c := range g.cpus {
		g.fill(c, horizon)
		slices.SortStableFunc(c.ev, func(x, y shapeEv) int { return cmp.Compare(x.ts, y.ts) })
		for len(c.ev) > 0 {
			n := min(len(c.ev), g.s.bundle)
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

// bundle writes events of CPU c as one bundle, in the compact sched
// encoding when the shape says so for c.
func (g *shapeGen) bundle(c *shapeCPU, evs []shapeEv) {
	bd := tracewriter.Bundle{CPU: uint32(c.id)}
	if g.s.compact == 2 || g.s.compact == 1 && c.id%2 == 0 {
		bd.Compact = &tracewriter.CompactSched{}
	}
	for _, e := range evs {
		switch {
		case e.kind == 1 && bd.Compact != nil:
			bd.Compact.Switches = append(bd.Compact.Switches, tracewriter.CompactSwitch{Ts: e.ts, PrevState: e.prevSt, NextPID: e.next, NextPrio: 120, NextComm: g.comm(e.next)})
		case e.kind == 2 && bd.Compact != nil:
			bd.Compact.Wakings = append(bd.Compact.Wakings, tracewriter.CompactWaking{Ts: e.ts, PID: e.next, TargetCPU: int32(c.id), Prio: 110, Comm: g.comm(e.next)})
		case e.kind == 1:
			bd.Events = append(bd.Events, tracewriter.Event{Ts: e.ts, PID: e.pid, Switch: &tracewriter.SchedSwitch{
				PrevComm: g.comm(e.prev), PrevPID: e.prev, PrevPrio: 120, PrevState: e.prevSt, NextComm: g.comm(e.next), NextPID: e.next, NextPrio: 120}})
		case e.kind == 2:
			bd.Events = append(bd.Events, tracewriter.Event{Ts: e.ts, PID: e.pid, Waking: &tracewriter.SchedWaking{Comm: g.comm(e.next), PID: e.next, Prio: 110, TargetCPU: int32(c.id)}})
		case e.kind == 3:
			bd.Events = append(bd.Events, tracewriter.Event{Ts: e.ts, PID: e.pid, Print: e.text})
		case e.kind == 4:
			bd.Events = append(bd.Events, tracewriter.Event{Ts: e.ts, PID: e.pid, Binder: &tracewriter.BinderTransaction{DebugID: int32(e.ts % 1e6), ToProc: 1000, ToThread: e.toThread, Reply: e.reply}})
		}
	}
	g.w.Ftrace(bd)
}
