package perftest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/gfxinfo"
	framespkg "github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/result"
)

// bareCollector is a collector outside a running session, for feeding it
// captured device output.
func bareCollector(source FrameSource) *collector {
	s := &Session{res: &result.Result{}, names: map[string]int{}, cfg: Config{Package: "com.x.y"}}
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
	if n := c.absorbFrames(adbx.Result{Stdout: text}, cmd, false, 0, 2_000_000, 0); n != 120 {
		t.Fatalf("first poll kept %d frames, want 120", n)
	}
	f := c.s.res.Frames
	// First and last rows, read from the capture.
	if f[0].IntendedVsync != 314856675367713 || f[0].FrameCompleted != 314856686928950 ||
		f[119].IntendedVsync != 314859177293817 || f[119].FrameCompleted != 314859231611606 {
		t.Errorf("rows: first %+v last %+v", f[0], f[119])
	}
	if !strings.HasSuffix(f[0].Window, "MainActivity/android.view.ViewRootImpl@73f2e63") {
		t.Errorf("window %q", f[0].Window)
	}
	// The same dump polled again holds nothing new.
	if n := c.absorbFrames(adbx.Result{Stdout: text}, cmd, false, 10_000_000, 12_000_000, 0); n != 0 {
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
	// The previous dump's newest row is two vsyncs (120 Hz) older than the
	// full buffer's oldest row: the frame between was lost.
	const oldest, period = 314856675367713, 8333333
	c.gfxWin[name] = &gfxWindowState{prevMax: oldest - 2*period, lastKept: oldest - 2*period,
		done: map[gfxRowKey]struct{}{}, pending: map[gfxRowKey]*gfxPending{}}
	c.absorbFrames(adbx.Result{Stdout: text}, "dumpsys gfxinfo com.x.y framestats", false, 0, 1, 0)
	if len(c.gfxWin) != 1 {
		t.Fatalf("windows %v: the capture's window is named differently", c.gfxWin)
	}
	if len(c.s.res.Gaps) != 1 || !strings.Contains(c.s.res.Gaps[0].Error, "frames were lost") {
		t.Fatalf("gaps %+v, want one naming the lost frames", c.s.res.Gaps)
	}
	// The lost frames lie between the two dumps' frames.
	if g := c.s.res.Gaps[0]; g.LostFromNs != oldest-2*period+period/2-1 || g.LostToNs != oldest-period/2+1 {
		t.Errorf("lost span (%d, %d), want the previous dump's newest vsync to the capture's oldest, half a period in", g.LostFromNs, g.LostToNs)
	}
	// Less than a vsync apart, no frame fits between: nothing was lost.
	c = bareCollector(SourceGfxInfo)
	c.gfxWin[name] = &gfxWindowState{prevMax: oldest - period/2, lastKept: oldest - period/2,
		done: map[gfxRowKey]struct{}{}, pending: map[gfxRowKey]*gfxPending{}}
	c.absorbFrames(adbx.Result{Stdout: text}, "dumpsys gfxinfo com.x.y framestats", false, 0, 1, 0)
	if len(c.s.res.Gaps) != 0 {
		t.Errorf("gaps %+v for a ring whose oldest frame is half a vsync after the last kept", c.s.res.Gaps)
	}
}

// A SurfaceFlinger layer whose whole ring (127 frames) is newer than the
// last frame kept lost the frames presented between the two polls.
func TestAbsorbSurfaceFlingerDetectsWrappedBuffer(t *testing.T) {
	c := bareCollector(SourceSurfaceFlinger)
	c.layer = "L"
	ring := func(from int) []byte {
		var b strings.Builder
		b.WriteString("16666666\n")
		for i := from; i < from+127; i++ {
			b.WriteString(fmt.Sprintf("%d\t%d\t%d\n", 1e9+i*16666666, 1e9+i*16666666+1e6, 1e9+i*16666666-2e6))
		}
		return []byte(b.String())
	}
	c.absorbFrames(adbx.Result{Stdout: ring(0)}, "sf", false, 0, 1, 10e9)
	c.absorbFrames(adbx.Result{Stdout: ring(100)}, "sf", false, 2, 3, 10e9)
	if len(c.s.res.Gaps) != 0 || len(c.s.res.Frames) != 227 {
		t.Fatalf("%d frames, gaps %+v; want 227 and no gap", len(c.s.res.Frames), c.s.res.Gaps)
	}
	c.absorbFrames(adbx.Result{Stdout: ring(300)}, "sf", false, 4, 5, 10e9)
	if len(c.s.res.Gaps) != 1 {
		t.Fatalf("gaps %+v, want the wrap", c.s.res.Gaps)
	}
	// From the last present kept to the new ring's oldest, half a period
	// in at each end: a frame lost is a vsync from both.
	const half = 16666666 / 2
	if g := c.s.res.Gaps[0]; g.LostFromNs != 1e9+226*16666666+1e6+half-1 || g.LostToNs != 1e9+300*16666666+1e6-half+1 {
		t.Errorf("lost span (%d, %d), want the last present kept to the new ring's oldest, half a period in", g.LostFromNs, g.LostToNs)
	}
	// A ring that turned short of once between polls, its oldest frame
	// less than a period after the last kept (a frame presented early),
	// lost nothing: no frame fits between.
	c = bareCollector(SourceSurfaceFlinger)
	c.layer = "L"
	c.absorbFrames(adbx.Result{Stdout: ring(0)}, "sf", false, 0, 1, 10e9)
	oldest := int64(1e9 + 127*16666666 + 1e6)
	early := strings.Replace(string(ring(127)), fmt.Sprintf("\t%d\t", oldest), fmt.Sprintf("\t%d\t", oldest-2e6), 1)
	c.absorbFrames(adbx.Result{Stdout: []byte(early)}, "sf", false, 2, 3, 10e9)
	if len(c.s.res.Gaps) != 0 || len(c.s.res.Frames) != 254 {
		t.Errorf("%d frames, gaps %+v; want 254 and no gap", len(c.s.res.Frames), c.s.res.Gaps)
	}
}

func TestAbsorbSurfaceFlingerCapture(t *testing.T) {
	c := bareCollector(SourceSurfaceFlinger)
	c.layer = "SurfaceView[com.x.y/com.x.y.Main](BLAST)#0"
	// Hand-made --latency output: refresh line, a pending-fence row
	// (B = INT64_MAX) that must be dropped, three frames.
	poll1 := "8333333\n100\t200\t150\n300\t9223372036854775807\t250\n400\t500\t450\n"
	poll2 := "8333333\n400\t500\t450\n600\t700\t650\n"
	if n := c.absorbFrames(adbx.Result{Stdout: []byte(poll1)}, "sf", false, 0, 1, 0); n != 2 {
		t.Fatalf("poll 1 kept %d, want 2", n)
	}
	if n := c.absorbFrames(adbx.Result{Stdout: []byte(poll2)}, "sf", false, 0, 1, 0); n != 1 {
		t.Fatalf("poll 2 kept %d, want 1 (the 500 row was kept already)", n)
	}
	var bs []int64
	for _, f := range c.s.res.Frames {
		bs = append(bs, f.ActualPresent)
	}
	if len(bs) != 3 || bs[0] != 200 || bs[1] != 500 || bs[2] != 700 || c.periodNs() != 8333333 {
		t.Errorf("kept B %v period %d", bs, c.periodNs())
	}
}

func TestFrameStatsPicksBusiestWindow(t *testing.T) {
	c := bareCollector(SourceGfxInfo)
	c.refreshHz = 60
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
	st, windows := c.frameStats(frames)
	if st.Window != "main" || st.Frames != 5 || len(windows) != 2 || windows[1].Window != "popup" || windows[1].Frames != 2 {
		t.Fatalf("stats %+v windows %+v", st, windows)
	}
	// fps = (5 − 1) / 64 ms = 62.5; no frame took longer than a period.
	if st.FPS != 62.5 || st.Jank != 0 || st.FrameTimeMS.P50 != 8 {
		t.Errorf("fps %v jank %d p50 %v", st.FPS, st.Jank, st.FrameTimeMS.P50)
	}
}

// gfxDump lays rows out as `dumpsys gfxinfo <pkg> framestats` prints them
// for one window, with the dump's clock at uptimeMs.
func gfxDump(uptimeMs int64, rows ...[3]int64) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "Applications Graphics Acceleration Info:\nUptime: %d Realtime: %d\n\n** Graphics info for pid 7 [com.x.y] **\n\nProfile data in ms:\n\n\tcom.x.y/com.x.y.Main/android.view.ViewRootImpl@1 (visibility=0)\n", uptimeMs, uptimeMs)
	b.WriteString("\n---PROFILEDATA---\nFlags,IntendedVsync,Vsync,FrameCompleted,\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "%d,%d,%d,%d,\n", r[0], r[1], r[1], r[2])
	}
	b.WriteString("---PROFILEDATA---\n\n")
	return []byte(b.String())
}

