package perftest

import (
	"cmp"
	"fmt"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest/internal/readlog"
	"github.com/perfgate/perfgate/perftest/internal/samples"
	"github.com/perfgate/perfgate/result"
)

// srcFrames names the frame polls in the read log, so frame metrics
// without a value can say why (README "Unmeasured is never zero").
const srcFrames = "frames"

// framesReadAfter reports whether a frame poll sent after host time end
// succeeded: the only read whose dump can show every frame drawn up to
// then (frames still drawing aside: see collector.framesPending).
func (c *collector) framesReadAfter(end int64) bool {
	return c.log.GoodSince(srcFrames, end+1)
}

// markAbsent sets st.NotMeasured: every metric of the catalogue the step
// has no value for, with the most specific reason known — the collector's
// (a source unreadable, the app not running) before what the figures show.
func (c *collector) markAbsent(st *result.Step) {
	why, whyMetric := c.why, c.whyMetric
	c.resetWhy()
	start, end := st.HostStartNs, st.HostEndNs
	notRunning := c.samples.NotRunningWhy(start, end)
	if w := c.framesWhy(st, notRunning); w != "" {
		why[metrics.FamilyFrames] = w
	}
	switch {
	case !c.cfg.has(CollectFrames):
		why[metrics.FamilyChoreographer] = samples.NotCollected(string(CollectFrames))
	case st.Smoothness == nil:
		why[metrics.FamilyChoreographer] = c.smooth.Why(st, notRunning)
	}
	if r := c.traceWhy(st); r != "" && why[metrics.FamilyTrace] == "" {
		why[metrics.FamilyTrace] = r
	}
	c.samples.Absent(st, why, whyMetric, notRunning)
	st.SetNotMeasured(func(m metrics.Metric) string { return cmp.Or(whyMetric[m.Name], why[m.Family]) })
}

// framesWhy is why the step has no frame figures, "" when it has them.
func (c *collector) framesWhy(st *result.Step, notRunning string) string {
	start, end := st.HostStartNs, st.HostEndNs
	// The session as a whole ends at its last tick (Result.Whole): a frame
	// poll in that tick, sent before it ended, read all of its frames.
	readEnd := end
	if smp := c.s.res.Samples; st == c.whole && len(smp) > 0 {
		last := smp[len(smp)-1]
		readEnd = last.HostNs - last.RTTNs/2 - 1
	}
	lost := c.frames.Lost(st)
	switch {
	case !c.cfg.has(CollectFrames):
		return samples.NotCollected(string(CollectFrames))
	case !c.samples.RanDuring(start, end) && st.FrameStats.Frames == 0:
		return "frames: " + notRunning
	case !c.framesReadAfter(readEnd):
		// The frames drawn after the last poll that succeeded are unknown,
		// so a count (0 or more) would only be a part of the step's.
		rs := c.log.Window(srcFrames, "cheap", c.s.res.Gaps, start, end)
		if s := readlog.Unreadable(c.frames.Cmd(), rs); s != "" {
			return "frames: " + s
		}
		return fmt.Sprintf("frames: no frame poll succeeded after the step ended (%d failed from its start on), so its frames are known only in part", readlog.Failed(rs))
	}
	return lost
}

// resetWhy forgets the reasons found while the last step was summarised.
func (c *collector) resetWhy() {
	c.why, c.whyMetric = map[metrics.Family]string{}, map[metrics.Name]string{}
}

// setWhy records a reason found while summarising st's family f.
func (c *collector) setWhy(f metrics.Family, reason string) { c.why[f] = reason }
