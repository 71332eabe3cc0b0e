package perftest

import (
	"math"
	"slices"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/frames"
)

// absorbSF takes the --latency rows printed after the last row it took or
// rejected (DESIGN.md: across polls keep only B greater than the last B
// already kept), and counts the rows that cannot be frames (a present time
// going backwards or past the device clock uptimeNs). Empty slots are the
// unwritten part of the ring, not rows; a row whose fence is pending is
// taken when it signals, and counted only when a later row was presented
// first.
func (c *collector) absorbSF(text []byte, cmd string, send, uptimeNs int64) int {
	l, err := surfaceflinger.ParseLatency(text)
	if err != nil {
		c.note("frames: %s: %v", cmd, err)
		return 0
	}
	if l.RefreshPeriod > 0 && c.sfPeriod == 0 {
		c.sfPeriod = l.RefreshPeriod
	}
	rows := l.Rows
	c.sfFenceWait = false
	real := func(f surfaceflinger.LatencyFrame) bool {
		return f.ActualPresent != 0 && f.ActualPresent != math.MaxInt64
	}
	c.sfPolls++
	if len(l.Frames) == 0 {
		c.sfEmptyPolls++
		if len(rows) == 0 {
			c.sfPeriodOnly++
		}
	}
	start := 0
	if c.sfHaveKey {
		start = -1
		for i := len(rows) - 1; i >= 0; i-- {
			if rows[i] == c.sfKey {
				start = i + 1
				break
			}
		}
		if start < 0 {
			// The last row accounted left the ring: the new rows are those
			// presented after the last kept, and if the ring is full of
			// them, some were lost between polls.
			start = len(rows)
			for i, f := range rows {
				if f.ActualPresent == math.MaxInt64 || real(f) && f.ActualPresent > c.sfLast {
					start = i
					break
				}
			}
			if len(rows) >= sfBufferLen && start < len(rows) && real(rows[start]) && start == 0 {
				c.lostFrames(send, cmd, c.sfLast, rows[0].ActualPresent)
			}
		}
	}
	prevB := c.sfLast
	n := 0
	for i := start; i < len(rows); i++ {
		f := rows[i]
		r := surfaceflinger.RowReject(f, prevB, uptimeNs)
		if r == gfxinfo.RejectEmpty {
			continue
		}
		if r == gfxinfo.RejectPendingFence && !slices.ContainsFunc(rows[i+1:], real) {
			c.sfFenceWait = true
			break // its fence may still signal
		}
		c.sfKey, c.sfHaveKey = f, true
		fr := frames.Frame{Source: frames.SourceSurfaceFlinger, Window: c.layer, LatencyFrame: f}
		if r != "" {
			c.rejectRow(fr, r, 0, send)
			continue
		}
		c.addFrame(fr)
		c.sfLast, prevB = f.ActualPresent, f.ActualPresent
		n++
	}
	return n
}

// pickLayer chooses the app's layer from `dumpsys SurfaceFlinger --list`
// with surfaceflinger.PickLayer; "" when the app has none.
func pickLayer(list []byte, pkg string) string {
	layers, err := surfaceflinger.ParseList(list)
	if err != nil {
		return ""
	}
	l, err := surfaceflinger.PickLayer(layers, pkg)
	if err != nil {
		return ""
	}
	return l.Name
}
