package perftest

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest/internal/stepstats"
	"github.com/perfgate/perfgate/result"
)

// finish maps every host time to the device clock and summarises the steps.
// It runs once, under the session lock, after the lanes and the crash
// logcat reads stopped.
func (c *collector) finish() {
	r := c.s.res
	c.frames.Finish(c.s.now())
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
	c.frames.Summarise(st, frames, st == c.whole)
	st.JankAtS, st.BigJankAtS = jankTimes(st)
	st.Causes = c.summariseCauses(st, frames)
	st.Smoothness = c.smooth.Step(st, c.ranDuring(st.HostStartNs, st.HostEndNs), c.refreshHz)
	st.Trace = c.traceStep(st)
	if c.cfg.has(CollectCPU) {
		st.CPUStats = stepstats.CPU(r, st, c.cpuOK)
	}
	if c.cfg.has(CollectMemory) {
		st.MemoryStats = stepstats.Memory(r, st, c.cfg.Interval, c.cfg.SlowInterval)
	}
	if c.traffic != "" {
		st.TrafficStats = c.trafficStats(st)
	}
	if c.batteryOK {
		var tempWhy string
		if st.BatteryStats, tempWhy = stepstats.Battery(r.Samples, st); tempWhy != "" {
			c.setWhyMetric(metrics.BatteryTempMax, tempWhy)
		}
	}
	if c.thermalOK {
		st.ThermalStats = stepstats.Thermal(r.Samples, st)
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
	st.Ticks = stepstats.Ticks(r.Samples, c.cfg.Interval, st.HostStartNs, st.HostEndNs)
	c.markAbsent(st)
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

// trafficStats is the step's traffic, or nil when it has no byte count:
// fewer than two reads around it, reads that failed at its edges (the
// count would reach outside it), or counters that went backwards. The
// reason goes to the step's NotMeasured.
func (c *collector) trafficStats(st *result.Step) *result.TrafficStats {
	r := c.s.res
	lane := "cheap"
	if c.traffic == trafficNetstats {
		lane = "slow"
	}
	a, b, ok := stepstats.Bracket(len(r.Traffic), func(i int) int64 { return r.Traffic[i].HostNs }, func(int) bool { return true }, st.HostStartNs, st.HostEndNs)
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
	out, back := stepstats.Traffic(r.Traffic, a, b)
	if back != nil {
		c.note("traffic: step %s: %v", st.Name, back.Err)
		c.setWhy(metrics.FamilyTraffic, back.Why(c.traffic))
		return nil
	}
	out.Source, out.Unit, out.Scope = c.traffic, "bytes", c.runConfig().TrafficScope
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
