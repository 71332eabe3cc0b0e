package perftest

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// finish maps every host time to the device clock and summarises the steps.
// It runs once, under the session lock, after the lanes and the crash
// logcat reads stopped.
func (c *collector) finish() {
	r := c.s.res
	c.finishPending()
	if c.source == SourceSurfaceFlinger && c.sfPolls > 0 && c.sfEmptyPolls == c.sfPolls {
		what := "only empty rows"
		if c.sfPeriodOnly == c.sfPolls {
			what = "only the refresh period line"
		}
		c.note("frames: dumpsys SurfaceFlinger --latency %s showed %s in every poll: the layer holds no frames of the app (on Android 11+ a wrong or non-BLAST layer prints this)", shellQuote(c.layer), what)
	}
	clk := c.stepClock()
	if clk.ok() && clk.source == "/proc/uptime" {
		c.note("clock: mapped through /proc/uptime (10 ms resolution; counts suspend time, so valid only while the device stays awake)")
	}
	r.Clock = clk.sync()
	c.traceSpan(clk)
	for i := range r.Samples {
		r.Samples[i].DeviceNs = clk.toDevice(r.Samples[i].HostNs)
	}
	for i := range r.Memory {
		r.Memory[i].DeviceNs = clk.toDevice(r.Memory[i].HostNs)
	}
	for i := range r.Traffic {
		r.Traffic[i].DeviceNs = clk.toDevice(r.Traffic[i].HostNs)
	}
	// Process ends are recorded as their log reads finish.
	for _, list := range [][]result.Crash{r.Crashes, r.ProcessEnds, r.Restarts} {
		sort.SliceStable(list, func(i, j int) bool { return list[i].HostNs < list[j].HostNs })
		for i := range list {
			list[i].DeviceNs = clk.toDevice(list[i].HostNs)
		}
	}
	for _, st := range r.Steps {
		st.DeviceStartNs = clk.toDevice(st.HostStartNs)
		st.DeviceEndNs = clk.toDevice(st.HostEndNs)
		c.summarise(st)
	}
	if n := len(r.Samples); n > 0 {
		w := &result.Step{Name: "session", HostStart: r.Start, HostEnd: time.Now(), HostEndNs: r.Samples[n-1].HostNs + 1}
		w.DeviceStartNs, w.DeviceEndNs = clk.toDevice(w.HostStartNs), clk.toDevice(w.HostEndNs)
		c.whole = w
		if len(r.Frames) > 0 {
			w.DeviceEndNs = max(w.DeviceEndNs, r.Frames[len(r.Frames)-1].Time()+1)
		}
		c.summarise(w)
		w.Crashes = append([]result.Crash(nil), r.Crashes...)
		w.Gaps = len(r.Gaps)
		r.Whole = w
		if t := w.Ticks; t.Late > 0 {
			c.note("ticks: %d of %d ticks started over %v behind their %v schedule (up to %.0f ms); spacing p95 %.0f ms, max %.0f ms: the host or the device was busy, and figures between those ticks have a coarser time resolution",
				t.Late, t.Ticks, c.cfg.Interval/2, c.cfg.Interval, t.MaxLateMs, t.P95SpacingMs, t.MaxSpacingMs)
		}
	}
	if r.Samples == nil {
		r.Samples = []result.Sample{}
	}
	if r.Frames == nil {
		r.Frames = []frames.Frame{}
	}
	if r.Memory == nil {
		r.Memory = []result.MemorySample{}
	}
	if r.Traffic == nil {
		r.Traffic = []result.TrafficSample{}
	}
	if r.Gaps == nil {
		r.Gaps = []result.Gap{}
	}
	if r.Crashes == nil {
		r.Crashes = []result.Crash{}
	}
	if r.Steps == nil {
		r.Steps = []*result.Step{}
	}
}

// stepClock is the clock map steps are placed on the device with: the
// gfxinfo dumps' Uptime, else /proc/uptime.
func (c *collector) stepClock() *clockMap {
	if c.clockGfx.ok() {
		return &c.clockGfx
	}
	return &c.clockProc
}

