package simdevice

import (
	"cmp"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/format"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

// The tasks a simulated trace shows besides the app's: the CPUs' idle
// task, a kernel worker that takes the CPU while the main thread is
// runnable, SurfaceFlinger (whose vsync thread wakes the app), and
// system_server's binder thread, which answers the app's binder calls.
const (
	tidIdle          = 0
	tidKworker       = 81
	pidSF            = 612
	pidSystemServer  = 1000
	tidServerBinder  = 1100
	pidZygote        = 690
	prioApp          = 110
	prioOther        = 120
	stateSleeping    = 1
	stateDisk        = 2
	statePreempted   = 0x100 // TASK_RUNNING with the 4.14+ preemption bit
	displayTokenBase = 1_000_000_000
	framesPerBundle  = 32
)

// Data sources and ftrace events the simulated perfetto knows.
const (
	dsFtrace        = "linux.ftrace"
	dsProcessStats  = "linux.process_stats"
	dsFrameTimeline = "android.surfaceflinger.frametimeline"
	evSchedSwitch   = "sched/sched_switch"
	evSchedWaking   = "sched/sched_waking"
	evBinderTx      = "binder/binder_transaction"
)

// traceJob is one trace the simulated perfetto writes: the app's frames of
// [start, end) (device monotonic ns), with what the config asks for.
type traceJob struct {
	cfg        perfettoConfig
	sources    map[string]bool // the config's data sources the device has
	start, end int64
	// bootOffset is CLOCK_BOOTTIME − CLOCK_MONOTONIC, wall the
	// CLOCK_REALTIME at monotonic 0.
	bootOffset int64
	wall       time.Time
	api        int
	pkg        string
	window     string
	layer      string
	period     int64
	frames     []TruthFrame
	launches   []TruthStartup // the app's starts in the trace
	appPID     int            // the app's process when the trace began, 0 for none
	device     string
	kernel     string
}

// renderThreadTid is the RenderThread's tid in an app process (see
// newProcLocked).
func renderThreadTid(pid int) int32 { return int32(pid + 17) }

// cpuLog gathers one CPU's events until they go out in a bundle.
type cpuLog struct {
	cpu     uint32
	events  []tracewriter.Event
	compact tracewriter.CompactSched
}

// op is one event of a frame on one CPU; rank orders events of the same
// time: a task switched in, slices ended (inner first), slices begun
// (outer first), a binder call or a wake-up it causes, the task switched
// out.
type op struct {
	ts    int64
	rank  int
	sub   int
	event tracewriter.Event
}

// traceFeatures is what the config turns on.
type traceFeatures struct {
	ft, ftrace, procs              bool
	sched, waking, binder, compact bool
	cats                           map[string]bool
}

func (j *traceJob) features() traceFeatures {
	c := j.cfg
	f := traceFeatures{
		ft:     j.sources[dsFrameTimeline],
		ftrace: j.sources[dsFtrace],
		procs:  j.sources[dsProcessStats],
		cats:   map[string]bool{},
	}
	if f.ftrace {
		f.sched = slices.Contains(c.ftraceEvents, evSchedSwitch)
		f.waking = slices.Contains(c.ftraceEvents, evSchedWaking)
		f.binder = slices.Contains(c.ftraceEvents, evBinderTx) || slices.Contains(c.atraceCategories, "binder_driver")
		f.compact = c.compactSched
		for _, k := range c.atraceCategories {
			f.cats[k] = true
		}
		if slices.Contains(c.atraceApps, j.pkg) || slices.Contains(c.atraceApps, "*") {
			f.cats[catApp] = true
		}
	}
	return f
}

// write writes the trace: a clock snapshot and the system's identity, the
// processes when process_stats is on, then per frame its FrameTimeline
// events and its main thread's and RenderThread's ftrace events, and a
// clock snapshot at the end. A frame still in flight at the end has an
// actual frame without an end, as a trace stopped mid-frame has.
func (j *traceJob) write(out io.Writer) error {
	w := tracewriter.New(out)
	boot := func(mono int64) int64 { return mono + j.bootOffset }
	snap := func(mono int64) {
		w.ClockSnapshot(map[trace.Clock]int64{
			trace.Boottime:  boot(mono),
			trace.Monotonic: mono,
			trace.Realtime:  j.wall.Add(time.Duration(mono)).UnixNano(),
		})
	}
	snap(j.start)
	w.SystemInfo(j.device, j.kernel, j.api)
	feat := j.features()
	comm := format.Comm(j.pkg)
	if feat.procs {
		j.processTrees(w, feat, comm)
	}
	cpus := []*cpuLog{{cpu: 0}, {cpu: 1}, {cpu: 2}, {cpu: 3}}
	flush := func() {
		for _, c := range cpus {
			if len(c.events) == 0 && len(c.compact.Switches) == 0 && len(c.compact.Wakings) == 0 {
				continue
			}
			bd := tracewriter.Bundle{CPU: c.cpu, Events: c.events}
			if len(c.compact.Switches) > 0 || len(c.compact.Wakings) > 0 {
				cs := c.compact
				bd.Compact = &cs
			}
			w.Ftrace(bd)
			c.events, c.compact = nil, tracewriter.CompactSched{}
		}
	}
	var cookie int64
	frames := slices.Clone(j.frames)
	slices.SortStableFunc(frames, func(a, b TruthFrame) int { return cmp.Compare(a.IntendedVsync, b.IntendedVsync) })
	n := 0
	for i := range frames {
		f := &frames[i]
		if f.IntendedVsync < j.start || f.IntendedVsync >= j.end || f.Window != j.window {
			continue
		}
		if feat.ft && !f.died && f.VsyncID >= 0 && f.Deadline != int64Max {
			cookie = j.frameTimeline(w, f, cookie)
		}
		if feat.ftrace && f.Completed <= j.end {
			j.frameEvents(f, feat, comm, cpus)
		}
		if n++; n%framesPerBundle == 0 {
			flush()
		}
	}
	var launch []op
	for i := range j.launches {
		launch = append(launch, j.launchOps(&j.launches[i], feat, comm)...)
	}
	// A launch's reportFullyDrawn may come after the next launch began.
	slices.SortStableFunc(launch, func(a, b op) int { return cmp.Compare(a.ts, b.ts) })
	for _, x := range launch {
		if feat.ftrace && x.ts <= boot(j.end) {
			cpus[3].events = append(cpus[3].events, x.event)
		}
	}
	flush()
	j.trackEventSections(w, frames)
	snap(j.end)
	return w.Err()
}

// processTrees writes the process list at the trace's start and, as
// traced_probes does, an on-demand dump of each app process a cold start
// began in it.
func (j *traceJob) processTrees(w *tracewriter.Writer, feat traceFeatures, comm string) {
	boot := func(mono int64) int64 { return mono + j.bootOffset }
	procs := []tracewriter.Process{
		{PID: 1, PPID: 0, Cmdline: "/system/bin/init"},
		{PID: pidSF, PPID: 1, Cmdline: "/system/bin/surfaceflinger"},
		{PID: pidZygote, PPID: 1, Cmdline: "zygote64"},
		{PID: pidSystemServer, PPID: pidZygote, Cmdline: "system_server"},
	}
	threads := []tracewriter.Thread{{TID: tidServerBinder, TGID: pidSystemServer, Name: "binder:1000_2"}}
	if j.appPID > 0 {
		procs = append(procs, tracewriter.Process{PID: int32(j.appPID), PPID: pidZygote, Cmdline: j.pkg})
		threads = append(threads, tracewriter.Thread{TID: int32(j.appPID), TGID: int32(j.appPID), Name: comm},
			tracewriter.Thread{TID: renderThreadTid(j.appPID), TGID: int32(j.appPID), Name: "RenderThread"}, sectionThread(j.appPID))
	}
	w.ProcessTree(boot(j.start), procs, threads)
	// traced_probes reads /proc for each new pid its ftrace events show
	// (an on-demand dump), after the process named itself.
	for i := range j.launches {
		if l := &j.launches[i]; feat.ftrace && l.Kind == "COLD" && l.Pid > 0 && l.Pid != j.appPID && len(l.Phases) > 0 {
			pid := int32(l.Pid)
			w.ProcessTree(boot(l.Phases[0].EndNs), []tracewriter.Process{{PID: pid, PPID: pidZygote, Cmdline: j.pkg}},
				[]tracewriter.Thread{{TID: pid, TGID: pid, Name: comm}, {TID: renderThreadTid(l.Pid), TGID: pid, Name: "RenderThread"}, sectionThread(l.Pid)})
		}
	}
}

// frameTimeline writes f's expected and actual surface frames and the
// display frame it was presented in.
func (j *traceJob) frameTimeline(w *tracewriter.Writer, f *TruthFrame, cookie int64) int64 {
	boot := func(mono int64) int64 { return mono + j.bootOffset }
	jank, present := frameJank(f)
	dtok := displayTokenBase + int64(f.Index)
	sf := tracewriter.SurfaceFrame{Token: f.VsyncID, DisplayToken: dtok, PID: int32(f.Pid), Layer: j.layer}
	cookie++
	exp := sf
	exp.Cookie = cookie
	w.ExpectedSurfaceFrame(boot(f.IntendedVsync), exp)
	if f.Deadline <= j.end {
		w.FrameEnd(boot(f.Deadline), cookie)
	}
	cookie++
	act := sf
	act.Cookie, act.Present, act.OnTimeFinish, act.Jank, act.Prediction = cookie, present, !f.Missed, jank, 1
	w.ActualSurfaceFrame(boot(f.IntendedVsync), act)
	if f.Completed > j.end {
		return cookie // still drawing when the trace stopped
	}
	w.FrameEnd(boot(f.Completed), cookie)
	if f.Present > j.end {
		return cookie
	}
	natural := f.Present
	if f.SFLate || f.Stuffed {
		natural = (f.Completed + latchNs + j.period - 1) / j.period * j.period
	}
	dj := trace.JankNone
	if f.SFLate {
		dj = trace.JankSFCPUDeadlineMissed
	}
	cookie++
	w.ExpectedDisplayFrame(boot(natural-j.period), tracewriter.DisplayFrame{Cookie: cookie, Token: dtok, PID: pidSF})
	w.FrameEnd(boot(natural), cookie)
	cookie++
	w.ActualDisplayFrame(boot(f.Present-j.period+100_000), tracewriter.DisplayFrame{Cookie: cookie, Token: dtok, PID: pidSF, Present: present, Jank: dj, Prediction: 1})
	w.FrameEnd(boot(f.Present), cookie)
	return cookie
}

// frameEvents adds f's scheduler, binder and atrace events: the main
// thread's (planFrame) on CPU 1, its wake-ups on CPU 0, RenderThread's on
// CPU 2.
func (j *traceJob) frameEvents(f *TruthFrame, feat traceFeatures, comm string, cpus []*cpuLog) {
	main, rt := int32(f.Pid), renderThreadTid(f.Pid)
	o := &frameOps{j: j, feat: feat, main: main, rt: rt, pidText: strconv.Itoa(f.Pid),
		names: map[int32]string{tidIdle: "swapper", tidKworker: "kworker/1:1", main: comm, rt: "RenderThread"}}
	o.mainThread(f, planFrame(f))
	o.renderThread(f)
	o.workerSections(f)
	o.flush(cpus)
}

// frameOps gathers one frame's events per CPU before they go, in order,
// to the CPUs' logs.
type frameOps struct {
	j        *traceJob
	feat     traceFeatures
	main, rt int32
	pidText  string // the app's pid
	names    map[int32]string
	per      [3][]op
}

func (o *frameOps) boot(mono int64) int64 { return mono + o.j.bootOffset }

func (o *frameOps) prio(t int32) int32 {
	if t == o.main || t == o.rt {
		return prioApp
	}
	return prioOther
}

// add puts an event at mono time ts on cpu.
func (o *frameOps) add(cpu int, ts int64, rank, sub int, e tracewriter.Event) {
	e.Ts = o.boot(ts)
	o.per[cpu] = append(o.per[cpu], op{ts: e.Ts, rank: rank, sub: sub, event: e})
}

func (o *frameOps) sw(cpu int, ts int64, prev int32, prevState int64, next int32, rank int) {
	if !o.feat.sched {
		return
	}
	o.add(cpu, ts, rank, 0, tracewriter.Event{PID: prev, Switch: &tracewriter.SchedSwitch{
		PrevComm: o.names[prev], PrevPID: prev, PrevPrio: o.prio(prev), PrevState: prevState,
		NextComm: o.names[next], NextPID: next, NextPrio: o.prio(next)}})
}

func (o *frameOps) wake(cpu int, ts int64, by, who int32, rank int) {
	if !o.feat.waking {
		return
	}
	o.add(cpu, ts, rank, 0, tracewriter.Event{PID: by,
		Waking: &tracewriter.SchedWaking{Comm: o.names[who], PID: who, Prio: o.prio(who), TargetCPU: 1}})
}

func (o *frameOps) print(cpu int, ts int64, tid int32, text string, rank, sub int) {
	o.add(cpu, ts, rank, sub, tracewriter.Event{PID: tid, Print: text})
}

// mainThread adds the main thread's events on CPU 1 and its wake-ups on
// CPU 0.
func (o *frameOps) mainThread(f *TruthFrame, p framePlan) {
	main := o.main
	// Woken by SurfaceFlinger's vsync thread; a kernel worker holds the
	// CPU until HandleInputStart, unless the main thread runs the cause's
	// message till then.
	o.wake(0, f.IntendedVsync, pidSF, main, 0)
	if f.WaitMessage {
		o.sw(1, f.IntendedVsync, tidIdle, 0, main, 0)
	} else {
		o.sw(1, f.IntendedVsync, tidIdle, 0, tidKworker, 0)
		o.sw(1, f.HandleInputStart, tidKworker, stateSleeping, main, 0)
	}
	for _, s := range p.slices {
		if !o.feat.cats[s.cat] {
			continue
		}
		if s.depth == 0 && o.j.api < 31 {
			s = preS(f, s)
		}
		o.print(1, s.start, main, "B|"+o.pidText+"|"+s.name, 2, s.depth)
		o.print(1, s.end, main, "E|"+o.pidText, 1, -s.depth)
	}
	switch {
	case p.wait != "":
		o.wait(f, p)
	case p.preemptEnd > p.preemptStart:
		o.sw(1, p.preemptStart, main, statePreempted, tidKworker, 4)
		o.sw(1, p.preemptEnd, tidKworker, stateSleeping, main, 0)
	}
	// The frame goes to RenderThread; the main thread sleeps till the
	// next vsync.
	o.wake(1, f.SyncQueued, main, o.rt, 3)
	o.sw(1, f.SyncQueued, main, stateSleeping, tidIdle, 4)
}

// wait adds the main thread's wait in the frame: on a binder call (with
// its transaction and reply), I/O or a lock.
func (o *frameOps) wait(f *TruthFrame, p framePlan) {
	main := o.main
	st := int64(stateSleeping)
	if p.wait == WaitIO {
		st = stateDisk
	}
	if p.wait == WaitBinder && o.feat.binder {
		o.add(1, p.waitStart, 3, 0, tracewriter.Event{PID: main,
			Binder: &tracewriter.BinderTransaction{DebugID: int32(f.Index), ToProc: pidSystemServer, ToThread: tidServerBinder}})
		o.add(0, p.waitEnd, 3, 0, tracewriter.Event{PID: tidServerBinder,
			Binder: &tracewriter.BinderTransaction{DebugID: int32(f.Index) + 1, ToProc: int32(f.Pid), ToThread: main, Reply: true}})
	}
	o.sw(1, p.waitStart, main, st, tidIdle, 4)
	waker := int32(tidServerBinder)
	switch p.wait {
	case WaitIO:
		waker = tidIdle
	case WaitLock:
		waker = int32(f.Pid + 18)
	}
	o.wake(0, p.waitEnd, waker, main, 4)
	o.sw(1, p.waitEnd, tidIdle, 0, tidKworker, 0)
	o.sw(1, p.back, tidKworker, stateSleeping, main, 0)
}

// renderSpan is RenderThread's DrawFrames slice of f: from just after
// the main thread queued the frame to just before it completed.
func renderSpan(f *TruthFrame) (start, end int64) {
	start, end = f.SyncQueued, f.Completed
	if end-start > 100_000 {
		start, end = start+50_000, end-10_000
	}
	return start, end
}

// preS is the doFrame slice as Android 11 and older write it: no vsync id
// in its name, and open until RenderThread has synced the frame (hwui's
// DrawFrameTask, which the main thread waits for), so that the frame's
// DrawFrame slice begins inside it.
func preS(f *TruthFrame, s planSlice) planSlice {
	s.name = "Choreographer#doFrame"
	rtStart, _ := renderSpan(f)
	s.end = max(s.end, rtStart+syncNs)
	return s
}

// syncNs is how long RenderThread takes to sync a frame before the main
// thread goes on (Android 11 and older, see preS).
const syncNs = 20_000

// renderThread adds RenderThread's events on CPU 2: its DrawFrames <vsync
// id> slice, before Android 12 DrawFrame.
func (o *frameOps) renderThread(f *TruthFrame) {
	rtStart, rtEnd := renderSpan(f)
	o.sw(2, rtStart, tidIdle, 0, o.rt, 0)
	name := "DrawFrames " + strconv.FormatInt(f.VsyncID, 10)
	if o.j.api < 31 {
		name = "DrawFrame"
	}
	if o.feat.cats[catGfx] {
		o.print(2, rtStart, o.rt, "B|"+o.pidText+"|"+name, 2, 0)
		o.print(2, rtEnd, o.rt, "E|"+o.pidText, 1, 0)
	}
	o.sw(2, f.Completed, o.rt, stateSleeping, tidIdle, 4)
}

// flush sorts each CPU's events and appends them to its log, switches and
// wakings in the compact encoding when it is on.
func (o *frameOps) flush(cpus []*cpuLog) {
	for cpu, ops := range o.per {
		slices.SortStableFunc(ops, func(a, b op) int {
			return cmp.Or(cmp.Compare(a.ts, b.ts), cmp.Compare(a.rank, b.rank), cmp.Compare(a.sub, b.sub))
		})
		c := cpus[cpu]
		for _, x := range ops {
			e := x.event
			switch {
			case o.feat.compact && e.Switch != nil:
				c.compact.Switches = append(c.compact.Switches, tracewriter.CompactSwitch{Ts: e.Ts, PrevState: e.Switch.PrevState,
					NextPID: e.Switch.NextPID, NextPrio: e.Switch.NextPrio, NextComm: e.Switch.NextComm})
			case o.feat.compact && e.Waking != nil:
				c.compact.Wakings = append(c.compact.Wakings, tracewriter.CompactWaking{Ts: e.Ts, PID: e.Waking.PID,
					TargetCPU: e.Waking.TargetCPU, Prio: e.Waking.Prio, Comm: e.Waking.Comm})
			default:
				c.events = append(c.events, e)
			}
		}
	}
}
