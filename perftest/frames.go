package perftest

import (
	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest/internal/framesrc"
	"github.com/perfgate/perfgate/result"
)

// newFrameSource is the collector's frame source, writing into the
// session's Result.
func newFrameSource(c *collector) *framesrc.Source {
	return framesrc.New(framesrc.Env{
		Result: c.s.res, Note: c.note, StepAt: c.s.stepAtLocked,
		GfxClock: &c.clockGfx, ProcClock: &c.clockProc,
	})
}

// framesDue says whether the next tick polls frames: the first clockPolls
// ticks all do, since the gfxinfo dump's Uptime line is the clock the
// session maps steps onto, and a map is as tight as its best round trips;
// so does every tick while a step that ended waits for a poll after its end
// to be written with its frames (Session.polledLocked); else the frame
// source says (framesrc.Source.Due).
func (c *collector) framesDue() bool {
	return c.ticks < clockPolls || c.s.ckArmed || c.frames.Due(c.s.now())
}

// clockPolls is how many ticks from the start poll frames every time.
const clockPolls = 10

// absorbFrames hands the frame poll of a tick planned as p to the frame
// source; uptimeNs is the device clock read in the same tick after the
// dump, 0 if unknown.
func (c *collector) absorbFrames(p tickPlan, out []adbx.Result, send, recv, uptimeNs int64) int {
	c.framesSent = send
	t := framesrc.Tick{SendNs: send, RecvNs: recv, UptimeNs: uptimeNs}
	if p.framesUptime >= 0 {
		// The row check takes any clock read after the rows were
		// printed; the watermark needs this one, read before.
		t.DumpUptimeNs, _ = uptimeOf(out[p.framesUptime])
	}
	return c.frames.Absorb(t, out[p.frames], p.cmds[p.frames], p.filtered)
}

// framesPending reports whether frames of the time before host time stopNs
// may still be missing from what the polls took, so Stop polls again
// (framesrc.Source.Pending).
func (c *collector) framesPending(stopNs int64) bool {
	if !c.cfg.has(CollectFrames) || len(c.pids) == 0 {
		return false
	}
	return c.frames.Pending(stopNs, c.s.now())
}

// liveFrames summarises the open step's frames so far.
func (c *collector) liveFrames(st *result.Step) (int, float64, int) {
	clk := c.stepClock()
	if !clk.OK() {
		return 0, 0, 0
	}
	return c.frames.Live(clk.ToDevice(st.HostStartNs))
}
