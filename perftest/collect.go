package perftest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/perftest/internal/causesrc"
	"github.com/perfgate/perfgate/perftest/internal/ends"
	"github.com/perfgate/perfgate/perftest/internal/framesrc"
	"github.com/perfgate/perfgate/perftest/internal/smooth"
	"github.com/perfgate/perfgate/perftest/internal/stepstats"
	"github.com/perfgate/perfgate/perftest/internal/tracing"
	"github.com/perfgate/perfgate/result"
)

// Traffic modes, from the most to the least specific (DESIGN.md "Traffic").
const (
	trafficQtaguid  = "/proc/net/xt_qtaguid/stats"
	trafficUIDStat  = "/proc/uid_stat/<uid>/tcp_rcv,tcp_snd"
	trafficNetstats = "dumpsys netstats"
	trafficNetDev   = "/proc/<pid>/net/dev"
)

// collector turns ticks into samples and frames. Its methods run with the
// session's mu held, except setup.
type collector struct {
	s   *Session
	cfg Config

	// ab keeps what explains a metric without a value.
	ab absenceLog

	// frames is the frame source: polls, frames, rows rejected.
	frames    *framesrc.Source
	refreshHz float64
	procNames []string // the app's process names, for pidof
	uid       int

	cpuOK      bool
	traffic    string // one of the traffic modes, "" when off
	batteryOK  bool
	thermalOK  bool
	pids       []int
	everRan    bool
	ticks      int
	noted      map[string]bool
	clockGfx   clockMap // gfxinfo "Uptime:" (CLOCK_MONOTONIC, ms)
	clockProc  clockMap // /proc/uptime (CLOCK_BOOTTIME, 10 ms)
	aux        sync.WaitGroup
	lastCPUPct float64
	// ends follows the app's processes, for placing their ends in the log.
	ends    ends.Source
	pidofOK bool // the last pidof answered (a failed one says nothing)
	// smooth holds the app's Choreographer lines, read at Stop.
	smooth smooth.Source
	// causes finds why frames janked (causes.go).
	causes *causesrc.Source
	// tr is the session's Perfetto trace (Config.Trace).
	tr *tracing.Recorder
	// whole is the Result's Whole step while it is summarised.
	whole *result.Step
	// provisional is set while steps are summarised for a Result written
	// before Stop: their notes are not the Result's.
	provisional bool
}

func newCollector(s *Session) *collector {
	c := &collector{
		s:      s,
		cfg:    s.cfg,
		noted:  map[string]bool{},
		causes: newCauses(s),
	}
	c.frames = newFrameSource(c)
	return c
}

func (c *collector) note(format string, args ...any) {
	if c.provisional {
		return
	}
	msg := fmt.Sprintf(format, args...)
	c.ab.tickNotes = append(c.ab.tickNotes, msg)
	if c.noted[msg] {
		return
	}
	c.noted[msg] = true
	c.s.res.Notes = append(c.s.res.Notes, msg)
}

// setup gathers the facts and picks the sources; it runs before the lanes.
func (c *collector) setup(ctx context.Context) error {
	r := c.s.res
	pkg := c.cfg.Package
	if err := dumpsys.ValidatePackage(pkg); err != nil {
		return fmt.Errorf("perftest: %w", err)
	}
	facts, notes, err := c.s.dev.facts(ctx)
	if err != nil {
		return fmt.Errorf("perftest: device facts: %w", err)
	}
	r.Device = facts
	for _, n := range notes {
		c.note("device facts: %s", n)
	}
	if r.Device.ClockTicks <= 0 {
		r.Device.ClockTicks = 100
	}
	c.uid, err = c.s.dev.appUID(ctx, pkg)
	if err != nil {
		return fmt.Errorf("perftest: app %s: %w", pkg, err)
	}
	r.App.UID = c.uid
	names, pids, err := c.s.dev.appProcesses(ctx, pkg)
	if err != nil {
		return fmt.Errorf("perftest: app %s: %w", pkg, err)
	}
	c.procNames = []string{pkg}
	for _, n := range names {
		if n != pkg && processName.MatchString(n) {
			c.procNames = append(c.procNames, n)
		}
	}
	sort.Ints(pids)
	c.pids = pids
	c.everRan = len(pids) > 0
	r.App.PIDs = pids
	r.App.RunningAtStart = len(pids) > 0
	if len(pids) == 0 && !c.cfg.WaitForApp {
		return fmt.Errorf("perftest: app %s: %w (start it first, or set Config.WaitForApp)", pkg, ErrAppNotRunning)
	}

	c.refreshHz = c.cfg.RefreshHz
	if c.refreshHz <= 0 {
		c.refreshHz = facts.RefreshHz
	}
	if c.refreshHz <= 0 {
		c.refreshHz = 60
		c.note("device reported no refresh rate; assuming 60 Hz")
	}
	if c.cfg.has(CollectFrames) {
		if iv := pollInterval(c.cfg.Interval, c.refreshHz); iv != c.cfg.Interval {
			c.note("config: interval %v lowered to %v: the device keeps its last %d frames (%v at %g Hz), and polling twice in that time loses none",
				c.cfg.Interval, iv, framesrc.BufferLen, (2 * iv).Round(time.Millisecond), c.refreshHz)
			c.s.cfg.Interval, c.cfg.Interval = iv, iv
		}
	}

	// The trace starts before the probe clears the frame histories, so it
	// holds every frame the session counts.
	c.startTrace(ctx)
	if err := c.probe(ctx); err != nil {
		return err
	}
	c.setupCauses(ctx)
	return nil
}