// frame is one row of gfxDump: Flags, IntendedVsync, FrameCompleted.
func frame(flags, vsyncMs, completedMs int64) [3]int64 {
	return [3]int64{flags, vsyncMs * 1e6, completedMs * 1e6}
}

func keptVsyncsMs(r *result.Result) []int64 {
	var out []int64
	for _, f := range r.Frames {
		out = append(out, f.IntendedVsync/1e6)
	}
	return out
}

// TestAbsorbGfxinfoStuckRowOfRealCapture replays the report: in the
// anavmode capture the SpaActivity window's row at IntendedVsync
// 25828699661927 shows FrameCompleted 0 and never completes. It must not
// hold back the 38 frames of the window, and once later rows have completed
// for gfxStuckPolls polls and gfxStuckWait it is dropped and named.
func TestAbsorbGfxinfoStuckRowOfRealCapture(t *testing.T) {
	text := string(fixtures.Read(t, "gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt"))
	c := bareCollector(SourceGfxInfo)
	c.refreshHz = 60
	const cmd = "dumpsys gfxinfo com.android.settings framestats"
	// The dump's clock moves on by a second between polls.
	for i := range 4 {
		poll := strings.Replace(text, "Uptime: 26045845 Realtime: 26047725", fmt.Sprintf("Uptime: %d Realtime: 26047725", 26045845+1000*i), 1)
		c.absorbFrames(adbx.Result{Stdout: []byte(poll)}, cmd, false, int64(i)*1e9, int64(i)*1e9+1, 0)
	}
	spa := "com.android.settings/com.android.settings.spa.SpaActivity/android.view.ViewRootImpl@4cd4ef7"
	n := 0
	for _, f := range c.s.res.Frames {
		if f.Window == spa {
			n++
		}
	}
	if n != 38 {
		t.Errorf("SpaActivity: %d frames, want 38", n)
	}
	var named []result.RejectedFrame
	for _, rf := range c.s.res.RejectedFrames {
		if rf.Window == spa {
			named = append(named, rf)
		}
	}
	if len(named) != 1 || named[0].Reason != string(gfxinfo.RejectNotCompleted) || named[0].IntendedVsync != 25828699661927 || named[0].WaitedNs != 3e9 {
		t.Errorf("SpaActivity rejected rows %+v, want the stuck row at 25828699661927, waited 3 s", named)
	}
	if len(c.s.res.Gaps) != 0 {
		t.Errorf("gaps %+v: nothing was lost", c.s.res.Gaps)
	}
}

