package simdevice

import (
	"cmp"
	"fmt"
	"math"
	"time"

	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// deviceCPU is the /proc/stat "cpu" counters in ticks, summed over cores.
// The per-core lines split the online cores' sums evenly (the simulated
// cores are alike), so the aggregate line is exact to a tick and equals the
// sum of the cores' lines plus what the offline cores counted before they
// went offline (at boot), as in the kernel.
type deviceCPU struct {
	n       int // online cores
	agg     cpuTicks
	offline cpuTicks // frozen counters of the offline cores
}

type cpuTicks struct {
	user, nice, system, idle, iowait, irq, softirq float64
}

// cpuLine is one /proc/stat line in whole ticks.
type cpuLine struct {
	user, nice, system, idle, iowait, irq, softirq int64
}

// ticks is the line as /proc/stat prints it.
func (c cpuLine) ticks() format.CPULine {
	return format.CPULine{User: c.user, Nice: c.nice, System: c.system, Idle: c.idle, IOWait: c.iowait, IRQ: c.irq, SoftIRQ: c.softirq}
}

func (c cpuLine) total() int64 {
	return c.user + c.nice + c.system + c.idle + c.iowait + c.irq + c.softirq
}

// init starts the counters as if the phone had been up for uptime ns at a
// light load, so the first /proc/stat looks like a real one; cores beyond
// online went offline 30 s after boot and keep what they counted until then.
func (c *deviceCPU) init(cores, online int, uptime int64) {
	c.n = online
	share := func(total float64) cpuTicks {
		t := cpuTicks{
			user: total * 0.031, nice: total * 0.003, system: total * 0.022,
			iowait: total * 0.002, irq: total * 0.003, softirq: total * 0.002,
		}
		t.idle = total - (t.user + t.nice + t.system + t.iowait + t.irq + t.softirq)
		return t
	}
	c.agg = share(float64(uptime) / 1e9 * userHZ * float64(online))
	c.offline = share(30 * userHZ * float64(cores-online))
}

// add spends dt ticks on every core: appUser/appSys ticks of app work, bg
// percent of all cores busy besides, and the rest idle.
func (c *deviceCPU) add(dt, appUser, appSys, bg float64) {
	all := dt * float64(c.n)
	b := bg / 100 * all
	busy := appUser + appSys + b
	if busy > all {
		// An overloaded phone cannot exceed 100% of its cores.
		scale := all / busy
		appUser, appSys, b, busy = appUser*scale, appSys*scale, b*scale, all
	}
	c.agg.user += appUser + b*0.6
	c.agg.system += appSys + b*0.3
	c.agg.irq += b * 0.05
	c.agg.softirq += b * 0.05
	c.agg.idle += all - busy
}

// line is the aggregate "cpu" line: every core's counters, the offline
// ones' frozen.
func (c *deviceCPU) line() cpuLine {
	a, o := c.agg, c.offline
	return cpuLine{int64(a.user + o.user), int64(a.nice + o.nice), int64(a.system + o.system), int64(a.idle + o.idle),
		int64(a.iowait + o.iowait), int64(a.irq + o.irq), int64(a.softirq + o.softirq)}
}

// perCore returns online core i's line: an even share of the online cores'
// counters, the last core taking the remainder.
func (c *deviceCPU) perCore(i int) cpuLine {
	a := c.agg
	l := cpuLine{int64(a.user), int64(a.nice), int64(a.system), int64(a.idle), int64(a.iowait), int64(a.irq), int64(a.softirq)}
	n := int64(c.n)
	share := func(v int64) int64 {
		if i == c.n-1 {
			return v - (n-1)*(v/n)
		}
		return v / n
	}
	return cpuLine{share(l.user), share(l.nice), share(l.system), share(l.idle), share(l.iowait), share(l.irq), share(l.softirq)}
}

// ticks is the process's utime and stime: the sums over its threads.
func (a *appProc) ticks() (utime, stime int64) {
	var u, s float64
	for _, t := range a.threads {
		u += t.utime
		s += t.stime
	}
	return int64(u), int64(s)
}

func (a *appProc) thread(name string) *thread {
	for _, t := range a.threads {
		if t.name == name {
			return t
		}
	}
	return nil
}

// uidTraffic is one UID's bytes since boot.
type uidTraffic struct {
	rx, tx float64
}

func (w *World) initTraffic() {
	up := float64(w.now) / 1e9
	w.traffic[0] = &uidTraffic{rx: up * 40, tx: up * 25}
	w.traffic[1000] = &uidTraffic{rx: up * 310, tx: up * 120}
	w.traffic[10112] = &uidTraffic{rx: up * 95, tx: up * 41} // com.google.android.gms
	w.traffic[w.wl.UID] = &uidTraffic{}
}

// accumulateLocked adds CPU time, memory growth and traffic for [from, to).
func (w *World) accumulateLocked(from, to int64) {
	dt := float64(to-from) / 1e9 // seconds
	ticks := dt * userHZ
	var appU, appS float64
	if a := w.app; a != nil {
		for j, th := range a.threads {
			busy := w.threadBusyTicks(from, to, j, w.threadLoad(th.name))
			u := busy * 0.8
			s := busy * 0.2
			th.utime += u
			th.stime += s
			appU += u
			appS += s
		}
		if p := w.phase; p != nil && w.fg == fgResumed && w.displayAt < 0 {
			a.javaKiB += p.JavaGrowthKiBps * dt
			a.natKiB += p.NativeGrowthKiBps * dt
			w.leakLocked(p, dt)
			if tr := w.traffic[w.wl.UID]; tr != nil {
				tr.rx += p.RxBps * dt
				tr.tx += p.TxBps * dt
			}
		}
	}
	w.cpu.add(ticks, appU, appS, w.opt.background)
	for uid, tr := range w.traffic {
		switch uid {
		case 1000:
			tr.rx += 310 * dt
			tr.tx += 120 * dt
		case 10112:
			tr.rx += 95 * dt
			tr.tx += 41 * dt
		case 0:
			tr.rx += 40 * dt
			tr.tx += 25 * dt
		}
	}
	w.battery.drain(dt, appU+appS, ticks)
	w.battery.e.settle(&w.battery, from, to)
}

// threadLoad is the percent of one core the named thread uses now.
func (w *World) threadLoad(name string) float64 {
	if w.displayAt >= 0 {
		// Launching: the main thread inflates the UI, RenderThread waits.
		switch name {
		case "main":
			return 85
		case "RenderThread":
			return 10
		}
		return 0
	}
	if w.fg != fgResumed || w.phase == nil {
		if name == "main" {
			return 0.5
		}
		return 0
	}
	for _, l := range w.phase.CPU {
		if l.Thread == name {
			return l.Percent
		}
	}
	return 0
}

// setThreadLoads creates the threads a phase names, as an app spawns workers.
func (w *World) setThreadLoads(p *Phase) {
	if w.app == nil || p == nil {
		return
	}
	for _, l := range p.CPU {
		if w.app.thread(l.Thread) == nil {
			w.app.threads = append(w.app.threads, &thread{tid: w.app.pid + 40 + len(w.app.threads), name: l.Thread})
		}
	}
}

// memSnapshot is the app's memory now, in KiB.
type memSnapshot struct {
	java, native, code, graphics, other, pss, rss int64
}

// memLocked is the app's memory now. With Config.Noise every size (the
// workload's, and its growth) scales by the run factor only: a phone's PSS
// does not jitter from one read to the next (it moves with what the app
// allocates), and a per-read draw would make every growth slope noise.
func (w *World) memLocked() memSnapshot {
	m := w.wl.Memory
	a := w.app
	if w.noise.on {
		k := w.noise.run
		kib := func(v float64) int64 { return int64(math.Round(v * k)) }
		s := memSnapshot{
			java:     max(kib(float64(m.JavaKiB)+a.javaKiB), 0),
			native:   max(kib(float64(m.NativeKiB)+a.natKiB), 0),
			code:     kib(float64(m.CodeKiB)),
			graphics: kib(float64(m.GraphicsKiB)),
			other:    kib(float64(m.OtherKiB)),
		}
		s.pss = s.java + s.native + s.code + s.graphics + s.other
		s.rss = s.pss + kib(float64(m.RSSExtraKiB))
		return s
	}
	s := memSnapshot{
		java:     int64(m.JavaKiB) + int64(a.javaKiB),
		native:   int64(m.NativeKiB) + int64(a.natKiB),
		code:     int64(m.CodeKiB),
		graphics: int64(m.GraphicsKiB),
		other:    int64(m.OtherKiB),
	}
	s.java, s.native = max(s.java, 0), max(s.native, 0)
	s.pss = s.java + s.native + s.code + s.graphics + s.other
	s.rss = s.pss + int64(m.RSSExtraKiB)
	return s
}

// newProcLocked starts a new app process at t.
func (w *World) newProcLocked(t int64) {
	w.nextPid += 7 + int(t/int64(time.Millisecond))%13
	if w.nextPid <= w.lastTid {
		// The kernel hands out pids and tids from one counter: a new
		// process comes after the threads of the one before.
		w.nextPid = w.lastTid + 1 + int(t/int64(time.Millisecond))%5
	}
	pid := w.nextPid
	a := &appProc{pid: pid, startAt: t, looperMs: w.looperThreshold(w.wl.UID)}
	names := []string{"main", "Signal Catcher", "perfetto_hprof_", "ADB-JDWP Connec", "Jit thread pool", "HeapTaskDaemon",
		"ReferenceQueueD", "FinalizerDaemon", "FinalizerWatchd", "Binder:%d_1", "Binder:%d_2", "Binder:%d_3",
		"Profile Saver", "RenderThread", "hwuiTask0"}
	for i, n := range names {
		if n == "Binder:%d_1" || n == "Binder:%d_2" || n == "Binder:%d_3" {
			n = fmt.Sprintf(n, pid)
		}
		tid := pid + i
		if i > 0 {
			tid = pid + 4 + i
		}
		a.threads = append(a.threads, &thread{tid: tid, name: n})
		w.lastTid = max(w.lastTid, tid)
	}
	w.app = a
	if w.cfg.Quirks.LogHistory {
		// An earlier process of the app had this pid and crashed.
		old := t - int64(3*time.Second)
		for _, l := range []string{"FATAL EXCEPTION: main", fmt.Sprintf("Process: %s, PID: %d", w.wl.Package, pid),
			"java.lang.OutOfMemoryError: Failed to allocate a 65552 byte allocation with 24 free bytes"} {
			w.backdateLocked(old, "crash", pid, pid, 'E', "AndroidRuntime", l)
		}
		w.backdateLocked(old+int64(30*time.Millisecond), "system", 1000, 1100, 'I', "ActivityManager",
			fmt.Sprintf("Process %s (pid %d) has died: fg  TOP ", w.wl.Package, pid))
	}
	// hwui and SurfaceFlinger state belong to the new process's window.
	w.gfx.reset(t)
	w.popup.reset(t)
	w.sf = w.sf[:0]
	w.logLocked(t, 1000, 1100, 'I', "ActivityManager", fmt.Sprintf("Start proc %d:%s/u0a%d for activity {%s}", pid, w.wl.Package, w.wl.UID-10000, w.wl.shortComponent()))
}

// killProcLocked ends the app process, keeping its CPU time for the truth.
func (w *World) killProcLocked(t int64) {
	a := w.app
	if a == nil {
		return
	}
	u, s := a.ticks()
	w.ended = append(w.ended, deadProc{pid: a.pid, ticks: u + s})
	w.app = nil
	w.fg = fgNone
	w.phase = nil
	w.crashAt, w.displayAt, w.fullyAt, w.launchAt = -1, -1, -1, -1
	// Frames still waiting for their present die with the process's
	// buffers; a trace still shows them drawn.
	for _, f := range w.pending {
		f.died = true
		w.died = append(w.died, f)
	}
	w.died = w.died[max(0, len(w.died)-diedKept):]
	w.pending = w.pending[:0]
	clear(w.frameBlocks)
	w.popupQueue = w.popupQueue[:0]
}

// launchLocked starts the main activity at t and returns the launch kind
// and the time to Displayed.
func (w *World) launchLocked(t int64) (kind string, wait time.Duration, alreadyTop bool) {
	if w.app != nil && w.fg == fgResumed {
		return "", 0, true
	}
	st := w.wl.Startup
	switch {
	case w.app == nil:
		kind, wait = "COLD", time.Duration(st.ColdMs)*time.Millisecond-w.coldSavingLocked()
		w.newProcLocked(t)
	case w.fg == fgStopped:
		kind, wait = "HOT", time.Duration(st.HotMs)*time.Millisecond
	default:
		kind, wait = "WARM", time.Duration(st.WarmMs)*time.Millisecond
	}
	// Every launch draws its own factor (the launch's ordinal is its key);
	// Displayed and Fully drawn share it, so one never passes the other.
	w.launches++
	k := w.noise.factor(drawLaunch, w.launches, 0)
	wait = scaleMs(wait, k)
	w.launchFactor = 0
	if w.noise.on {
		w.launchFactor = k
	}
	w.fg = fgResumed
	w.phase = nil
	w.launchAt = t
	w.launchKind = kind
	w.displayAt = t + int64(wait)
	w.launchMessagesLocked(kind, t, wait)
	w.fullyAt = -1
	if st.FullyDrawnMs > 0 && kind == "COLD" {
		w.fullyAt = t + int64(scaleMs(time.Duration(max(st.FullyDrawnMs, st.ColdMs))*time.Millisecond-w.coldSavingLocked(), k))
	}
	return kind, wait, false
}

// displayedLocked finishes a launch: the first frame is shown and the
// launch phase starts.
func (w *World) displayedLocked() {
	t := w.displayAt
	w.displayAt = -1
	if w.app == nil {
		return
	}
	d := time.Duration(t - w.launchAt)
	w.logLocked(t, 1000, 1100, 'I', w.amTag(), fmt.Sprintf("Displayed %s: +%s", w.wl.shortComponent(), fmtLogDuration(d)))
	ts := TruthStartup{Kind: w.launchKind, Pid: w.app.pid, StartNs: w.launchAt, DisplayedNs: t, Displayed: d, NoiseFactor: w.launchFactor}
	if w.fullyAt >= 0 {
		ts.FullyDrawn = time.Duration(w.fullyAt - w.launchAt)
	}
	ts.Compilation = w.compile.filter
	w.firstFrameLocked(t)
	if n := len(w.pending); n > 0 && w.pending[n-1].First && ts.Kind == "COLD" {
		w.coldPhasesLocked(&ts, &w.pending[n-1], cmp.Or(w.launchFactor, 1))
	} else if n > 0 && w.pending[n-1].First {
		w.warmPhasesLocked(&ts, &w.pending[n-1], cmp.Or(w.launchFactor, 1))
	}
	w.startup = append(w.startup, ts)
	w.startPhaseLocked(w.wl.phase(w.wl.Launch), t)
}

// firstFrameLocked draws the first frame of the window a launch shows,
// done by Displayed (t): ActivityMetricsLogger reports Displayed once the
// window's first frame is drawn and SurfaceFlinger latches it (a latch
// after the frame completes), so it shows on the first vsync at or after
// t, before the launch phase's first frame. It lays out and draws the
// whole new view hierarchy, so it is long: a fifth of the launch, at least
// two periods, within the launch. hwui flags it WindowLayoutChanged
// (TruthFrame.First).
func (w *World) firstFrameLocked(t int64) {
	done := t - latchNs
	wait := done - w.launchAt
	d := min(max(wait/5, 2*w.period), wait)
	v := (done - d) / w.period * w.period
	if v < w.launchAt {
		v = w.gridAtOrAfter(w.launchAt)
	}
	if v >= done {
		return
	}
	f := w.makeFrame(v, done-v, false, nil, done-v)
	f.First = true
	w.pending = append(w.pending, f)
}

// crashLocked kills the app with the phase's exception.
func (w *World) crashLocked() {
	t := w.crashAt
	c := w.phase.Crash
	a := w.app
	w.crashAt = -1
	w.crashes++
	pid := a.pid
	w.javaCrashLogs(t, pid, w.wl.Package, c.Exception)
	w.logBufLocked(t, "crash", pid, pid, 'E', "AndroidRuntime", "\tat "+w.wl.activityClass()+".onClick(MainActivity.java:42)")
	w.logBufLocked(t, "crash", pid, pid, 'E', "AndroidRuntime", "\tat android.view.View.performClick(View.java:7448)")
	w.logLocked(t+int64(5*time.Millisecond), 1000, 1100, 'I', "ActivityManager", fmt.Sprintf("Process %s (pid %d) has died: fg  TOP ", w.wl.Package, pid))
	w.killProcLocked(t)
	if c.Restart {
		// The system restarts the top activity right away in a new process.
		w.launchLocked(t + int64(10*time.Millisecond))
	}
}

// forceStopLocked is `am force-stop`: ActivityManagerService logs the
// force-stop and ProcessRecord.kill the kill ("stop <pkg>", and since
// Android 13 who asked); as the system killed the process itself, no "has
// died" line follows.
func (w *World) forceStopLocked() {
	if w.app == nil {
		return
	}
	const from = "from pid 0"
	w.logLocked(w.now, 1000, 1100, 'I', "ActivityManager", fmt.Sprintf("Force stopping %s appid=%d user=0: %s", w.wl.Package, w.wl.UID, from))
	why := "stop " + w.wl.Package
	if w.cfg.API >= 33 {
		why += " due to " + from
	}
	w.logBufLocked(w.now, "system", 1000, 1100, 'I', "ActivityManager", fmt.Sprintf("Killing %d:%s/u0a%d (adj 0): %s", w.app.pid, w.wl.Package, w.wl.UID-10000, why))
	w.killProcLocked(w.now)
}

// amTag is the tag of Displayed lines: ActivityManager up to API 28,
// ActivityTaskManager from API 29.
func (w *World) amTag() string {
	if w.cfg.API >= 29 {
		return "ActivityTaskManager"
	}
	return "ActivityManager"
}

// fmtLogDuration prints a duration as Android's TimeUtils.formatDuration
// does in Displayed lines: "+1s234ms", "+650ms".
func fmtLogDuration(d time.Duration) string {
	ms := d.Milliseconds()
	if ms >= 1000 {
		return fmt.Sprintf("%ds%03dms", ms/1000, ms%1000)
	}
	return fmt.Sprintf("%dms", ms)
}

// batteryState is a discharging battery; current grows with CPU use.
type batteryState struct {
	level    int
	charge   float64 // µAh used since creation
	current  float64 // µA, positive while discharging
	voltage  float64 // µV
	tempDeci int
	e        batteryEnergy // what it drew, for the truth and the power rails
}

func (b *batteryState) drain(dt, appTicks, ticks float64) {
	load := 0.0
	if ticks > 0 {
		load = appTicks / ticks // cores' worth of app work
	}
	b.current = 180_000 + 260_000*load
	b.charge += b.current * dt / 3600
	b.voltage = 3_870_000 - 40_000*load
	b.tempDeci = 312 + int(30*load)
}
