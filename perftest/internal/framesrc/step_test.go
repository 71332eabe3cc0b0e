package framesrc

import (
	"testing"

	"github.com/perfgate/perfgate/android/gfxinfo"
	framespkg "github.com/perfgate/perfgate/frames"
)

func TestFrameStatsPicksBusiestWindow(t *testing.T) {
	src := bareSource(framespkg.SourceGfxInfo)
	src.cfg.RefreshHz = 60
	ms := int64(1_000_000)
	var frames []framespkg.Frame
	// Window "main" draws 5 frames 16 ms apart, each 8 ms long; "popup"
	// draws 2.
	for i := int64(0); i < 5; i++ {
		frames = append(frames, gfxFrame("main", gfxinfo.FrameStats{IntendedVsync: 1000*ms + i*16*ms, FrameCompleted: 1008*ms + i*16*ms}))
	}
	frames = append(frames,
		gfxFrame("popup", gfxinfo.FrameStats{IntendedVsync: 1000 * ms, FrameCompleted: 1004 * ms}),
		gfxFrame("popup", gfxinfo.FrameStats{IntendedVsync: 1016 * ms, FrameCompleted: 1020 * ms}))
	st, windows := src.frameStats(frames)
	if st.Window != "main" || st.Frames != 5 || len(windows) != 2 || windows[1].Window != "popup" || windows[1].Frames != 2 {
		t.Fatalf("stats %+v windows %+v", st, windows)
	}
	// fps = (5 − 1) / 64 ms = 62.5; no frame took longer than a period.
	if st.FPS != 62.5 || st.Jank != 0 || st.FrameTimeMS.P50 != 8 {
		t.Errorf("fps %v jank %d p50 %v", st.FPS, st.Jank, st.FrameTimeMS.P50)
	}
}