// TestAbsorbGfxinfoGarbageOfRealCapture: the Settings home window's rows 66
// and 67 complete at 288234774265332736, beyond the dump's clock; they were
// taken as frames and gave p95 = 288208950230 ms.
func TestAbsorbGfxinfoGarbageOfRealCapture(t *testing.T) {
	c := bareCollector(SourceGfxInfo)
	c.refreshHz = 60
	c.absorbFrames(adbx.Result{Stdout: fixtures.Read(t, "gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt")}, "dumpsys gfxinfo", false, 0, 1, 0)
	home := "com.android.settings/com.android.settings.homepage.SettingsHomepageActivity/android.view.ViewRootImpl@1634b91"
	var frames []framespkg.Frame
	for _, f := range c.s.res.Frames {
		if f.Window == home {
			frames = append(frames, f)
		}
	}
	st := framespkg.Summarize(framespkg.SourceGfxInfo, frames, c.periodNs())
	if len(frames) != 32 || st.FrameTimeMS.P95 > 1000 || st.Vitals.Frozen != 0 {
		t.Errorf("home window: %d frames, p95 %v ms, frozen %d; want 32 frames of real lengths", len(frames), st.FrameTimeMS.P95, st.Vitals.Frozen)
	}
	beyond := 0
	for _, rf := range c.s.res.RejectedFrames {
		if rf.Window == home && rf.Reason == string(gfxinfo.RejectBeyondClock) {
			beyond++
		}
	}
	if beyond != 2 || c.s.res.FramesRejected[gfxinfo.RejectBeyondClock] != 3 {
		t.Errorf("beyond the clock: %d in the home window, %v in all", beyond, c.s.res.FramesRejected)
	}
}