func (c *collector) summarise(st *result.Step) {
	r := c.s.res
	frames := stepFrames(r.Frames, st.DeviceStartNs, st.DeviceEndNs)
	st.FrameStats, st.Windows = c.frameStats(frames)
	st.FramesRejected = c.stepRejects(st.DeviceStartNs, st.DeviceEndNs)
	c.stepInFlight(st)
	st.JankAtS, st.BigJankAtS = jankTimes(st)
	st.Causes = c.summariseCauses(st, frames)
	st.Smoothness = c.smoothness(st)
	st.Trace = c.traceStep(st)
	if c.cfg.has(CollectCPU) {
		st.CPUStats = c.cpuStats(st)
	}
	if c.cfg.has(CollectMemory) {
		st.MemoryStats = c.memoryStats(st)
	}
	if c.traffic != "" {
		st.TrafficStats = c.trafficStats(st)
	}
	if c.batteryOK {
		st.BatteryStats = c.batteryStats(st)
	}
	if c.thermalOK {
		st.ThermalStats = c.thermalStats(st)
	}
	for _, cr := range r.Crashes {
		if cr.Step == st.Name {
			st.Crashes = append(st.Crashes, cr)
		}
	}
	for _, g := range r.Gaps {
		if g.Step == st.Name {
			st.Gaps++
		}
	}
	st.Ticks = c.tickStats(st.HostStartNs, st.HostEndNs)
	c.markAbsent(st)
}

// tickStats describes the ticks whose samples fall in [start, end] (host
// ns); a tick's spacing is from the request of the tick before it, inside
// the window or not.
func (c *collector) tickStats(start, end int64) result.TickStats {
	var ts result.TickStats
	var spacing []float64
	prev := int64(-1)
	for _, smp := range c.s.res.Samples {
		sent := smp.HostNs - smp.RTTNs/2
		if smp.HostNs >= start && smp.HostNs <= end {
			ts.Ticks++
			if smp.LateNs > int64(c.cfg.Interval)/2 {
				ts.Late++
			}
			ts.MaxLateMs = max(ts.MaxLateMs, float64(smp.LateNs)/1e6)
			ts.MaxRTTMs = max(ts.MaxRTTMs, float64(smp.RTTNs)/1e6)
			if prev >= 0 {
				spacing = append(spacing, float64(sent-prev)/1e6)
			}
		}
		prev = sent
	}
	for _, v := range spacing {
		ts.MaxSpacingMs = max(ts.MaxSpacingMs, v)
	}
	ts.P95SpacingMs = frames.NearestRank(spacing, 95)
	return ts
}

// stepFrames returns the frames whose time falls in [start, end).
func stepFrames(all []frames.Frame, start, end int64) []frames.Frame {
	var out []frames.Frame
	for _, f := range all {
		if t := f.Time(); t >= start && t < end {
			out = append(out, f)
		}
	}
	return out
}

// elapsedBetween is the time between two reads: on the device's clock
// (/proc/uptime read next to them) where both reads have it, which onDevice
// reports, else between their hosts' stamps. A host stamp is off by up to
// half its round trip, which a busy host makes long; the device's clock is
// not.
func elapsedBetween(hostA, hostB, upA, upB int64) (d time.Duration, onDevice bool) {
	if upA > 0 && upB > upA {
		return time.Duration(upB - upA), true
	}
	return time.Duration(hostB - hostA), false
}

// bracket returns the indexes of the last sample at or before start and the
// first at or after end among those ok accepts, so the pair covers the
// whole step; where no sample lies outside an edge, the nearest one inside
// stands in.
func bracket(n int, host func(int) int64, ok func(int) bool, start, end int64) (int, int, bool) {
	a, b := -1, -1
	for i := 0; i < n; i++ {
		if ok(i) && host(i) <= start {
			a = i
		}
	}
	if a < 0 {
		for i := 0; i < n; i++ {
			if ok(i) && host(i) < end {
				a = i
				break
			}
		}
	}
	for i := 0; i < n; i++ {
		if ok(i) && host(i) >= end {
			b = i
			break
		}
	}
	if b < 0 {
		for i := n - 1; i >= 0; i-- {
			if ok(i) && host(i) > start {
				b = i
				break
			}
		}
	}
	return a, b, a >= 0 && b > a
}

