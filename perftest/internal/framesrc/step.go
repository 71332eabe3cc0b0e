package framesrc

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
)

// Summarise sets the frame figures of step st from its frames fs (those
// whose time lies in its device window): the frame summary of its busiest
// window, the other windows, the rows rejected in it and the frames still
// drawing at Stop. whole says st is the Result's Whole step, which takes no
// note of frames in flight.
func (s *Source) Summarise(st *result.Step, fs []frames.Frame, whole bool) {
	st.FrameStats, st.Windows = s.frameStats(fs)
	st.FramesRejected = s.stepRejects(st.DeviceStartNs, st.DeviceEndNs)
	s.stepInFlight(st, whole)
}

// frameStats summarises a step's frames: the window (or layer) with the
// most frames is the step's; the others are listed.
func (s *Source) frameStats(fs []frames.Frame) (frames.Summary, []result.WindowFrames) {
	var order []string
	by := map[string][]frames.Frame{}
	for _, f := range fs {
		if _, ok := by[f.Window]; !ok {
			order = append(order, f.Window)
		}
		by[f.Window] = append(by[f.Window], f)
	}
	var windows []result.WindowFrames
	best := ""
	for _, w := range order {
		windows = append(windows, result.WindowFrames{Window: w, Frames: len(by[w])})
		if best == "" || len(by[w]) > len(by[best]) {
			best = w
		}
	}
	st := frames.Summarize(s.cfg.Kind, by[best], s.PeriodNs())
	st.Window = best
	return st, windows
}

// stepRejects counts the rejected rows whose time lies in [start, end).
func (s *Source) stepRejects(start, end int64) gfxinfo.Rejects {
	out := gfxinfo.Rejects{}
	for _, t := range s.flaggedAt {
		if t >= start && t < end {
			out.Add(gfxinfo.RejectFlags)
		}
	}
	for _, rf := range s.res.RejectedFrames {
		if t := rf.Time(); t >= start && t < end {
			out.Add(gfxinfo.Reject(rf.Reason))
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// stepInFlight counts the frames of the step's time still drawing when
// Stop's last poll ran, and notes them (but for the whole session's step):
// they are in none of its figures.
func (s *Source) stepInFlight(st *result.Step, whole bool) {
	var longest int64
	for _, f := range s.inFlight {
		if f.vsync >= st.DeviceStartNs && f.vsync < st.DeviceEndNs {
			st.FramesInFlight++
			longest = max(longest, f.drawingNs)
		}
	}
	if st.FramesInFlight == 0 {
		return
	}
	st.InFlightMs = math.Round(float64(longest)/1e5) / 10
	if !whole {
		s.note("frames: %d frame(s) of step %q still drawing when Stop's last poll ran, the longest %.1f ms after its vsync: in none of the step's frame figures (Config.Settle, %v, bounds how long Stop waits for frames in flight)",
			st.FramesInFlight, st.Name, st.InFlightMs, s.cfg.Settle)
	}
}

// Live summarises the frames taken from device time startNs on (the open
// step's so far): their count, fps and jank.
func (s *Source) Live(startNs int64) (n int, fps float64, jank int) {
	fr := s.res.Frames
	i := len(fr)
	for i > 0 && fr[i-1].Time() >= startNs {
		i--
	}
	fs, _ := s.frameStats(fr[i:])
	return fs.Frames, fs.FPS, fs.Jank
}

// Lost says which of the step's frames the phone's frame buffer lost by
// wrapping between two polls (Gap.LostFromNs), "" when it lost none of
// them: a count over the others would be a part of the step's.
func (s *Source) Lost(st *result.Step) string {
	n := 0
	var from, to int64
	for _, g := range s.res.Gaps {
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
