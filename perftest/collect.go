package perftest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest/internal/causesrc"
	"github.com/perfgate/perfgate/perftest/internal/clockmap"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/perftest/internal/ends"
	"github.com/perfgate/perfgate/perftest/internal/framesrc"
	"github.com/perfgate/perfgate/perftest/internal/heapdump"
	"github.com/perfgate/perfgate/perftest/internal/readlog"
	"github.com/perfgate/perfgate/perftest/internal/samples"
	"github.com/perfgate/perfgate/perftest/internal/smooth"
	"github.com/perfgate/perfgate/perftest/internal/tracing"
	"github.com/perfgate/perfgate/result"
)

// collector turns ticks into samples and frames. Its methods run with the
// session's mu held, except setup.
type collector struct {
	s   *Session
	cfg Config

	// log keeps how each source's reads fared, to explain a metric
	// without a value.
	log readlog.Log
	// why and whyMetric hold reasons found while a step is summarised,
	// by family or by metric name.
	why       map[metrics.Family]string
	whyMetric map[metrics.Name]string

	// frames is the frame source: polls, frames, rows rejected.
	frames *framesrc.Source
	// framesSent is when the last frame poll absorbed was sent (host ns):
	// its dump ran no earlier.
	framesSent int64
	refreshHz  float64
	procNames  []string // the app's process names, for pidof
	uid        int

	// samples reads the CPU, memory, traffic, battery and thermal
	// counters.
	samples   *samples.Source
	pids      []int
	heap      *heapdump.Session // Config.HeapDumps
	ticks     int
	noted     map[string]bool
	clockGfx  clockmap.Map // gfxinfo "Uptime:" (CLOCK_MONOTONIC, ms)
	clockProc clockmap.Map // /proc/uptime (CLOCK_BOOTTIME, 10 ms)
	aux       sync.WaitGroup
	// ends follows the app's processes, for placing their ends in the log.
	ends ends.Source
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
	c.resetWhy()
	c.newSamples()
	return c
}

// newSamples is the collector's samples source, for the configuration
// and the uid known now.
func (c *collector) newSamples() {
	c.samples = samples.New(samples.Config{
		Package: c.cfg.Package, Names: c.procNames, UID: c.uid,
		CPU: c.cfg.has(CollectCPU), Memory: c.cfg.has(CollectMemory), Traffic: c.cfg.has(CollectTraffic), Battery: c.cfg.has(CollectBattery),
		Interval: c.cfg.Interval, SlowInterval: c.cfg.SlowInterval,
	}, samples.Env{Result: c.s.res, Note: c.note, Log: &c.log})
}

