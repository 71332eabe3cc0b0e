package perftest

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
)

// bareCollector is a collector outside a running session, for feeding it
// captured device output.
func bareCollector(source FrameSource) *collector {
	s := &Session{res: &Result{}, names: map[string]int{}, cfg: Config{Package: "com.x.y"}}
	c := newCollector(s)
	c.source = source
	c.refreshHz = 120
	return c
}

func TestAbsorbGfxinfoCapture(t *testing.T) {
	// A real Android 13 120 Hz capture: one window, 120 PROFILEDATA rows,
	// all with Flags 0 and a FrameCompleted after IntendedVsync (read by
	// hand); "Uptime: 314859701".
	text := fixtures.Read(t, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt")
	c := bareCollector(SourceGfxInfo)
	const cmd = "dumpsys gfxinfo com.x.y framestats"
	if n := c.absorbFrames(cmdResult{Stdout: text}, cmd, 0, 2_000_000); n != 120 {
		t.Fatalf("first poll kept %d frames, want 120", n)
	}
	f := c.s.res.Frames
	// First and last rows, read from the capture.
	if f[0].IntendedVsyncNs != 314856675367713 || f[0].FrameCompletedNs != 314856686928950 ||
		f[119].IntendedVsyncNs != 314859177293817 || f[119].FrameCompletedNs != 314859231611606 {
		t.Errorf("rows: first %+v last %+v", f[0], f[119])
	}
	if !strings.HasSuffix(f[0].Window, "MainActivity/android.view.ViewRootImpl@73f2e63") {
		t.Errorf("window %q", f[0].Window)
	}
	// The same dump polled again holds nothing new.
	if n := c.absorbFrames(cmdResult{Stdout: text}, cmd, 10_000_000, 12_000_000); n != 0 {
		t.Errorf("second poll of the same dump kept %d frames", n)
	}
	// Uptime 314859701 ms read between host 0 and 2 ms: offset within
	// [314859701 ms − 2 ms, 314859701 ms + 1 ms].
	lo, hi := c.clockGfx.interval()
	if lo != 314859699_000_000 || hi != 314859702_000_000 {
		t.Errorf("clock interval [%d, %d]", lo, hi)
	}
	if len(c.s.res.Gaps) != 0 {
		t.Errorf("gaps %+v", c.s.res.Gaps)
	}
}

func TestAbsorbGfxinfoDetectsWrappedBuffer(t *testing.T) {
	text := fixtures.Read(t, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt")
	c := bareCollector(SourceGfxInfo)
	name := "com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity/android.view.ViewRootImpl@73f2e63"
	// The last frame kept is older than the full buffer's oldest row.
	c.gfxLast[name] = 314856675367713 - 1
	c.absorbFrames(cmdResult{Stdout: text}, "dumpsys gfxinfo com.x.y framestats", 0, 1)
	if len(c.gfxLast) != 1 {
		t.Fatalf("windows %v: the capture's window is named differently", c.gfxLast)
	}
	if len(c.s.res.Gaps) != 1 || !strings.Contains(c.s.res.Gaps[0].Error, "frames were lost") {
		t.Errorf("gaps %+v, want one naming the lost frames", c.s.res.Gaps)
	}
}

func TestAbsorbSurfaceFlingerCapture(t *testing.T) {
	c := bareCollector(SourceSurfaceFlinger)
	c.layer = "SurfaceView[com.x.y/com.x.y.Main](BLAST)#0"
	// Hand-made --latency output: refresh line, a pending-fence row
	// (B = INT64_MAX) that must be dropped, three frames.
	poll1 := "8333333\n100\t200\t150\n300\t9223372036854775807\t250\n400\t500\t450\n"
	poll2 := "8333333\n400\t500\t450\n600\t700\t650\n"
	if n := c.absorbFrames(cmdResult{Stdout: []byte(poll1)}, "sf", 0, 1); n != 2 {
		t.Fatalf("poll 1 kept %d, want 2", n)
	}
	if n := c.absorbFrames(cmdResult{Stdout: []byte(poll2)}, "sf", 0, 1); n != 1 {
		t.Fatalf("poll 2 kept %d, want 1 (the 500 row was kept already)", n)
	}
	var bs []int64
	for _, f := range c.s.res.Frames {
		bs = append(bs, f.ActualPresentNs)
	}
	if len(bs) != 3 || bs[0] != 200 || bs[1] != 500 || bs[2] != 700 || c.periodNs() != 8333333 {
		t.Errorf("kept B %v period %d", bs, c.periodNs())
	}
}

func TestFrameStatsPicksBusiestWindow(t *testing.T) {
	c := bareCollector(SourceGfxInfo)
	c.refreshHz = 60
	ms := int64(1_000_000)
	var frames []Frame
	// Window "main" draws 5 frames 16 ms apart, each 8 ms long; "popup"
	// draws 2.
	for i := int64(0); i < 5; i++ {
		frames = append(frames, Frame{Source: "gfxinfo", Window: "main", IntendedVsyncNs: 1000*ms + i*16*ms, FrameCompletedNs: 1008*ms + i*16*ms})
	}
	frames = append(frames,
		Frame{Source: "gfxinfo", Window: "popup", IntendedVsyncNs: 1000 * ms, FrameCompletedNs: 1004 * ms},
		Frame{Source: "gfxinfo", Window: "popup", IntendedVsyncNs: 1016 * ms, FrameCompletedNs: 1020 * ms})
	st, windows := c.frameStats(frames)
	if st.Window != "main" || st.Frames != 5 || len(windows) != 2 || windows[1].Window != "popup" || windows[1].Frames != 2 {
		t.Fatalf("stats %+v windows %+v", st, windows)
	}
	// fps = (5 − 1) / 64 ms = 62.5; no frame took longer than a period.
	if st.FPS != 62.5 || st.Jank != 0 || st.FrameTimeMS.P50 != 8 {
		t.Errorf("fps %v jank %d p50 %v", st.FPS, st.Jank, st.FrameTimeMS.P50)
	}
}