func TestAbsorbGfxinfoLateRowBelowLastKept(t *testing.T) {
	c := bareCollector(SourceGfxInfo)
	// Row 100 is drawing while 116 has completed and is taken; 100
	// completes later, below the last kept vsync, and must be taken too,
	// in time order. Then the same rows again: nothing new.
	polls := [][]byte{
		gfxDump(1000, frame(0, 84, 90), frame(0, 100, 0), frame(0, 116, 120)),
		gfxDump(1010, frame(0, 84, 90), frame(0, 100, 140), frame(0, 116, 120), frame(2, 133, 135)),
		gfxDump(1020, frame(0, 84, 90), frame(0, 100, 140), frame(0, 116, 120), frame(2, 133, 135), frame(0, 150, 155)),
	}
	var got []int
	for i, p := range polls {
		got = append(got, c.absorbFrames(adbx.Result{Stdout: p}, "gfx", false, int64(i), int64(i)+1, 0))
	}
	if v := keptVsyncsMs(c.s.res); fmt.Sprint(got, v) != "[2 1 1] [84 100 116 150]" {
		t.Errorf("new per poll %v, kept %v", got, v)
	}
	if fmt.Sprint(c.s.res.FramesRejected) != "map[flags:1]" || len(c.s.res.RejectedFrames) != 0 {
		t.Errorf("rejected %v %+v", c.s.res.FramesRejected, c.s.res.RejectedFrames)
	}
}

// TestAbsorbGfxinfoRejectedRowsDoNotBlock: a row whose slot shows an older
// frame's completion (before its own vsync) held back every later row.
func TestAbsorbGfxinfoRejectedRowsDoNotBlock(t *testing.T) {
	c := bareCollector(SourceGfxInfo)
	for i := range 6 {
		up := 1000 + int64(i)*1000
		c.absorbFrames(adbx.Result{Stdout: gfxDump(up, frame(0, 100, 110), frame(0, 116, 50), frame(1, 133, 140), frame(0, 150, 160), frame(0, 166, 288234774265))}, "gfx", false, int64(i), int64(i)+1, 0)
	}
	if v := keptVsyncsMs(c.s.res); fmt.Sprint(v) != "[100 150]" {
		t.Errorf("kept %v", v)
	}
	want := "map[beyond_clock:1 completed_before_vsync:1 flags:1]"
	if got := fmt.Sprint(c.s.res.FramesRejected); got != want {
		t.Errorf("rejected %s, want %s", got, want)
	}
}

// TestAbsorbGfxinfoStuckRowIsNotAWrap: a row that never completes held back
// the de-duplication, so when the ring moved past it the collector said
// "frame buffer wrapped between polls" though nothing was lost.
func TestAbsorbGfxinfoStuckRowIsNotAWrap(t *testing.T) {
	c := bareCollector(SourceGfxInfo)
	ring := func(from, to int64) [][3]int64 {
		var rows [][3]int64
		for i := from; i < to; i++ {
			fc := 1000 + i*16 + 5
			if i == 10 {
				fc = 0 // never completes
			}
			rows = append(rows, frame(0, 1000+i*16, fc))
		}
		return rows
	}
	c.absorbFrames(adbx.Result{Stdout: gfxDump(5000, ring(0, 120)...)}, "gfx", false, 0, 1, 0)
	c.absorbFrames(adbx.Result{Stdout: gfxDump(6000, ring(60, 180)...)}, "gfx", false, 2, 3, 0)
	if len(c.s.res.Gaps) != 0 || len(c.s.res.Frames) != 179 {
		t.Errorf("%d frames, gaps %+v; want 179 frames and no gap", len(c.s.res.Frames), c.s.res.Gaps)
	}
	if rf := c.s.res.RejectedFrames; len(rf) != 1 || rf[0].IntendedVsync != 1160e6 || rf[0].Reason != "not_completed" {
		t.Errorf("rejected %+v, want the row at 1160 ms, which left the ring", rf)
	}
	// A real wrap is still one: the next dump shares no row with this one.
	c.absorbFrames(adbx.Result{Stdout: gfxDump(9000, ring(400, 520)...)}, "gfx", false, 4, 5, 0)
	if len(c.s.res.Gaps) != 1 {
		t.Errorf("gaps %+v, want the wrap", c.s.res.Gaps)
	}
}