func (c *collector) note(format string, args ...any) {
	if c.provisional {
		return
	}
	msg := fmt.Sprintf(format, args...)
	c.log.Note(msg)
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
	r.App.PIDs = pids
	r.App.RunningAtStart = len(pids) > 0
	if len(pids) == 0 && !c.cfg.WaitForApp {
		return fmt.Errorf("perftest: app %s: %w (start it first, or let the session wait for it: -wait with perfgate record, Config.WaitForApp in Go)", pkg, ErrAppNotRunning)
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
	c.newSamples()
	if err := c.probe(ctx); err != nil {
		return err
	}
	c.setupCauses(ctx)
	c.heap = heapdump.Start(ctx, c.cfg.HeapDumps, c.s.dev.batch, pullOf(c.s.dev), heapdump.Dest{Dir: c.cfg.resultsDir(), Base: result.Base(c.cfg.Name), Stem: c.cfg.fileStem()}, c.pids)
	return nil
}

// probe reads, in one round trip, what decides the sources: the layer list,
// and what the samples source probes (samples.Source.PlanProbe); then it
// clears the frame histories.
func (c *collector) probe(ctx context.Context) error {
	var cmds []string
	add := func(cmd string) int { cmds = append(cmds, cmd); return len(cmds) - 1 }
	iList, iGfx := -1, -1
	frames := c.cfg.has(CollectFrames)
	auto := frames && c.cfg.FrameSource == SourceAuto && c.cfg.Layer == ""
	if frames && c.cfg.FrameSource != SourceGfxInfo && c.cfg.Layer == "" {
		iList = add("dumpsys SurfaceFlinger --list")
	}
	if auto {
		iGfx = add("dumpsys gfxinfo " + shellQuote(c.cfg.Package) + " framestats")
	}
	sp := c.samples.PlanProbe(add)
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
	out, err := c.s.dev.batch(ctx, cmds)
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if err != nil {
		return fmt.Errorf("perftest: probe: %w", err)
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
	c.samples.AbsorbProbe(sp, cmds, out)
	if frames && len(c.pids) > 0 {
		return c.clearFrames(ctx)
	}
	return nil
}

// clearFrames clears the frame histories so the first poll holds only
// this session's frames, and no earlier frame is counted into a step.
func (c *collector) clearFrames(ctx context.Context) error {
	clear := c.frames.ClearCmd()
	out, err := c.s.dev.batch(ctx, []string{clear})
	if err != nil {
		return fmt.Errorf("perftest: frames: %s: %w", clear, err)
	}
	if len(out) == 1 && out[0].ExitCode != 0 {
		c.note("frames: %s", devcmd.Failure(out[0], clear))
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
	}
	for _, k := range c.cfg.Collectors {
		rc.Collectors = append(rc.Collectors, string(k))
	}
	rc.Sources = map[string]string{
		"clock": "dumpsys gfxinfo <pkg> (Uptime line, ms), else cat /proc/uptime (s)",
		"pids":  "pidof <process names>",
		"crash": "pidof <process names>; logcat -d -b crash, -b main -b system -v threadtime -v epoch (the dead pid's lines and the system's about it, by device time)",
	}
	switch FrameSource(c.frames.Kind()) {
	case SourceSurfaceFlinger:
		rc.Sources["frames"] = "dumpsys SurfaceFlinger --latency <layer> (ns)"
	case SourceGfxInfo:
		rc.Sources["frames"] = "dumpsys gfxinfo <pkg> framestats (ns)"
	}
	c.samples.RunConfig(&rc)
	return rc
}

// tickPlan is one tick's commands and where each reading sits in them.
type tickPlan struct {
	cmds           []string
	uptime, frames int
	// samples are the samples source's reads.
	samples samples.Plan
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
	p := tickPlan{uptime: -1, frames: -1, framesUptime: -1}
	add := func(cmd string) int { p.cmds = append(p.cmds, cmd); return len(p.cmds) - 1 }
	if c.cfg.has(CollectFrames) && (allFrames || c.framesDue()) {
		c.planFrames(&p, add)
	}
	// The clock is read right after the CPU counters (samples.Source.Plan),
	// and after the frame dump, so a dump's rows are all older than it.
	p.samples = c.samples.Plan(add, c.ticks, func() { p.uptime = add("cat /proc/uptime") })
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
	p := tickPlan{uptime: -1, frames: -1, framesUptime: -1, lease: -1}
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
	c.log.EndTick()
	n := c.absorbFrames(p, out, send, recv, c.readClock(p, out, send, recv))
	c.logFrames(out[p.frames], send, n)
	c.log.EndTick()
}

// readClock takes the /proc/uptime read of a tick planned as p into the
// clock map; it returns the device's time, 0 when unread.
func (c *collector) readClock(p tickPlan, out []adbx.Result, send, recv int64) int64 {
	if p.uptime < 0 {
		return 0
	}
	ns, ok := uptimeOf(out[p.uptime])
	if !ok {
		return 0
	}
	c.clockProc.Observe("/proc/uptime", send, recv, ns, 10*int64(time.Millisecond))
	return ns
}

// absorb turns one tick's output into a Sample. due is when the tick was
// scheduled to start (host ns), -1 for an unscheduled one.
func (c *collector) absorb(p tickPlan, out []adbx.Result, due, send, recv int64) {
	c.ticks++
	c.log.EndTick()
	smp := result.Sample{HostNs: send + (recv-send)/2, RTTNs: recv - send}
	if due >= 0 {
		smp.LateNs = max(0, send-due)
	}

	if p.uptime >= 0 && out[p.uptime].ExitCode != 0 {
		c.note("clock: %s", devcmd.Failure(out[p.uptime], p.cmds[p.uptime]))
	}
	uptimeNs := c.readClock(p, out, send, recv)
	smp.UptimeNs = uptimeNs
	c.causes.AbsorbLease(p.cmds, out, p.lease, uptimeNs, c.note)
	if p.frames >= 0 {
		smp.NewFrames = c.absorbFrames(p, out, send, recv, uptimeNs)
	}
	if pids, ok := c.samples.PIDs(p.samples, p.cmds, out); ok {
		c.absorbPIDs(pids, send, smp.HostNs, smp.UptimeNs)
	}
	smp.PIDs = append([]int{}, c.pids...)
	c.samples.Absorb(p.samples, p.cmds, out, &smp, uptimeNs)
	for _, st := range smp.Procs {
		c.ends.Started(st.PID, st.StartTime)
	}
	if p.frames >= 0 {
		c.logFrames(out[p.frames], send, smp.NewFrames)
	}
	c.log.EndTick()
	c.s.res.Samples = append(c.s.res.Samples, smp)
}

// logFrames records how a tick's frame poll, sent at host time send and
// answered res with n new frames, fared. A poll is logged at its send
// time, as a failed tick is (Result.Gaps): the phone dumped its frames no
// earlier, however late the host read the answer.
func (c *collector) logFrames(res adbx.Result, send int64, n int) {
	err := ""
	if res.ExitCode != 0 {
		err = readlog.Short(res)
	} else if n == 0 {
		err = c.log.Noted("frames: ")
	}
	c.log.Add(srcFrames, send, err)
}

// absorbPIDs tracks the app's processes: a pid that disappears ended (a
// crash, a kill, a force-stop: see readEnd); pids appearing when none ran is
// the app starting. sendNs is when the tick was sent, uptimeNs its device
// time (0 when unread).
func (c *collector) absorbPIDs(now []int, sendNs, hostNs, uptimeNs int64) {
	sort.Ints(now)
	old := c.pids
	c.pids = now
	s := c.s
	if sendNs < s.restartFromNs {
		// A tick sent before the restart began saw what ran before it.
		for _, pid := range now {
			if !slices.Contains(s.restartOld, pid) {
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
		if slices.Contains(now, pid) {
			continue
		}
		cr := result.Crash{HostNs: hostNs, Step: c.s.stepAtLocked(hostNs), OldPIDs: old, NewPIDs: append([]int{}, now...), PID: pid}
		end := c.ends.Gone(pid, uptimeNs, r.Device.ClockTicks)
		if s.restarting > 0 || grace && slices.Contains(s.restartOld, pid) {
			r.Restarts = append(r.Restarts, cr)
			continue
		}
		// The log is read off the tick path, so frame polling goes on.
		c.aux.Add(1)
		go c.readEnd(cr, end)
	}
	c.ends.Seen(now, uptimeNs)
	for _, pid := range now {
		if !slices.Contains(old, pid) {
			c.causes.StartRecorder(pid)
		}
	}
}

// uptimeOf is what a `cat /proc/uptime` that succeeded printed, in ns.
func uptimeOf(res adbx.Result) (int64, bool) {
	if res.ExitCode != 0 {
		return 0, false
	}
	ns, err := procfs.ParseUptime(res.Stdout)
	return ns, err == nil
}