// probe reads, in one round trip, what decides the sources: the layer list,
// which traffic counters and battery files are readable, and whether
// /proc/stat is; then it clears the frame histories.
func (c *collector) probe(ctx context.Context) error {
	var cmds []string
	add := func(cmd string) int { cmds = append(cmds, cmd); return len(cmds) - 1 }
	iList, iGfx, iQt, iUID, iNS, iBat, iTh, iStat := -1, -1, -1, -1, -1, -1, -1, -1
	frames := c.cfg.has(CollectFrames)
	auto := frames && c.cfg.FrameSource == SourceAuto && c.cfg.Layer == ""
	if frames && c.cfg.FrameSource != SourceGfxInfo && c.cfg.Layer == "" {
		iList = add("dumpsys SurfaceFlinger --list")
	}
	if auto {
		iGfx = add("dumpsys gfxinfo " + shellQuote(c.cfg.Package) + " framestats")
	}
	if c.cfg.has(CollectTraffic) {
		iQt = add("cat " + trafficQtaguid)
		iUID = add(fmt.Sprintf("cat /proc/uid_stat/%d/tcp_rcv /proc/uid_stat/%d/tcp_snd", c.uid, c.uid))
		iNS = add("dumpsys netstats")
	}
	if c.cfg.has(CollectBattery) {
		iBat = add("cat /sys/class/power_supply/battery/uevent")
		iTh = add(dumpsys.ThermalZonesCommand)
	}
	if c.cfg.has(CollectCPU) {
		iStat = add("cat /proc/stat")
	}
	// When and how recently the app's processes started, should one end
	// before a tick has seen it (see ends.Process).
	iUp, iPids := add("cat /proc/uptime"), -1
	if len(c.pids) > 0 {
		var files []string
		for _, p := range c.pids {
			files = append(files, fmt.Sprintf("/proc/%d/stat", p))
		}
		iPids = add("cat " + strings.Join(files, " "))
	}
	var out []adbx.Result
	if len(cmds) > 0 {
		var err error
		out, err = c.s.dev.batch(ctx, cmds)
		if err == nil && len(out) != len(cmds) {
			err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
		}
		if err != nil {
			return fmt.Errorf("perftest: probe: %w", err)
		}
	}

	if up, ok := uptimeOf(out[iUp]); ok {
		c.ends.Seen(c.pids, up)
	}
	if iPids >= 0 {
		if sts, err := procfs.ParsePidStats(out[iPids].Stdout); err == nil {
			for _, st := range sts {
				c.ends.Started(st.PID, st.StartTime)
			}
		}
	}
	var list, gfx adbx.Result
	listCmd := ""
	if iList >= 0 {
		list, listCmd = out[iList], cmds[iList]
	}
	if iGfx >= 0 {
		gfx = out[iGfx]
	}
	if err := c.pickFrames(ctx, list, listCmd, gfx, auto); err != nil {
		return err
	}
	if iQt >= 0 {
		switch {
		case out[iQt].ExitCode == 0 && qtaguidOK(out[iQt].Stdout, c.uid):
			c.traffic = trafficQtaguid
		case out[iUID].ExitCode == 0:
			c.traffic = trafficUIDStat
		case out[iNS].ExitCode == 0 && netstatsHasUID(out[iNS].Stdout, c.uid):
			c.traffic = trafficNetstats
		default:
			c.traffic = trafficNetDev
			c.note("traffic: no per-UID counters readable (%s; %s; %s has no mAppUidStatsMap row for uid %d); reporting device-wide %s with scope \"device\"",
				devcmd.Failure(out[iQt], "cat "+trafficQtaguid), devcmd.Failure(out[iUID], "cat /proc/uid_stat/<uid>"), trafficNetstats, c.uid, trafficNetDev)
		}
	}
	if iBat >= 0 {
		c.batteryOK = out[iBat].ExitCode == 0
		if !c.batteryOK {
			c.ab.batteryWhy = devcmd.Failure(out[iBat], cmds[iBat])
			c.note("battery: %s; battery not collected", c.ab.batteryWhy)
		}
		zones, err := dumpsys.ParseThermalZones(out[iTh].Stdout)
		c.thermalOK = err == nil && len(thermalTemps(zones)) > 0
		if !c.thermalOK {
			c.note("thermal: %s; no readable zone; thermal not collected", devcmd.Failure(out[iTh], dumpsys.ThermalZonesCommand))
		}
	}
	if iStat >= 0 {
		c.cpuOK = out[iStat].ExitCode == 0
		if !c.cpuOK {
			c.ab.statWhy = short(out[iStat])
			c.note("cpu: %s; device CPU unavailable, app CPU %% is reported against wall time × cores", devcmd.Failure(out[iStat], "cat /proc/stat"))
			if c.s.res.Device.Cores <= 0 {
				c.note("cpu: the core count is unknown too; only the app's top-style per-core figure is computed")
			}
		}
	}

	// Clear the histories so the first poll holds only this session's
	// frames, and no earlier frame is counted into a step.
	if frames && len(c.pids) > 0 {
		clear := c.frames.ClearCmd()
		out, err := c.s.dev.batch(ctx, []string{clear})
		if err != nil {
			return fmt.Errorf("perftest: frames: %s: %w", clear, err)
		}
		if len(out) == 1 && out[0].ExitCode != 0 {
			c.note("frames: %s", devcmd.Failure(out[0], clear))
		}
	}
	return nil
}

