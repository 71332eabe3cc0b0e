package framesrc

import (
	"math"
	"slices"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/frames"
)

// sfBufferLen is the number of frames `--latency` keeps per layer.
const sfBufferLen = 127

// absorbSF takes the --latency rows printed after the last row it took or
// rejected (DESIGN.md: across polls keep only B greater than the last B
// already kept), and counts the rows that cannot be frames (a present time
// going backwards or past the device clock uptimeNs). Empty slots are the
// unwritten part of the ring, not rows; a row whose fence is pending is
// taken when it signals, and counted only when a later row was presented
// first.
func (s *Source) absorbSF(text []byte, cmd string, send, uptimeNs int64) int {
	l, err := surfaceflinger.ParseLatency(text)
	if err != nil {
		s.note("frames: %s: %v", cmd, err)
		return 0
	}
	if l.RefreshPeriod > 0 && s.sfPeriod == 0 {
		s.sfPeriod = l.RefreshPeriod
	}
	rows := l.Rows
	s.sfFenceWait = false
	real := func(f surfaceflinger.LatencyFrame) bool {
		return f.ActualPresent != 0 && f.ActualPresent != math.MaxInt64
	}
	s.sfPolls++
	if len(l.Frames) == 0 {
		s.sfEmptyPolls++
		if len(rows) == 0 {
			s.sfPeriodOnly++
		}
	}
	start := 0
	if s.sfHaveKey {
		start = -1
		for i := len(rows) - 1; i >= 0; i-- {
			if rows[i] == s.sfKey {
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
				if f.ActualPresent == math.MaxInt64 || real(f) && f.ActualPresent > s.sfLast {
					start = i
					break
				}
			}
			if len(rows) >= sfBufferLen && start < len(rows) && real(rows[start]) && start == 0 {
				s.lostFrames(send, cmd, s.sfLast, rows[0].ActualPresent)
			}
		}
	}
	prevB := s.sfLast
	n := 0
	for i := start; i < len(rows); i++ {
		f := rows[i]
		r := surfaceflinger.RowReject(f, prevB, uptimeNs)
		if r == gfxinfo.RejectEmpty {
			continue
		}
		if r == gfxinfo.RejectPendingFence && !slices.ContainsFunc(rows[i+1:], real) {
			s.sfFenceWait = true
			break // its fence may still signal
		}
		s.sfKey, s.sfHaveKey = f, true
		fr := frames.Frame{Source: frames.SourceSurfaceFlinger, Window: s.cfg.Layer, LatencyFrame: f}
		if r != "" {
			s.rejectRow(fr, r, 0, send)
			continue
		}
		s.addFrame(fr)
		s.sfLast, prevB = f.ActualPresent, f.ActualPresent
		n++
	}
	return n
}

// PickLayer chooses the app's layer from `dumpsys SurfaceFlinger --list`
// with surfaceflinger.PickLayer; "" when the app has none.
func PickLayer(list []byte, pkg string) string {
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