// cpuStats follows DESIGN.md "CPU" over every tick interval of the step:
// the app's share is Σ app Δ / Σ Δtotal, each interval counting the
// processes present at both of its ends and those that started inside it
// (procfs.CPUAppTicksBetween), so an app that dies in the step keeps its
// time up to the last tick that saw it. The top-style per-core figure sets
// each interval's Δtotal against the cores online in it (the cpuN lines of
// /proc/stat). Without /proc/stat, wall time × the core count stands in
// for Δtotal: the device's, from the /proc/uptime each tick reads right
// after the app's counters, or the host's between the ticks' round trips
// where a tick has no clock read.
func (c *collector) cpuStats(st *result.Step) result.CPUStats {
	r := c.s.res
	out := result.CPUStats{Unit: "%", Source: "/proc/stat, /proc/<pid>/stat, /proc/<pid>/task/*/stat"}
	if !c.cpuOK {
		out.Source = "/proc/<pid>/stat over wall time (/proc/stat unreadable)"
	}
	hostClock := false // an interval timed on the host
	cores := r.Device.Cores
	usable := func(i int) bool {
		s := r.Samples[i]
		return (s.CPU != nil || !c.cpuOK) && procsRead(s)
	}
	a, b, ok := bracket(len(r.Samples), func(i int) int64 { return r.Samples[i].HostNs }, usable, st.HostStartNs, st.HostEndNs)
	if !ok {
		return out
	}
	var app, total, coreTotal, busy float64
	var ticks []float64
	prev := a
	for i := a + 1; i <= b; i++ {
		if !usable(i) {
			continue
		}
		p, q := r.Samples[prev], r.Samples[i]
		prev = i
		// The interval's elapsed ticks on the whole device and on one core.
		var dt, dCore, dBusy float64
		if c.cpuOK {
			t, bz, err := procfs.CPUDelta(*p.CPU, *q.CPU)
			if err != nil {
				continue
			}
			online := q.OnlineCores
			if online <= 0 {
				online = cores
			}
			dt, dBusy = float64(t), float64(bz)
			if online > 0 {
				dCore = dt / float64(online)
			}
		} else {
			elapsed, onDevice := elapsedBetween(p.HostNs, q.HostNs, p.UptimeNs, q.UptimeNs)
			hostClock = hostClock || !onDevice
			dCore = float64(r.Device.ClockTicks) * float64(elapsed) / 1e9
			dt = dCore * float64(cores)
		}
		d := float64(procfs.CPUAppTicksBetween(p.Procs, q.Procs, c.uptimeTicks(p)))
		app, total, coreTotal, busy = app+d, total+dt, coreTotal+dCore, busy+dBusy
		out.Intervals++
		if dt > 0 {
			pct := d / dt * 100
			out.Max = max(out.Max, pct)
			ticks = append(ticks, pct)
			out.DeviceMax = max(out.DeviceMax, dBusy/dt*100)
		}
	}
	if !c.cpuOK {
		out.Source = "/proc/<pid>/stat over wall time on the device's /proc/uptime (/proc/stat unreadable)"
		if hostClock {
			out.Source = "/proc/<pid>/stat over wall time, on the host's clock where a tick had no /proc/uptime (/proc/stat unreadable)"
		}
	}
	if total > 0 {
		out.Mean = app / total * 100
		out.DeviceMean = busy / total * 100
	}
	if coreTotal > 0 {
		out.MeanPerCore = app / coreTotal * 100
	}
	out.P90 = frames.NearestRank(ticks, 90)
	sa, sb := r.Samples[a], r.Samples[b]
	online := sb.OnlineCores
	if online <= 0 {
		online = cores
	}
	if c.cpuOK && len(sb.Threads) > 0 && online > 0 {
		if th, err := procfs.CPUTopThreads(*sa.CPU, *sb.CPU, sa.Threads, sb.Threads, online, 5); err == nil {
			for _, t := range th {
				out.Threads = append(out.Threads, result.ThreadCPU{TID: t.TID, Name: t.Name, Pct: t.Percent, CorePct: t.CorePct})
			}
		}
	}
	return out
}