// pickFrames tells the frame source what to poll: the source and layer
// named, else the app's layer in list, the `dumpsys SurfaceFlinger --list`
// that listCmd printed ("" when not read), and when auto, the source
// chooseSource picks with the gfxinfo dump gfx. The frame source is told
// even when it fails, so the Result names what was chosen so far.
func (c *collector) pickFrames(ctx context.Context, list adbx.Result, listCmd string, gfx adbx.Result, auto bool) (err error) {
	source, layer := c.cfg.FrameSource, c.cfg.Layer
	defer func() {
		c.frames.Use(framesrc.Config{Package: c.cfg.Package, Kind: string(source), Layer: layer,
			RefreshHz: c.refreshHz, Interval: c.cfg.Interval, Settle: c.cfg.Settle})
	}()
	if layer != "" {
		source = SourceSurfaceFlinger
	}
	if listCmd != "" {
		layer = framesrc.PickLayer(list.Stdout, c.cfg.Package)
		if source == SourceSurfaceFlinger && layer == "" {
			if list.ExitCode != 0 {
				return fmt.Errorf("perftest: frames: %s (name the layer with WithLayer)", devcmd.Failure(list, listCmd))
			}
			return fmt.Errorf("perftest: frames: no SurfaceFlinger layer of %s in `dumpsys SurfaceFlinger --list` (name one with WithLayer)", c.cfg.Package)
		}
	}
	if auto {
		source, layer, err = c.chooseSource(ctx, gfx, layer)
	}
	return err
}

// chooseSource picks the frame source where none was given, from the
// gfxinfo dump gfx and, when the app has a layer, that layer's frames
// (framesrc.Choose); the layer is "" unless SurfaceFlinger is picked.
// When the layer cannot be read it returns gfxinfo and the layer, as
// the Result then names them, with the error.
func (c *collector) chooseSource(ctx context.Context, gfx adbx.Result, layer string) (FrameSource, string, error) {
	if layer == "" {
		return SourceGfxInfo, "", nil
	}
	cmd := "dumpsys SurfaceFlinger --latency " + shellQuote(layer)
	out, err := c.s.dev.batch(ctx, []string{cmd})
	if err != nil {
		return SourceGfxInfo, layer, fmt.Errorf("perftest: probe: %s: %w", cmd, err)
	}
	var latency []byte
	if len(out) == 1 && out[0].ExitCode == 0 {
		latency = out[0].Stdout
	}
	kind, gfxN, sfN := framesrc.Choose(devcmd.Output(gfx), latency)
	c.note("frames: auto source %s (last 0.5 s: gfxinfo %d frames, layer %q %d)", kind, gfxN, layer, sfN)
	if kind != frames.SourceSurfaceFlinger {
		layer = ""
	}
	return FrameSource(kind), layer, nil
}

