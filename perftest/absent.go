package perftest

import (
	"cmp"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// Sources whose reads the collector logs, so a metric without a value can
// say why (README "Unmeasured is never zero").
const (
	srcFrames  = "frames"
	srcStat    = "cat /proc/stat"
	srcProcs   = "/proc/<pid>/stat"
	srcStatus  = "/proc/<pid>/status"
	srcTraffic = "traffic"
	srcBattery = "battery"
	srcMeminfo = "dumpsys meminfo"
)

// readOutcome is one read of a source: good, or why not.
type readOutcome struct {
	hostNs int64
	err    string // "" for a good read
	tick   bool   // the whole tick failed: the device did not answer the read
}

// absenceLog is what the collector keeps to explain absent metrics.
type absenceLog struct {
	reads map[string][]readOutcome
	// tickNotes are the notes made during the tick being absorbed, the
	// parse errors a read's exit status does not show.
	tickNotes []string
	// statWhy and batteryWhy say why the probe found /proc/stat or the
	// battery unreadable.
	statWhy, batteryWhy string
	// why holds reasons found while a step is summarised, by family or by
	// metric name.
	why       map[metrics.Family]string
	whyMetric map[metrics.Name]string
}

func (l *absenceLog) log(src string, hostNs int64, err string) {
	if l.reads == nil {
		l.reads = map[string][]readOutcome{}
	}
	l.reads[src] = append(l.reads[src], readOutcome{hostNs: hostNs, err: err})
}

// noted is the last note of the current tick that starts with prefix,
// without it; "" when there was none.
func (l *absenceLog) noted(prefix string) string {
	for i := len(l.tickNotes) - 1; i >= 0; i-- {
		if s, ok := strings.CutPrefix(l.tickNotes[i], prefix); ok {
			return s
		}
	}
	return ""
}

// short describes a failed command's result for a reason: its exit status
// and what it printed, bounded.
func short(r adbx.Result) string {
	msg := strings.TrimSpace(string(r.Stderr))
	if msg == "" {
		msg = strings.TrimSpace(string(r.Stdout))
	}
	if msg == "" {
		return fmt.Sprintf("exit %d, no output", r.ExitCode)
	}
	return fmt.Sprintf("exit %d: %s", r.ExitCode, excerpt.Quote(msg))
}

// readErr is "" when a read gave its value (ok), else why not: the note
// its parser left this tick, else the command's failure.
func readErr(ok bool, res adbx.Result, note string) string {
	switch {
	case ok:
		return ""
	case note != "":
		return note
	}
	return short(res)
}

// quoteOutput is err for a reason, with the first line of the output it
// came from when the error does not quote any.
func quoteOutput(err error, out []byte) string {
	var pe *devtext.ParseError
	if errors.As(err, &pe) && pe.Text != "" || errors.Is(err, dumpsys.ErrMeminfoNoProcess) {
		return err.Error()
	}
	ln := strings.TrimSpace(string(devtext.Normalize(out)))
	if i := strings.IndexByte(ln, '\n'); i >= 0 {
		ln = ln[:i]
	}
	return fmt.Sprintf("%v (output: %s)", err, excerpt.Quote(ln))
}

// logTick records how each source of one cheap-lane tick fared. Per-process
// sources are not read while the app is not running; that is no failure.
func (c *collector) logTick(p tickPlan, out []adbx.Result, smp *result.Sample) {
	h, l := smp.HostNs, &c.ab
	if p.frames >= 0 {
		err := ""
		if res := out[p.frames]; res.ExitCode != 0 {
			err = short(res)
		} else if smp.NewFrames == 0 {
			err = l.noted("frames: ")
		}
		l.log(srcFrames, h, err)
	}
	if p.stat >= 0 {
		l.log(srcStat, h, readErr(smp.CPU != nil, out[p.stat], l.noted("cpu: ")))
	}
	running := len(smp.PIDs) > 0
	if p.pidStat >= 0 && running {
		l.log(srcProcs, h, readErr(len(smp.Procs) > 0, out[p.pidStat], l.noted("cpu: ")))
	}
	if p.status >= 0 && running {
		l.log(srcStatus, h, readErr(smp.RSSKB > 0, out[p.status], l.noted("memory: ")))
	}
	if p.batt >= 0 {
		l.log(srcBattery, h, readErr(smp.Battery != nil, out[p.batt], ""))
	}
	l.tickNotes = l.tickNotes[:0]
}

// reads returns the reads of src that tell about the host window
// [start, end] — those in it and the first after it, which still sees a
// short step's frames and closes its last interval — oldest first. A tick
// of lane that failed as a whole (a gap) is a failed read of every source
// in it.
func (c *collector) reads(src, lane string, start, end int64) []readOutcome {
	var win []readOutcome
	rs := c.ab.reads[src] // in the order of the ticks
	for i := sort.Search(len(rs), func(i int) bool { return rs[i].hostNs >= start }); i < len(rs); i++ {
		win = append(win, rs[i])
		if rs[i].hostNs > end {
			break
		}
	}
	for _, g := range c.s.res.Gaps {
		if g.Lane == lane && g.HostNs >= start && !strings.HasSuffix(g.Error, "frames were lost") {
			win = append(win, readOutcome{hostNs: g.HostNs, err: "the whole tick failed: " + g.Error, tick: true})
		}
	}
	sort.SliceStable(win, func(i, j int) bool { return win[i].hostNs < win[j].hostNs })
	for i, r := range win {
		if r.hostNs > end {
			return win[:i+1]
		}
	}
	return win
}

// within drops the read after end that reads adds.
func within(rs []readOutcome, end int64) []readOutcome {
	if n := len(rs); n > 0 && rs[n-1].hostNs > end {
		return rs[:n-1]
	}
	return rs
}

// unreadable is the reason for a source that failed every read in a step,
// or "" when some read was good or none was made.
//
// The device's own answer says why better than a tick it did not answer
// in time: the last answer is quoted, and the ticks that failed as a whole
// are counted beside it (their last error quoted only when the device
// answered no read at all).
func unreadable(what string, rs []readOutcome) string {
	failed, ticks, last, lastTick := 0, 0, "", ""
	for _, r := range rs {
		if r.err == "" {
			return ""
		}
		failed++
		if r.tick {
			ticks++
			lastTick = r.err
		} else {
			last = r.err
		}
	}
	switch {
	case failed == 0:
		return ""
	case last == "":
		last = lastTick
	case ticks > 0:
		last += fmt.Sprintf("; %d of them in ticks that failed as a whole", ticks)
	}
	return fmt.Sprintf("%s unreadable on every read in the step (%d failed; last: %s)", what, failed, last)
}

// ranDuring reports whether pidof found the app in a tick inside [start,
// end] or in the first tick after it.
func (c *collector) ranDuring(start, end int64) bool {
	ss := c.s.res.Samples
	for i := c.firstSample(start); i < len(ss); i++ {
		if len(ss[i].PIDs) > 0 {
			return true
		}
		if ss[i].HostNs > end {
			break
		}
	}
	return false
}

// notRunningWhy says why the app counts as not running in [start, end]
// (ranDuring is false): pidof found no process, or no tick succeeded from
// the step's start on, so nothing looked for one. That is not the app
// stopping: a host or phone too busy to answer, or a phone that went away.
func (c *collector) notRunningWhy(start, end int64) string {
	if c.firstSample(start) < len(c.s.res.Samples) {
		return fmt.Sprintf("the app was not running during the step (pidof %s found no process)", c.cfg.Package)
	}
	why := "no tick succeeded from the step's start on, so nothing looked for the app's process"
	if failed := within(c.reads("", "cheap", start, end), end); len(failed) > 0 {
		why += fmt.Sprintf(" (%d failed in the step; last: %s)", len(failed), failed[len(failed)-1].err)
	}
	return why
}

// framesReadAfter reports whether a frame poll succeeded at or after host
// time end: the only read that can show every frame drawn up to then.
func (c *collector) framesReadAfter(end int64) bool {
	rs := c.ab.reads[srcFrames]
	for i := len(rs) - 1; i >= 0 && rs[i].hostNs >= end; i-- {
		if rs[i].err == "" {
			return true
		}
	}
	return false
}

// framesLost says which of the step's frames the phone's frame buffer lost
// by wrapping between two polls (Gap.LostFromNs), "" when it lost none of
// them: a count over the others would be a part of the step's.
func (c *collector) framesLost(st *result.Step) string {
	n := 0
	var from, to int64
	for _, g := range c.s.res.Gaps {
		a, b := max(g.LostFromNs+1, st.DeviceStartNs), min(g.LostToNs, st.DeviceEndNs)
		if g.LostToNs == 0 || a >= b {
			continue
		}
		if n == 0 {
			from, to = a, b
		}
		from, to = min(from, a), max(to, b)
		n++
	}
	if n == 0 {
		return ""
	}
	at := func(ns int64) float64 { return float64(ns-st.DeviceStartNs) / 1e9 }
	return fmt.Sprintf("frames: the phone's frame buffer wrapped between two polls (%d gap(s): the host or the phone stalled longer than the buffer lasts), so the frames drawn from %.3f s to %.3f s into the step were lost: its frames are known only in part",
		n, at(from), at(to))
}

// firstSample is the index of the first sample at or after host time ns.
func (c *collector) firstSample(ns int64) int {
	ss := c.s.res.Samples
	return sort.Search(len(ss), func(i int) bool { return ss[i].HostNs >= ns })
}

// ranAround reports whether pidof found the app in a tick of the step's
// CPU bracket: from the last tick at or before start to the first at or
// after end.
func (c *collector) ranAround(start, end int64) bool {
	r := c.s.res
	a, b, ok := bracket(len(r.Samples), func(i int) int64 { return r.Samples[i].HostNs }, func(int) bool { return true }, start, end)
	if !ok {
		return c.ranDuring(start, end)
	}
	for i := a; i <= b; i++ {
		if len(r.Samples[i].PIDs) > 0 {
			return true
		}
	}
	return false
}

// markAbsent sets st.NotMeasured: every metric of the catalogue the step
// has no value for, with the most specific reason known — the collector's
// (a source unreadable, the app not running) before what the figures show.
func (c *collector) markAbsent(st *result.Step) {
	why, whyMetric := c.ab.why, c.ab.whyMetric
	if why == nil {
		why = map[metrics.Family]string{}
	}
	if whyMetric == nil {
		whyMetric = map[metrics.Name]string{}
	}
	c.ab.why, c.ab.whyMetric = nil, nil
	start, end := st.HostStartNs, st.HostEndNs
	notRunning := c.notRunningWhy(start, end)
	notCollected := func(k Collector) string {
		return fmt.Sprintf("%s: not collected (Config.Collectors has no %q)", k, k)
	}
	span := func(every time.Duration) string {
		return fmt.Sprintf("the step lasted %v; reads come every %v", time.Duration(end-start).Round(time.Millisecond), every)
	}

	// The session as a whole ends at its last tick (Result.Whole): a frame
	// poll in that tick read all of its frames.
	readEnd := end
	if st == c.whole {
		readEnd--
	}
	lost := c.framesLost(st)
	switch {
	case !c.cfg.has(CollectFrames):
		why[metrics.FamilyFrames] = notCollected(CollectFrames)
	case !c.ranDuring(start, end) && st.FrameStats.Frames == 0:
		why[metrics.FamilyFrames] = "frames: " + notRunning
	case !c.framesReadAfter(readEnd):
		// The frames drawn after the last poll that succeeded are unknown,
		// so a count (0 or more) would only be a part of the step's.
		rs := c.reads(srcFrames, "cheap", start, end)
		if s := unreadable(c.framesCmd(), rs); s != "" {
			why[metrics.FamilyFrames] = "frames: " + s
		} else {
			failed := 0
			for _, r := range rs {
				if r.err != "" {
					failed++
				}
			}
			why[metrics.FamilyFrames] = fmt.Sprintf("frames: no frame poll succeeded after the step ended (%d failed from its start on), so its frames are known only in part", failed)
		}
	case lost != "":
		why[metrics.FamilyFrames] = lost
	}

	switch {
	case !c.cfg.has(CollectFrames):
		why[metrics.FamilyChoreographer] = notCollected(CollectFrames)
	case st.Smoothness == nil:
		why[metrics.FamilyChoreographer] = c.smoothWhy(st)
	}

	if r := c.traceWhy(st); r != "" && why[metrics.FamilyTrace] == "" {
		why[metrics.FamilyTrace] = r
	}

	if !c.cfg.has(CollectCPU) {
		why[metrics.FamilyAppCPU], why[metrics.FamilyDeviceCPU] = notCollected(CollectCPU), notCollected(CollectCPU)
	} else {
		stat := c.reads(srcStat, "cheap", start, end)
		procs := unreadable(srcProcs, c.reads(srcProcs, "cheap", start, end))
		switch {
		case !c.ranAround(start, end):
			why[metrics.FamilyAppCPU] = "cpu: " + notRunning
		case procs != "":
			why[metrics.FamilyAppCPU] = "cpu: " + procs
		case st.CPUStats.Intervals > 0:
		case c.cpuOK && unreadable(srcStat, stat) != "":
			why[metrics.FamilyAppCPU] = "cpu: " + unreadable(srcStat, stat)
		default:
			why[metrics.FamilyAppCPU] = "cpu: fewer than two ticks around the step (" + span(c.cfg.Interval) + ")"
		}
		switch {
		case !c.cpuOK:
			why[metrics.FamilyDeviceCPU] = fmt.Sprintf("cpu: device CPU needs /proc/stat, unreadable on this device (%s); app CPU is set against wall time × cores", c.ab.statWhy)
			whyMetric[metrics.CPUP90] = "cpu: no per-tick percentile against wall time (/proc/stat unreadable)"
		case st.CPUStats.Intervals > 0:
		case unreadable(srcStat, stat) != "":
			why[metrics.FamilyDeviceCPU] = "cpu: " + unreadable(srcStat, stat)
		default:
			why[metrics.FamilyDeviceCPU] = "cpu: fewer than two ticks around the step (" + span(c.cfg.Interval) + ")"
		}
	}

	if !c.cfg.has(CollectMemory) {
		why[metrics.FamilyPSS], why[metrics.FamilyRSS] = notCollected(CollectMemory), notCollected(CollectMemory)
	} else {
		running := c.ranDuring(start, end)
		// memory is the reason for a figure with no sample from src.
		memory := func(src, what, lane string, every time.Duration) string {
			failed := unreadable(what, c.reads(src, lane, start, end))
			switch {
			case !running:
				return "memory: " + notRunning
			case failed != "":
				return "memory: " + failed
			}
			return "memory: no " + what + " read in the step (" + span(every) + ")"
		}
		if st.MemoryStats.PSSSamples == 0 {
			why[metrics.FamilyPSS] = memory(srcMeminfo, "dumpsys meminfo "+c.cfg.Package, "slow", c.cfg.SlowInterval)
		}
		if st.MemoryStats.RSSSamples == 0 {
			why[metrics.FamilyRSS] = memory(srcStatus, srcStatus, "cheap", c.cfg.Interval)
		}
	}

	if !c.cfg.has(CollectTraffic) {
		why[metrics.FamilyTraffic] = notCollected(CollectTraffic)
	}

	switch {
	case !c.cfg.has(CollectBattery):
		why[metrics.FamilyBattery] = notCollected(CollectBattery)
	case !c.batteryOK:
		why[metrics.FamilyBattery] = "battery: " + c.ab.batteryWhy
	case st.BatteryStats == nil:
		rs := c.reads(srcBattery, "cheap", start, end)
		if s := unreadable("/sys/class/power_supply/battery/uevent", rs); s != "" {
			why[metrics.FamilyBattery] = "battery: " + s
		} else {
			why[metrics.FamilyBattery] = "battery: fewer than two battery reads around the step (" + span(10*c.cfg.Interval) + ")"
		}
	}

	// Crashes are seen by comparing pids tick by tick: a step whose every
	// tick failed watched nothing.
	inside, after := false, false
	if i := c.firstSample(start); i < len(c.s.res.Samples) {
		inside = c.s.res.Samples[i].HostNs <= end
		after = !inside
	}
	if !inside {
		failed := within(c.reads("", "cheap", start, end), end) // no source: the failed ticks alone
		switch {
		case len(failed) > 0:
			why[metrics.FamilyCrashes] = fmt.Sprintf("crashes: every tick in the step failed (%d; last: %s): nothing watched the app's processes", len(failed), failed[len(failed)-1].err)
		case !after:
			why[metrics.FamilyCrashes] = "crashes: no tick after the step began: nothing watched the app's processes"
		}
	}
	if why[metrics.FamilyAppCPU] != "" && why[metrics.FamilyDeviceCPU] != "" {
		why[metrics.FamilyCPUTicks] = why[metrics.FamilyAppCPU]
	}

	st.SetNotMeasured(func(m metrics.Metric) string { return cmp.Or(whyMetric[m.Name], why[m.Family]) })
}

// setWhy records a reason found while summarising st's family f.
func (c *collector) setWhy(f metrics.Family, reason string) {
	if c.ab.why == nil {
		c.ab.why = map[metrics.Family]string{}
	}
	c.ab.why[f] = reason
}

// setWhyMetric records a reason for one metric found while summarising.
func (c *collector) setWhyMetric(name metrics.Name, reason string) {
	if c.ab.whyMetric == nil {
		c.ab.whyMetric = map[metrics.Name]string{}
	}
	c.ab.whyMetric[name] = reason
}

// framesCmd names the frame source's command for reasons.
func (c *collector) framesCmd() string {
	if c.source == SourceSurfaceFlinger {
		return "dumpsys SurfaceFlinger --latency " + shellQuote(c.layer)
	}
	return "dumpsys gfxinfo " + c.cfg.Package + " framestats"
}