func (c *collector) memoryStats(st *result.Step) result.MemoryStats {
	r := c.s.res
	out := result.MemoryStats{Unit: "KiB", Source: "dumpsys meminfo <pkg> (PSS, App Summary); /proc/<pid>/status VmRSS (RSS)"}
	var rss []dumpsys.MemorySample
	for _, s := range r.Samples {
		if s.HostNs >= st.HostStartNs && s.HostNs <= st.HostEndNs && s.RSSKB > 0 {
			rss = append(rss, dumpsys.MemorySample{At: time.Duration(s.HostNs), KB: s.RSSKB})
		}
	}
	// Likewise a step shorter than a tick may hold no status read.
	if len(rss) == 0 {
		for _, s := range r.Samples {
			if s.HostNs >= st.HostStartNs && s.HostNs <= st.HostEndNs+int64(c.cfg.Interval) && s.RSSKB > 0 {
				rss = append(rss, dumpsys.MemorySample{At: time.Duration(s.HostNs), KB: s.RSSKB})
				break
			}
		}
	}
	if m, err := dumpsys.MemorySummarize(rss); err == nil {
		out.RSSSamples, out.RSSMaxKB, out.RSSLastKB, out.RSSMeanKB = m.N, m.MaxKB, m.LastKB, m.MeanKB
	}
	var pss []dumpsys.MemorySample
	for _, m := range r.Memory {
		if m.HostNs >= st.HostStartNs && m.HostNs <= st.HostEndNs {
			pss = append(pss, dumpsys.MemorySample{At: time.Duration(m.HostNs), KB: m.PSSKB})
			if m.Summary != nil {
				out.Summary = m.Summary
			}
		}
	}
	// A step shorter than a meminfo read (or one the lane was late for)
	// may hold no read inside it; the read its start called for stands in,
	// else the first one after it started.
	if len(pss) == 0 {
		for _, m := range r.Memory {
			if slices.Contains(m.Steps, st.Name) || m.HostNs >= st.HostStartNs && m.HostNs <= st.HostEndNs+int64(c.cfg.SlowInterval) {
				pss = append(pss, dumpsys.MemorySample{At: time.Duration(m.HostNs), KB: m.PSSKB})
				out.Summary = m.Summary
				break
			}
		}
	}
	if m, err := dumpsys.MemorySummarize(pss); err == nil {
		out.PSSSamples, out.PSSMaxKB, out.PSSLastKB, out.PSSMeanKB = m.N, m.MaxKB, m.LastKB, m.MeanKB
		out.PSSGrowthKBPerMin = m.GrowthKBPerMin
	}
	return out
}

// trafficStats is the step's traffic, or nil when it has no byte count:
// fewer than two reads around it, reads that failed at its edges (the
// count would reach outside it), or counters that went backwards. The
// reason goes to the step's NotMeasured.
func (c *collector) trafficStats(st *result.Step) *result.TrafficStats {
	r := c.s.res
	out := &result.TrafficStats{Source: c.traffic, Unit: "bytes", Scope: c.runConfig().TrafficScope}
	lane := "cheap"
	if c.traffic == trafficNetstats {
		lane = "slow"
	}
	a, b, ok := bracket(len(r.Traffic), func(i int) int64 { return r.Traffic[i].HostNs }, func(int) bool { return true }, st.HostStartNs, st.HostEndNs)
	reads := c.reads(srcTraffic, lane, st.HostStartNs, st.HostEndNs)
	if !ok {
		switch {
		case c.traffic == trafficNetDev && !c.ranDuring(st.HostStartNs, st.HostEndNs):
			c.setWhy(metrics.FamilyTraffic, "traffic: "+c.traffic+" needs the app's process; "+c.notRunningWhy(st.HostStartNs, st.HostEndNs))
		case unreadable(c.traffic, reads) != "":
			c.setWhy(metrics.FamilyTraffic, "traffic: "+unreadable(c.traffic, reads))
		default:
			c.setWhy(metrics.FamilyTraffic, fmt.Sprintf("traffic: fewer than two reads of %s around the step", c.traffic))
		}
		return nil
	}
	if why := unreadable(c.traffic, within(reads, st.HostEndNs)); why != "" {
		c.setWhy(metrics.FamilyTraffic, "traffic: "+why)
		return nil
	}
	ta, tb := r.Traffic[a], r.Traffic[b]
	// Normally the two reads lie within a tick of the step's edges. Where
	// reads failed between an edge and its read, the byte count would take
	// in traffic from outside the step, or miss some of it.
	failed, last := 0, ""
	for _, e := range [][2]int64{{ta.HostNs, st.HostStartNs}, {st.HostEndNs, tb.HostNs}} {
		lo, hi := min(e[0], e[1]), max(e[0], e[1])
		for _, x := range c.reads(srcTraffic, lane, lo, hi) {
			if x.err != "" && x.hostNs > lo && x.hostNs < hi {
				failed, last = failed+1, x.err
			}
		}
	}
	if failed > 0 {
		c.setWhy(metrics.FamilyTraffic, fmt.Sprintf("traffic: %s unreadable at the step's edge (%d failed reads; last: %s): the nearest good reads would count bytes from outside the step or miss some of it", c.traffic, failed, last))
		return nil
	}
	counters := func(x result.TrafficSample) procfs.TrafficCounters {
		return procfs.TrafficCounters{RxBytes: x.RxBytes, TxBytes: x.TxBytes, RxPackets: x.RxPackets, TxPackets: x.TxPackets}
	}
	// A counter that went backwards anywhere between the two reads (a
	// reset) leaves the bytes of that interval unknown, even when the
	// edges happen to agree.
	backwards := func(p, q result.TrafficSample, err error) *result.TrafficStats {
		c.note("traffic: step %s: %v", st.Name, err)
		c.setWhy(metrics.FamilyTraffic, fmt.Sprintf("traffic: %s: %v (rx %d → %d, tx %d → %d bytes)", c.traffic, err, p.RxBytes, q.RxBytes, p.TxBytes, q.TxBytes))
		return nil
	}
	for i := a + 1; i <= b; i++ {
		if _, err := procfs.TrafficDelta(counters(r.Traffic[i-1]), counters(r.Traffic[i])); err != nil {
			return backwards(r.Traffic[i-1], r.Traffic[i], err)
		}
	}
	d, err := procfs.TrafficDelta(counters(ta), counters(tb))
	if err != nil {
		return backwards(ta, tb, err)
	}
	out.RxBytes, out.TxBytes = d.RxBytes, d.TxBytes
	out.Intervals = b - a
	elapsed, onDevice := elapsedBetween(ta.HostNs, tb.HostNs, ta.UptimeNs, tb.UptimeNs)
	out.Clock = "host"
	if onDevice {
		out.Clock = "/proc/uptime"
	}
	out.DurationSecs = elapsed.Seconds()
	if rate, err := procfs.TrafficRateOf(d, elapsed); err == nil {
		out.RxBytesPerS, out.TxBytesPerS = rate.RxBytesPerSec, rate.TxBytesPerSec
	}
	return out
}