func (c *collector) runConfig() result.RunConfig {
	rc := result.RunConfig{
		IntervalMs:     float64(c.cfg.Interval) / 1e6,
		SlowIntervalMs: float64(c.cfg.SlowInterval) / 1e6,
		FrameSource:    c.frames.Kind(),
		Layer:          c.frames.Layer(),
		TrafficSource:  c.traffic,
	}
	for _, k := range c.cfg.Collectors {
		rc.Collectors = append(rc.Collectors, string(k))
	}
	rc.Sources = map[string]string{
		"clock":  "dumpsys gfxinfo <pkg> (Uptime line, ms), else cat /proc/uptime (s)",
		"pids":   "pidof <process names>",
		"cpu":    "cat /proc/stat; /proc/<pid>/stat; /proc/<pid>/task/*/stat (clock ticks)",
		"rss":    "cat /proc/<pid>/status VmRSS (KiB)",
		"memory": "dumpsys meminfo <pkg> (KiB)",
		"crash":  "pidof <process names>; logcat -d -b crash, -b main -b system -v threadtime -v epoch (the dead pid's lines and the system's about it, by device time)",
	}
	switch FrameSource(c.frames.Kind()) {
	case SourceSurfaceFlinger:
		rc.Sources["frames"] = "dumpsys SurfaceFlinger --latency <layer> (ns)"
	case SourceGfxInfo:
		rc.Sources["frames"] = "dumpsys gfxinfo <pkg> framestats (ns)"
	}
	if c.traffic != "" {
		rc.Sources["traffic"] = c.traffic + " (bytes)"
	}
	if c.batteryOK {
		rc.Sources["battery"] = "cat /sys/class/power_supply/battery/uevent (%, °C, mV, mA)"
	}
	if c.thermalOK {
		rc.Sources["thermal"] = dumpsys.ThermalZonesCommand + " (°C)"
	}
	switch c.traffic {
	case trafficQtaguid, trafficUIDStat, trafficNetstats:
		rc.TrafficScope = "uid"
	case trafficNetDev:
		rc.TrafficScope = "device"
	}
	return rc
}

// tickPlan is one tick's commands and where each reading sits in them.
type tickPlan struct {
	cmds                                                                    []string
	uptime, frames, stat, pidof, pidStat, status, tasks, net, batt, thermal int
	// framesUptime is a clock read right before a SurfaceFlinger dump
	// (-1 for none): the rows carry no clock of their own.
	framesUptime int
	// filtered says the frames command keeps only rows not taken yet.
	filtered bool
	// lease renews the Looper property's mark (-1 for none; PlanLease).
	lease int
}

// plan is the next tick's commands; allFrames polls frames whatever
// framesDue says (Stop's polls).
func (c *collector) plan(allFrames bool) tickPlan {
	p := tickPlan{uptime: -1, frames: -1, stat: -1, pidof: -1, pidStat: -1, status: -1, tasks: -1, net: -1, batt: -1, thermal: -1, framesUptime: -1}
	add := func(cmd string) int { p.cmds = append(p.cmds, cmd); return len(p.cmds) - 1 }
	pkg := shellQuote(c.cfg.Package)
	names := make([]string, len(c.procNames))
	for i, n := range c.procNames {
		names[i] = shellQuote(n)
	}
	pidof := "pidof " + strings.Join(names, " ")
	// Each per-process read loops over the pids the device has NOW, so a
	// restarted app is read in the same tick that sees its new pid.
	each := func(format string) string {
		return "for p in $(" + pidof + "); do " + fmt.Sprintf(format, "$p") + "; done"
	}
	if c.cfg.has(CollectFrames) && (allFrames || c.framesDue()) {
		c.planFrames(&p, add)
	}
	// The clock is read right after the CPU counters, with nothing
	// between the app's counters, the device's and the clock: each
	// command the shell runs in between takes a few ms on a phone, more
	// on a busy one, and a clock read that far from the counters would
	// give each CPU interval a length that is not its own (10 % in a
	// 1.5 s step whose reads drifted 150 ms apart). It is read after the
	// frame dump, so a dump's rows are all older than it.
	p.pidof = add(pidof)
	if c.cfg.has(CollectCPU) {
		p.pidStat = add(each("cat /proc/%s/stat"))
		if c.cpuOK {
			p.stat = add("cat /proc/stat")
		}
	}
	p.uptime = add("cat /proc/uptime")
	// The traffic counters right after the clock, for the same reason:
	// their rate divides by the device's time between two reads.
	switch c.traffic {
	case trafficQtaguid:
		p.net = add("cat " + trafficQtaguid)
	case trafficUIDStat:
		p.net = add(fmt.Sprintf("cat /proc/uid_stat/%d/tcp_rcv /proc/uid_stat/%d/tcp_snd", c.uid, c.uid))
	case trafficNetDev:
		p.net = add("for p in $(pidof " + pkg + "); do cat /proc/$p/net/dev; done")
	}
	if c.cfg.has(CollectCPU) {
		p.tasks = add("for p in $(pidof " + pkg + "); do cat /proc/$p/task/*/stat; done")
	}
	if c.cfg.has(CollectMemory) {
		p.status = add(each("cat /proc/%s/status"))
	}
	// The battery changes slowly; reading it every tenth tick keeps ticks small.
	if c.batteryOK && c.ticks%10 == 0 {
		p.batt = add("cat /sys/class/power_supply/battery/uevent")
	}
	if c.thermalOK && c.ticks%10 == 0 {
		p.thermal = add(dumpsys.ThermalZonesCommand)
	}
	p.lease = c.causes.PlanLease(add)
	return p
}

