package perftest

import (
	"math"
	"sort"
	"time"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/perftest/internal/clockmap"
	"github.com/perfgate/perfgate/perftest/internal/samples"
	"github.com/perfgate/perfgate/perftest/internal/startupphase"
	"github.com/perfgate/perfgate/result"
)

// finish maps every host time to the device clock and summarises the steps.
// It runs once, under the session lock, after the lanes and the crash
// logcat reads stopped.
func (c *collector) finish() {
	r := c.s.res
	c.frames.Finish(c.s.now())
	clk := c.stepClock()
	if clk.OK() && clk.Source() == "/proc/uptime" {
		c.note("clock: mapped through /proc/uptime (10 ms resolution; counts suspend time, so valid only while the device stays awake)")
	}
	r.Clock = clk.Sync()
	c.traceSpan(clk)
	samples.Finish(r, clk.ToDevice)
	// Process ends are recorded as their log reads finish.
	for _, list := range [][]result.Crash{r.Crashes, r.ProcessEnds, r.Restarts} {
		sort.SliceStable(list, func(i, j int) bool { return list[i].HostNs < list[j].HostNs })
		for i := range list {
			list[i].DeviceNs = clk.ToDevice(list[i].HostNs)
		}
	}
	for _, st := range r.Steps {
		st.DeviceStartNs = clk.ToDevice(st.HostStartNs)
		st.DeviceEndNs = clk.ToDevice(st.HostEndNs)
		startupphase.Place(st.Startup, clk.ToDevice)
		c.summarise(st)
	}
	if n := len(r.Samples); n > 0 {
		w := &result.Step{Name: "session", HostStart: r.Start, HostEnd: time.Now(), HostEndNs: r.Samples[n-1].HostNs + 1}
		w.DeviceStartNs, w.DeviceEndNs = clk.ToDevice(w.HostStartNs), clk.ToDevice(w.HostEndNs)
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
	if r.Frames == nil {
		r.Frames = []frames.Frame{}
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
func (c *collector) stepClock() *clockmap.Map {
	if c.clockGfx.OK() {
		return &c.clockGfx
	}
	return &c.clockProc
}

func (c *collector) summarise(st *result.Step) {
	r := c.s.res
	frames := stepFrames(r.Frames, st.DeviceStartNs, st.DeviceEndNs)
	c.frames.Summarise(st, frames, st == c.whole)
	st.JankAtS, st.BigJankAtS = jankTimes(st)
	st.Causes = c.summariseCauses(st)
	st.Smoothness = c.smooth.Step(st, c.samples.RanDuring(st.HostStartNs, st.HostEndNs), c.refreshHz)
	st.Trace = c.traceStep(st)
	c.samples.Summarise(st, c.why, c.whyMetric)
	c.s.energy.Summarise(st, r, c.note)
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