func (c *collector) batteryStats(st *result.Step) *result.BatteryStats {
	r := c.s.res
	out := &result.BatteryStats{Source: dumpsys.BatteryUeventSource}
	hasB := func(i int) bool { return r.Samples[i].Battery != nil }
	a, b, ok := bracket(len(r.Samples), func(i int) int64 { return r.Samples[i].HostNs }, hasB, st.HostStartNs, st.HostEndNs)
	if !ok {
		return nil
	}
	out.StartLevelPct = r.Samples[a].Battery.LevelPct
	out.EndLevelPct = r.Samples[b].Battery.LevelPct
	var cur float64
	n, temps := 0, 0
	for i := a; i <= b; i++ {
		if br := r.Samples[i].Battery; br != nil {
			if !br.NoTemperature {
				if temps == 0 || br.TemperatureC > out.MaxTemperatureC {
					out.MaxTemperatureC = br.TemperatureC
				}
				temps++
			}
			cur += br.CurrentMA
			n++
		}
	}
	if temps == 0 {
		c.setWhyMetric(metrics.BatteryTempMax, "battery: "+dumpsys.BatteryUeventSource+" has no POWER_SUPPLY_TEMP")
	}
	out.MeanCurrentMA = cur / float64(n)
	return out
}

func (c *collector) thermalStats(st *result.Step) *result.ThermalStats {
	r := c.s.res
	has := func(i int) bool { return r.Samples[i].ThermalC != nil }
	a, b, ok := bracket(len(r.Samples), func(i int) int64 { return r.Samples[i].HostNs }, has, st.HostStartNs, st.HostEndNs)
	if !ok {
		return nil
	}
	out := &result.ThermalStats{Source: dumpsys.ThermalZonesCommand, ZoneMaxC: map[string]float64{}}
	for i := a; i <= b; i++ {
		for zone, v := range r.Samples[i].ThermalC {
			if old, seen := out.ZoneMaxC[zone]; !seen || v > old {
				out.ZoneMaxC[zone] = v
			}
			if out.MaxZone == "" || v > out.MaxC || v == out.MaxC && zone < out.MaxZone {
				out.MaxC, out.MaxZone = v, zone
			}
		}
	}
	return out
}

// jankTimes returns the seconds since the step began of the frames the
// step's default jank counted, and of its PerfDog BigJank frames, as the
// frame summary names them.
func jankTimes(st *result.Step) (jank, big []float64) {
	at := func(ns int64) float64 { return math.Round(float64(ns-st.DeviceStartNs)/1e6) / 1e3 }
	j := st.FrameStats.Janked
	for _, t := range j.Of(st.FrameStats.JankDefinition) {
		jank = append(jank, at(t))
	}
	for _, t := range j.PerfDogBig {
		big = append(big, at(t))
	}
	return jank, big
}