func TestAbsorbSurfaceFlingerRejects(t *testing.T) {
	c := bareCollector(SourceSurfaceFlinger)
	c.layer = "L"
	polls := []string{
		// Empty slots, two frames, the newest fence pending.
		"8333333\n0\t0\t0\n0\t0\t0\n100\t200\t150\n300\t400\t350\n500\t9223372036854775807\t450\n",
		// The fence signalled; a row going backwards.
		"8333333\n0\t0\t0\n100\t200\t150\n300\t400\t350\n500\t600\t450\n700\t550\t650\n",
		// The same again, then a row past the device clock and a frame.
		"8333333\n100\t200\t150\n300\t400\t350\n500\t600\t450\n700\t550\t650\n800\t99000000000000\t750\n900\t950\t920\n",
	}
	for i, p := range polls {
		c.absorbFrames(adbx.Result{Stdout: []byte(p)}, "sf", false, int64(i), int64(i)+1, 1_000_000_000)
	}
	var bs []int64
	for _, f := range c.s.res.Frames {
		bs = append(bs, f.ActualPresent)
	}
	if fmt.Sprint(bs) != "[200 400 600 950]" {
		t.Errorf("kept %v", bs)
	}
	if got := fmt.Sprint(c.s.res.FramesRejected); got != "map[backwards:1 beyond_clock:1]" {
		t.Errorf("rejected %s", got)
	}
}

// TestAutoSource: the frame source chosen where none was given. The
// SurfaceFlinger dump is read a round trip after the gfxinfo one; a host
// stalled between them (seen with two suites at once on a 2-core machine)
// used to hand the layer a second of frames gfxinfo could not yet show and
// pick SurfaceFlinger for an app drawing in its own window.
func TestAutoSource(t *testing.T) {
	const ms = int64(1e6)
	// every is the times of frames every 16 ms in [from, to] ms.
	every := func(from, to int64) []int64 {
		var out []int64
		for v := from; v <= to; v += 16 {
			out = append(out, v*ms)
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		gfx, sf    []int64
		clockMs    int64
		want       FrameSource
		wantGfx    int
		wantLayers int
	}{
		// UI frames to 10 000 ms, the dump at 10 010 ms; the layer's
		// presents read 1.2 s later.
		{"stall between the dumps", every(5000, 10000), every(5030, 11230), 10010, SourceGfxInfo, 31, 32},
		// A SurfaceView app: its window drew at launch only.
		{"surface view", every(5000, 6000), every(5030, 10030), 10040, SourceSurfaceFlinger, 0, 32},
		// Both idle since 8 000 ms: the half second before the last frame.
		{"idle app", every(5000, 8000), every(5030, 8030), 10000, SourceGfxInfo, 30, 32},
		// No Uptime line in the gfxinfo dump: the newest frame of either.
		{"no dump clock", every(5000, 10000), every(5030, 10030), 0, SourceGfxInfo, 30, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, gfxN, sfN := autoSource(tc.gfx, tc.sf, tc.clockMs*ms)
			if src != tc.want || gfxN != tc.wantGfx || sfN != tc.wantLayers {
				t.Errorf("source %s (gfxinfo %d, layer %d), want %s (%d, %d)", src, gfxN, sfN, tc.want, tc.wantGfx, tc.wantLayers)
			}
		})
	}
}