// planFrames adds a frame poll to the plan p, whose commands add appends.
func (c *collector) planFrames(p *tickPlan, add func(string) int) {
	fp := c.frames.Plan(c.s.now())
	if fp.Uptime {
		p.framesUptime = add("cat /proc/uptime")
	}
	p.frames, p.filtered = add(fp.Cmd), fp.Filtered
}

// framesPlan is a round trip that polls frames alone, with the clock read
// after the dump that a tick has (SurfaceFlinger rows are checked against
// it).
func (c *collector) framesPlan() tickPlan {
	p := tickPlan{uptime: -1, frames: -1, stat: -1, pidof: -1, pidStat: -1, status: -1, tasks: -1, net: -1, batt: -1, thermal: -1, framesUptime: -1, lease: -1}
	add := func(cmd string) int { p.cmds = append(p.cmds, cmd); return len(p.cmds) - 1 }
	c.planFrames(&p, add)
	if c.frames.Kind() == frames.SourceSurfaceFlinger {
		p.uptime = add("cat /proc/uptime")
	}
	return p
}

// absorbFramesPoll takes the frames of a framesPlan round trip, as absorb
// takes a tick's, without a Sample: nothing else was read.
func (c *collector) absorbFramesPoll(p tickPlan, out []adbx.Result, send, recv int64) {
	c.ab.tickNotes = c.ab.tickNotes[:0]
	var uptimeNs int64
	if p.uptime >= 0 {
		if ns, ok := uptimeOf(out[p.uptime]); ok {
			c.clockProc.observe("/proc/uptime", send, recv, ns, 10*int64(time.Millisecond))
			uptimeNs = ns
		}
	}
	n := c.absorbFrames(p, out, send, recv, uptimeNs)
	err := ""
	if res := out[p.frames]; res.ExitCode != 0 {
		err = short(res)
	} else if n == 0 {
		err = c.ab.noted("frames: ")
	}
	c.ab.log(srcFrames, send+(recv-send)/2, err)
	c.ab.tickNotes = c.ab.tickNotes[:0]
}

