package perftest

import (
	"errors"
	"math"
	"time"

	"github.com/perfgate/perfgate/metrics"
)

// FrameStats is a step's frame summary, with every definition side by side
// under the names `perfgate analyze frames` prints.
type FrameStats = metrics.FrameSummary

// absorbFrames parses one frame poll, keeps only frames newer than those
// already kept (DESIGN.md: SurfaceFlinger keeps B greater than the last B
// kept; gfxinfo keeps IntendedVsync greater than the last kept for that
// window), feeds the gfxinfo Uptime line to the clock map and returns how
// many frames were new.
func (c *collector) absorbFrames(res cmdResult, cmd string, send, recv int64) int {
	text := res.text()
	if c.source == SourceSurfaceFlinger {
		if res.Exit != 0 {
			c.note("frames: %s", res.failure(cmd))
			return 0
		}
		return c.absorbSF(text, cmd, send)
	}
	g, err := metrics.ParseGfxInfo(text)
	if errors.Is(err, metrics.ErrGfxInfoNoProcess) {
		return 0 // the app is not running; health tracking records why
	}
	if err != nil {
		c.note("frames: %s: %v", cmd, err)
		return 0
	}
	if g.UptimeMillis > 0 {
		c.clockGfx.observe("gfxinfo Uptime", send, recv, g.UptimeMillis*int64(time.Millisecond), int64(time.Millisecond))
	}
	n := 0
	for _, w := range g.Windows() {
		if w.Frames == nil || w.Frames.Len() == 0 {
			continue
		}
		name := w.Label()
		last := c.gfxLast[name]
		rows := w.Frames.Frames()
		if len(rows) >= frameBufferLen && last != 0 && rows[0].IntendedVsync > last {
			c.lostFrames(send, cmd)
		}
		for _, f := range rows {
			if f.Flags != 0 || f.IntendedVsync <= last {
				continue
			}
			if f.FrameCompleted <= 0 || f.FrameCompleted == math.MaxInt64 || f.FrameCompleted < f.IntendedVsync {
				// Still drawing: take it, and everything after it, next poll.
				break
			}
			c.s.res.Frames = append(c.s.res.Frames, Frame{
				Source: string(SourceGfxInfo), Window: name,
				IntendedVsyncNs: f.IntendedVsync, VsyncNs: f.Vsync,
				FrameCompletedNs: f.FrameCompleted, FrameDeadlineNs: f.FrameDeadline,
			})
			last = f.IntendedVsync
			n++
		}
		c.gfxLast[name] = last
	}
	return n
}

// sfBufferLen is the number of frames `--latency` keeps per layer.
const sfBufferLen = 127

// lostFrames records that the device's frame buffer wrapped between two
// polls: the oldest frame of a full buffer is newer than the last one kept.
func (c *collector) lostFrames(hostNs int64, cmd string) {
	c.s.res.Gaps = append(c.s.res.Gaps, Gap{
		Lane: "cheap", HostNs: hostNs, Step: c.s.stepAtLocked(hostNs),
		Error: cmd + ": frame buffer wrapped between polls; frames were lost",
	})
}

// periodNs is R of the metric definitions: the SurfaceFlinger output's
// first line for that source, else the device's refresh rate.
func (c *collector) periodNs() int64 {
	if c.source == SourceSurfaceFlinger && c.sfPeriod > 0 {
		return c.sfPeriod
	}
	return int64(math.Round(1e9 / c.refreshHz))
}

// frameStats summarises a step's frames: the window (or layer) with the
// most frames is the step's; the others are listed.
func (c *collector) frameStats(frames []Frame) (FrameStats, []WindowFrames) {
	var order []string
	by := map[string][]Frame{}
	for _, f := range frames {
		if _, ok := by[f.Window]; !ok {
			order = append(order, f.Window)
		}
		by[f.Window] = append(by[f.Window], f)
	}
	var windows []WindowFrames
	best := ""
	for _, w := range order {
		windows = append(windows, WindowFrames{Window: w, Frames: len(by[w])})
		if best == "" || len(by[w]) > len(by[best]) {
			best = w
		}
	}
	st := summarizeFrames(c.source, by[best], c.periodNs())
	st.Window = best
	return st, windows
}

// summarizeFrames applies the metric definitions to one window's frames.
func summarizeFrames(source FrameSource, frames []Frame, period int64) FrameStats {
	if source == SourceSurfaceFlinger {
		t := make([]int64, len(frames))
		for i, f := range frames {
			t[i] = f.ActualPresentNs
		}
		return metrics.FrameSummarizeSurfaceFlinger(t, period)
	}
	g := make([]metrics.GfxInfoFrame, len(frames))
	for i, f := range frames {
		g[i] = metrics.GfxInfoFrame{
			IntendedVsync: f.IntendedVsyncNs, Vsync: f.VsyncNs,
			FrameCompleted: f.FrameCompletedNs, FrameDeadline: f.FrameDeadlineNs,
		}
	}
	return metrics.FrameSummarizeGfxInfo(g, period)
}

// liveFrames summarises the open step's frames so far.
func (c *collector) liveFrames(st *Step) (int, float64, int) {
	clk := &c.clockGfx
	if !clk.ok() {
		clk = &c.clockProc
	}
	if !clk.ok() {
		return 0, 0, 0
	}
	start := clk.toDevice(st.HostStartNs)
	i := len(c.s.res.Frames)
	for i > 0 && c.s.res.Frames[i-1].Time() >= start {
		i--
	}
	fs, _ := c.frameStats(c.s.res.Frames[i:])
	return fs.Frames, fs.FPS, fs.Jank
}
