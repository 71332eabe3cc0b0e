package framesrc

import (
	"time"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/frames"
)

// Choose is the frame source of a session that named none, from what each
// shows: gfxDump is the app's `dumpsys gfxinfo <pkg> framestats`, latency
// its layer's `dumpsys SurfaceFlinger --latency <layer>` read right after
// (empty when unread). The layer wins when it shows clearly more frames over
// the last half second than gfxinfo (an app drawing through a SurfaceView
// — a game, video, a map — shows its frames only on the layer), else
// gfxinfo, whose durations and deadlines make the better jank definition
// (DESIGN.md "Pauses are not janks"). Counting a recent span, not whole
// buffers, keeps the two ring sizes (120 and 127) from deciding. gfxN and
// sfN are the frames each showed in that span.
func Choose(gfxDump, latency []byte) (kind string, gfxN, sfN int) {
	var gfxT, sfT []int64
	gfxClock := int64(0)
	if g, err := gfxinfo.Parse(gfxDump); err == nil {
		gfxClock = g.ClockNs()
		for _, w := range g.Windows() {
			if w.Frames != nil {
				for _, f := range frames.UsableGfxInfo(w.Frames.Frames()) {
					gfxT = append(gfxT, f.IntendedVsync)
				}
			}
		}
	}
	if l, err := surfaceflinger.ParseLatency(latency); err == nil {
		sfT = l.PresentTimes()
	}
	return autoSource(gfxT, sfT, gfxClock)
}

// autoSource is Choose's rule on the frame times each source shows
// (gfxT, sfT): the counts over the half second before the newest frame of
// either, cut at the gfxinfo dump's own clock (gfxClock, 0 if unknown),
// since the SurfaceFlinger dump is read a round trip later and a host that
// stalls between the two would otherwise compare a layer's fresh frames
// with gfxinfo frames that had no chance to exist yet. The layer wins when
// it shows clearly more: twice as many and then some, so a just-launched
// app whose first gfxinfo frames carry flags does not tip the choice.
func autoSource(gfxT, sfT []int64, gfxClock int64) (kind string, gfxN, sfN int) {
	end := int64(0)
	for _, t := range gfxT {
		end = max(end, t)
	}
	for _, t := range sfT {
		end = max(end, t)
	}
	if gfxClock > 0 {
		end = min(end, gfxClock)
	}
	since := end - int64(500*time.Millisecond)
	count := func(ts []int64) int {
		n := 0
		for _, t := range ts {
			if t >= since && t <= end {
				n++
			}
		}
		return n
	}
	gfxN, sfN = count(gfxT), count(sfT)
	if sfN > 2*gfxN+4 {
		return frames.SourceSurfaceFlinger, gfxN, sfN
	}
	return frames.SourceGfxInfo, gfxN, sfN
}