// absorb turns one tick's output into a Sample. due is when the tick was
// scheduled to start (host ns), -1 for an unscheduled one.
func (c *collector) absorb(p tickPlan, out []adbx.Result, due, send, recv int64) {
	c.ticks++
	c.ab.tickNotes = c.ab.tickNotes[:0]
	r := c.s.res
	smp := result.Sample{HostNs: send + (recv-send)/2, RTTNs: recv - send}
	if due >= 0 {
		smp.LateNs = max(0, send-due)
	}

	var uptimeNs int64
	if p.uptime >= 0 {
		if out[p.uptime].ExitCode != 0 {
			c.note("clock: %s", devcmd.Failure(out[p.uptime], p.cmds[p.uptime]))
		} else if ns, err := procfs.ParseUptime(out[p.uptime].Stdout); err == nil {
			c.clockProc.observe("/proc/uptime", send, recv, ns, 10*int64(time.Millisecond))
			smp.UptimeNs = ns
			uptimeNs = ns
		}
	}
	c.causes.AbsorbLease(p.cmds, out, p.lease, uptimeNs, c.note)
	if p.frames >= 0 {
		smp.NewFrames = c.absorbFrames(p, out, send, recv, uptimeNs)
	}
	if p.pidof >= 0 {
		// pidof prints nothing and exits 1 when no process has the name;
		// anything else that is not a success (no pidof: 127) says nothing
		// about the app, which must not read as its death.
		res := out[p.pidof]
		c.pidofOK = res.ExitCode == 0 || res.ExitCode == 1 && len(bytes.TrimSpace(res.Stderr)) == 0 && len(bytes.TrimSpace(res.Stdout)) == 0
		var pids []int
		var err error
		if c.pidofOK {
			// What is not a list of pids says nothing about the app either.
			pids, err = dumpsys.ParsePidof(res.Stdout)
			c.pidofOK = err == nil
		}
		switch {
		case c.pidofOK:
			c.absorbPIDs(pids, send, smp.HostNs, smp.UptimeNs)
		case err != nil:
			c.note("pids: %v; the app's processes are not tracked while it fails", err)
		default:
			c.note("pids: %s; the app's processes are not tracked while it fails", devcmd.Failure(res, p.cmds[p.pidof]))
		}
	}
	smp.PIDs = append([]int{}, c.pids...)
	if p.stat >= 0 {
		if out[p.stat].ExitCode != 0 {
			c.note("cpu: %s", devcmd.Failure(out[p.stat], p.cmds[p.stat]))
		} else if ps, err := procfs.ParseStat(out[p.stat].Stdout); err != nil {
			c.note("cpu: %v", err)
		} else {
			cpu := ps.CPU
			smp.CPU = &cpu
			smp.OnlineCores = len(ps.Cores)
		}
	}
	if p.pidStat >= 0 {
		if res := out[p.pidStat]; len(bytes.TrimSpace(res.Stdout)) > 0 {
			if sts, err := procfs.ParsePidStats(res.Stdout); err != nil {
				c.note("cpu: %v", err)
			} else {
				smp.Procs = sts
				for _, st := range sts {
					c.ends.Started(st.PID, st.StartTime)
				}
			}
		} else if len(smp.PIDs) > 0 && res.ExitCode != 0 {
			c.note("cpu: %s", devcmd.Failure(res, p.cmds[p.pidStat]))
		}
	}
	if p.tasks >= 0 && len(bytes.TrimSpace(out[p.tasks].Stdout)) > 0 {
		if sts, err := procfs.ParsePidStats(out[p.tasks].Stdout); err != nil {
			c.note("cpu threads: %v", err)
		} else {
			smp.Threads = sts
		}
	}
	if p.status >= 0 {
		if res := out[p.status]; len(bytes.TrimSpace(res.Stdout)) == 0 && len(smp.PIDs) > 0 && res.ExitCode != 0 {
			c.note("memory: %s", devcmd.Failure(res, p.cmds[p.status]))
		}
		smp.RSSKB = c.sumRSS(out[p.status].Stdout)
	}
	if p.net >= 0 {
		c.absorbTraffic(out[p.net], p.cmds[p.net], smp.HostNs, uptimeNs)
	}
	if p.thermal >= 0 {
		if out[p.thermal].ExitCode != 0 {
			c.note("thermal: %s", devcmd.Failure(out[p.thermal], p.cmds[p.thermal]))
		} else if zones, err := dumpsys.ParseThermalZones(out[p.thermal].Stdout); err == nil {
			smp.ThermalC = thermalTemps(zones)
		}
	}
	if p.batt >= 0 {
		if out[p.batt].ExitCode != 0 {
			c.note("battery: %s", devcmd.Failure(out[p.batt], p.cmds[p.batt]))
		} else if b, ok := parseBatteryUevent(out[p.batt].Stdout); ok {
			smp.Battery = &b
		}
	}
	if smp.CPU != nil && len(r.Samples) > 0 {
		if prev := r.Samples[len(r.Samples)-1]; prev.CPU != nil && stepstats.ProcsRead(prev) && stepstats.ProcsRead(smp) {
			if total, _, err := procfs.CPUDelta(*prev.CPU, *smp.CPU); err == nil {
				app := procfs.CPUAppTicksBetween(prev.Procs, smp.Procs, stepstats.UptimeTicks(prev, r.Device.ClockTicks))
				c.lastCPUPct = float64(app) / float64(total) * 100
			}
		}
	}
	c.logTick(p, out, &smp)
	r.Samples = append(r.Samples, smp)
}

