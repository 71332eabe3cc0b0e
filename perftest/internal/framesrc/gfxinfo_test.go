package framesrc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/gfxinfo"
	framespkg "github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/result"
)

func TestAbsorbGfxinfoCapture(t *testing.T) {
	// A real Android 13 120 Hz capture: one window, 120 PROFILEDATA rows,
	// all with Flags 0 and a FrameCompleted after IntendedVsync (read by
	// hand); "Uptime: 314859701".
	text := fixtures.Read(t, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt")
	src := bareSource(framespkg.SourceGfxInfo)
	const cmd = "dumpsys gfxinfo com.x.y framestats"
	if n := absorb(src, text, cmd, false, 0, 2_000_000, 0); n != 120 {
		t.Fatalf("first poll kept %d frames, want 120", n)
	}
	f := src.res.Frames
	// First and last rows, read from the capture.
	if f[0].IntendedVsync != 314856675367713 || f[0].FrameCompleted != 314856686928950 ||
		f[119].IntendedVsync != 314859177293817 || f[119].FrameCompleted != 314859231611606 {
		t.Errorf("rows: first %+v last %+v", f[0], f[119])
	}
	if !strings.HasSuffix(f[0].Window, "MainActivity/android.view.ViewRootImpl@73f2e63") {
		t.Errorf("window %q", f[0].Window)
	}
	// The same dump polled again holds nothing new.
	if n := absorb(src, text, cmd, false, 10_000_000, 12_000_000, 0); n != 0 {
		t.Errorf("second poll of the same dump kept %d frames", n)
	}
	// Uptime 314859701 ms read between host 0 and 2 ms: offset within
	// [314859701 ms − 2 ms, 314859701 ms + 1 ms].
	lo, hi := src.clockGfx.(*fakeClock).interval()
	if lo != 314859699_000_000 || hi != 314859702_000_000 {
		t.Errorf("clock interval [%d, %d]", lo, hi)
	}
	if len(src.res.Gaps) != 0 {
		t.Errorf("gaps %+v", src.res.Gaps)
	}
}

func TestAbsorbGfxinfoDetectsWrappedBuffer(t *testing.T) {
	text := fixtures.Read(t, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt")
	src := bareSource(framespkg.SourceGfxInfo)
	name := "com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity/android.view.ViewRootImpl@73f2e63"
	// The previous dump's newest row is two vsyncs (120 Hz) older than the
	// full buffer's oldest row: the frame between was lost.
	const oldest, period = 314856675367713, 8333333
	src.gfxWin[name] = &gfxWindowState{prevMax: oldest - 2*period, lastKept: oldest - 2*period,
		done: map[gfxRowKey]struct{}{}, pending: map[gfxRowKey]*gfxPending{}}
	absorb(src, text, "dumpsys gfxinfo com.x.y framestats", false, 0, 1, 0)
	if len(src.gfxWin) != 1 {
		t.Fatalf("windows %v: the capture's window is named differently", src.gfxWin)
	}
	if len(src.res.Gaps) != 1 || !strings.Contains(src.res.Gaps[0].Error, "frames were lost") {
		t.Fatalf("gaps %+v, want one naming the lost frames", src.res.Gaps)
	}
	// The lost frames lie between the two dumps' frames.
	if g := src.res.Gaps[0]; g.LostFromNs != oldest-2*period+period/2-1 || g.LostToNs != oldest-period/2+1 {
		t.Errorf("lost span (%d, %d), want the previous dump's newest vsync to the capture's oldest, half a period in", g.LostFromNs, g.LostToNs)
	}
	// Less than a vsync apart, no frame fits between: nothing was lost.
	src = bareSource(framespkg.SourceGfxInfo)
	src.gfxWin[name] = &gfxWindowState{prevMax: oldest - period/2, lastKept: oldest - period/2,
		done: map[gfxRowKey]struct{}{}, pending: map[gfxRowKey]*gfxPending{}}
	absorb(src, text, "dumpsys gfxinfo com.x.y framestats", false, 0, 1, 0)
	if len(src.res.Gaps) != 0 {
		t.Errorf("gaps %+v for a ring whose oldest frame is half a vsync after the last kept", src.res.Gaps)
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
	src := bareSource(framespkg.SourceGfxInfo)
	src.cfg.RefreshHz = 60
	const cmd = "dumpsys gfxinfo com.android.settings framestats"
	// The dump's clock moves on by a second between polls.
	for i := range 4 {
		poll := strings.Replace(text, "Uptime: 26045845 Realtime: 26047725", fmt.Sprintf("Uptime: %d Realtime: 26047725", 26045845+1000*i), 1)
		absorb(src, []byte(poll), cmd, false, int64(i)*1e9, int64(i)*1e9+1, 0)
	}
	spa := "com.android.settings/com.android.settings.spa.SpaActivity/android.view.ViewRootImpl@4cd4ef7"
	n := 0
	for _, f := range src.res.Frames {
		if f.Window == spa {
			n++
		}
	}
	if n != 38 {
		t.Errorf("SpaActivity: %d frames, want 38", n)
	}
	var named []result.RejectedFrame
	for _, rf := range src.res.RejectedFrames {
		if rf.Window == spa {
			named = append(named, rf)
		}
	}
	if len(named) != 1 || named[0].Reason != string(gfxinfo.RejectNotCompleted) || named[0].IntendedVsync != 25828699661927 || named[0].WaitedNs != 3e9 {
		t.Errorf("SpaActivity rejected rows %+v, want the stuck row at 25828699661927, waited 3 s", named)
	}
	if len(src.res.Gaps) != 0 {
		t.Errorf("gaps %+v: nothing was lost", src.res.Gaps)
	}
}

// TestAbsorbGfxinfoGarbageOfRealCapture: the Settings home window's rows 66
// and 67 complete at 288234774265332736, beyond the dump's clock; they were
// taken as frames and gave p95 = 288208950230 ms.
func TestAbsorbGfxinfoGarbageOfRealCapture(t *testing.T) {
	src := bareSource(framespkg.SourceGfxInfo)
	src.cfg.RefreshHz = 60
	absorb(src, fixtures.Read(t, "gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt"), "dumpsys gfxinfo", false, 0, 1, 0)
	home := "com.android.settings/com.android.settings.homepage.SettingsHomepageActivity/android.view.ViewRootImpl@1634b91"
	var frames []framespkg.Frame
	for _, f := range src.res.Frames {
		if f.Window == home {
			frames = append(frames, f)
		}
	}
	st := framespkg.Summarize(framespkg.SourceGfxInfo, frames, src.PeriodNs())
	if len(frames) != 32 || st.FrameTimeMS.P95 > 1000 || st.Vitals.Frozen != 0 {
		t.Errorf("home window: %d frames, p95 %v ms, frozen %d; want 32 frames of real lengths", len(frames), st.FrameTimeMS.P95, st.Vitals.Frozen)
	}
	beyond := 0
	for _, rf := range src.res.RejectedFrames {
		if rf.Window == home && rf.Reason == string(gfxinfo.RejectBeyondClock) {
			beyond++
		}
	}
	if beyond != 2 || src.res.FramesRejected[gfxinfo.RejectBeyondClock] != 3 {
		t.Errorf("beyond the clock: %d in the home window, %v in all", beyond, src.res.FramesRejected)
	}
}

func TestAbsorbGfxinfoLateRowBelowLastKept(t *testing.T) {
	src := bareSource(framespkg.SourceGfxInfo)
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
		got = append(got, absorb(src, p, "gfx", false, int64(i), int64(i)+1, 0))
	}
	if v := keptVsyncsMs(src.res); fmt.Sprint(got, v) != "[2 1 1] [84 100 116 150]" {
		t.Errorf("new per poll %v, kept %v", got, v)
	}
	if fmt.Sprint(src.res.FramesRejected) != "map[flags:1]" || len(src.res.RejectedFrames) != 0 {
		t.Errorf("rejected %v %+v", src.res.FramesRejected, src.res.RejectedFrames)
	}
}

// TestAbsorbGfxinfoRejectedRowsDoNotBlock: a row whose slot shows an older
// frame's completion (before its own vsync) held back every later row.
func TestAbsorbGfxinfoRejectedRowsDoNotBlock(t *testing.T) {
	src := bareSource(framespkg.SourceGfxInfo)
	for i := range 6 {
		up := 1000 + int64(i)*1000
		absorb(src, gfxDump(up, frame(0, 100, 110), frame(0, 116, 50), frame(1, 133, 140), frame(0, 150, 160), frame(0, 166, 288234774265)), "gfx", false, int64(i), int64(i)+1, 0)
	}
	if v := keptVsyncsMs(src.res); fmt.Sprint(v) != "[100 150]" {
		t.Errorf("kept %v", v)
	}
	want := "map[beyond_clock:1 completed_before_vsync:1 flags:1]"
	if got := fmt.Sprint(src.res.FramesRejected); got != want {
		t.Errorf("rejected %s, want %s", got, want)
	}
}

// TestAbsorbGfxinfoStuckRowIsNotAWrap: a row that never completes held back
// the de-duplication, so when the ring moved past it the collector said
// "frame buffer wrapped between polls" though nothing was lost.
func TestAbsorbGfxinfoStuckRowIsNotAWrap(t *testing.T) {
	src := bareSource(framespkg.SourceGfxInfo)
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
	absorb(src, gfxDump(5000, ring(0, 120)...), "gfx", false, 0, 1, 0)
	absorb(src, gfxDump(6000, ring(60, 180)...), "gfx", false, 2, 3, 0)
	if len(src.res.Gaps) != 0 || len(src.res.Frames) != 179 {
		t.Errorf("%d frames, gaps %+v; want 179 frames and no gap", len(src.res.Frames), src.res.Gaps)
	}
	if rf := src.res.RejectedFrames; len(rf) != 1 || rf[0].IntendedVsync != 1160e6 || rf[0].Reason != "not_completed" {
		t.Errorf("rejected %+v, want the row at 1160 ms, which left the ring", rf)
	}
	// A real wrap is still one: the next dump shares no row with this one.
	absorb(src, gfxDump(9000, ring(400, 520)...), "gfx", false, 4, 5, 0)
	if len(src.res.Gaps) != 1 {
		t.Errorf("gaps %+v, want the wrap", src.res.Gaps)
	}
}