// absorbPIDs tracks the app's processes: a pid that disappears ended (a
// crash, a kill, a force-stop: see readEnd); pids appearing when none ran is
// the app starting. sendNs is when the tick was sent, uptimeNs its device
// time (0 when unread).
func (c *collector) absorbPIDs(now []int, sendNs, hostNs, uptimeNs int64) {
	sort.Ints(now)
	old := c.pids
	c.pids = now
	if len(now) > 0 {
		c.everRan = true
	}
	s := c.s
	if sendNs < s.restartFromNs {
		// A tick sent before the restart began saw what ran before it.
		for _, pid := range now {
			if !containsInt(s.restartOld, pid) {
				s.restartOld = append(s.restartOld, pid)
			}
		}
	}
	grace := s.restartGrace
	if s.restarting == 0 && hostNs > s.restartEndNs {
		s.restartGrace = false
	}
	r := c.s.res
	for _, pid := range old {
		if containsInt(now, pid) {
			continue
		}
		cr := result.Crash{HostNs: hostNs, Step: c.s.stepAtLocked(hostNs), OldPIDs: old, NewPIDs: append([]int{}, now...), PID: pid}
		end := c.ends.Gone(pid, uptimeNs, r.Device.ClockTicks)
		if s.restarting > 0 || grace && containsInt(s.restartOld, pid) {
			r.Restarts = append(r.Restarts, cr)
			continue
		}
		// The log is read off the tick path, so frame polling goes on.
		c.aux.Add(1)
		go c.readEnd(cr, end)
	}
	c.ends.Seen(now, uptimeNs)
	for _, pid := range now {
		if !containsInt(old, pid) {
			c.causes.StartRecorder(pid)
		}
	}
}

func (c *collector) sumRSS(b []byte) int64 {
	var total int64
	for _, part := range splitBefore(b, "Name:") {
		st, err := procfs.ParseStatus(part)
		if err != nil {
			c.note("memory: %v", err)
			continue
		}
		total += st.VmRSSKB
	}
	return total
}

// splitBefore cuts concatenated files at each line starting with prefix.
func splitBefore(b []byte, prefix string) [][]byte {
	var parts [][]byte
	start := -1
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		end := len(b)
		if j >= 0 {
			end = i + j + 1
		}
		if bytes.HasPrefix(b[i:end], []byte(prefix)) {
			if start >= 0 {
				parts = append(parts, b[start:i])
			}
			start = i
		}
		i = end
	}
	if start >= 0 {
		parts = append(parts, b[start:])
	}
	return parts
}

// uptimeOf is what a `cat /proc/uptime` that succeeded printed, in ns.
func uptimeOf(res adbx.Result) (int64, bool) {
	if res.ExitCode != 0 {
		return 0, false
	}
	ns, err := procfs.ParseUptime(res.Stdout)
	return ns, err == nil
}

// absorbTraffic records one read of the traffic counters at host time
// hostNs; uptimeNs is the device's /proc/uptime read right before them in
// the same round trip, 0 when there was none.
func (c *collector) absorbTraffic(res adbx.Result, cmd string, hostNs, uptimeNs int64) {
	if res.ExitCode != 0 {
		// The app's pid is gone, or the file unreadable for a moment.
		c.note("traffic: %s", devcmd.Failure(res, cmd))
		c.ab.log(srcTraffic, hostNs, short(res))
		return
	}
	var tc procfs.TrafficCounters
	var err error
	switch c.traffic {
	case trafficQtaguid:
		var m map[int]*procfs.TrafficUID
		if m, err = procfs.ParseTrafficQtaguid(res.Stdout); err == nil {
			// The probe saw the uid's row; a read without it is no count.
			if m[c.uid] == nil {
				err = fmt.Errorf("no tag 0x0 row for uid %d", c.uid)
			} else {
				tc = m[c.uid].Total
			}
		}
	case trafficUIDStat:
		tc, err = parseUIDStat(res.Stdout)
	case trafficNetstats:
		var ns dumpsys.Netstats
		if ns, err = dumpsys.ParseNetstats(res.Stdout); err == nil {
			var ok bool
			if tc, ok = ns.AppUIDStats[c.uid]; !ok {
				err = fmt.Errorf("no mAppUidStatsMap row for uid %d", c.uid)
			}
		}
	case trafficNetDev:
		var m map[string]procfs.TrafficCounters
		if m, err = procfs.ParseTrafficNetDev(res.Stdout); err == nil {
			tc = procfs.TrafficNetDevTotal(m)
		}
	}
	if err != nil {
		c.note("traffic: %s: %v", cmd, err)
		c.ab.log(srcTraffic, hostNs, err.Error())
		return
	}
	c.ab.log(srcTraffic, hostNs, "")
	c.s.res.Traffic = append(c.s.res.Traffic, result.TrafficSample{
		HostNs: hostNs, UptimeNs: uptimeNs, RxBytes: tc.RxBytes, TxBytes: tc.TxBytes, RxPackets: tc.RxPackets, TxPackets: tc.TxPackets,
	})
}

// parseUIDStat reads `cat tcp_rcv tcp_snd`: two byte counts, one a line.
func parseUIDStat(b []byte) (procfs.TrafficCounters, error) {
	f := strings.Fields(string(devtext.Normalize(b)))
	if len(f) != 2 {
		return procfs.TrafficCounters{}, fmt.Errorf("/proc/uid_stat/<uid>: want 2 counters, got %q", string(b))
	}
	rx, err := procfs.ParseTrafficUIDStat([]byte(f[0]))
	if err != nil {
		return procfs.TrafficCounters{}, err
	}
	tx, err := procfs.ParseTrafficUIDStat([]byte(f[1]))
	return procfs.TrafficCounters{RxBytes: rx, TxBytes: tx}, err
}

// qtaguidOK reports whether xt_qtaguid lists the uid (a device can keep the
// file while its counters stay empty).
func qtaguidOK(b []byte, uid int) bool {
	m, err := procfs.ParseTrafficQtaguid(b)
	return err == nil && m[uid] != nil
}

func netstatsHasUID(b []byte, uid int) bool {
	ns, err := dumpsys.ParseNetstats(b)
	if err != nil {
		return false
	}
	_, ok := ns.AppUIDStats[uid]
	return ok
}

// slowPlan is the slow lane's commands: meminfo, and netstats when that is
// the traffic source (both take tens of ms on a phone).
func (c *collector) slowPlan() tickPlan {
	p := tickPlan{stat: -1, net: -1}
	if c.cfg.has(CollectMemory) && len(c.pids) > 0 {
		p.stat = len(p.cmds)
		p.cmds = append(p.cmds, "dumpsys meminfo "+shellQuote(c.cfg.Package))
	}
	if c.traffic == trafficNetstats {
		p.net = len(p.cmds)
		p.cmds = append(p.cmds, "dumpsys netstats")
	}
	return p
}

func (c *collector) slowLaneNeeded() bool {
	return c.cfg.has(CollectMemory) || c.traffic == trafficNetstats
}

// forSteps name the steps whose start called for the read (none for a
// read on the lane's own schedule).
func (c *collector) absorbSlow(p tickPlan, out []adbx.Result, send, recv int64, forSteps []string) {
	mid := send + (recv-send)/2
	if p.net >= 0 {
		c.absorbTraffic(out[p.net], p.cmds[p.net], mid, 0)
	}
	if p.stat < 0 {
		return
	}
	if res := out[p.stat]; res.ExitCode != 0 {
		c.note("memory: %s", devcmd.Failure(res, p.cmds[p.stat]))
		return
	}
	m, err := dumpsys.ParseMeminfo(devcmd.Output(out[p.stat]))
	if err != nil {
		if !errors.Is(err, dumpsys.ErrMeminfoNoProcess) {
			c.note("memory: %v", err)
		}
		c.ab.log(srcMeminfo, mid, quoteOutput(err, devcmd.Output(out[p.stat])))
		return
	}
	c.ab.log(srcMeminfo, mid, "")
	ms := result.MemorySample{HostNs: mid, PSSKB: m.PSSKB, SwapKB: m.SwapKB, Steps: forSteps}
	if m.HasRSS {
		ms.RSSKB = m.RSSKB
	}
	if s := m.Summary; s.Present {
		ms.Summary = map[string]int64{
			"java_heap_kb":     s.JavaHeapKB,
			"native_heap_kb":   s.NativeHeapKB,
			"code_kb":          s.CodeKB,
			"stack_kb":         s.StackKB,
			"graphics_kb":      s.GraphicsKB,
			"private_other_kb": s.PrivateOtherKB,
			"system_kb":        s.SystemKB,
		}
	}
	c.s.res.Memory = append(c.s.res.Memory, ms)
}

func (c *collector) liveCPU() float64 { return c.lastCPUPct }

// thermalTemps maps each readable zone's type to °C; zones sharing a type
// keep the hottest.
func thermalTemps(zones []dumpsys.ThermalZone) map[string]float64 {
	m := map[string]float64{}
	for _, z := range zones {
		if !z.HasTemp {
			continue
		}
		name := z.Type
		if name == "" {
			name = "thermal_zone" + strconv.Itoa(z.ID)
		}
		if v, ok := m[name]; !ok || z.Celsius > v {
			m[name] = z.Celsius
		}
	}
	return m
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
