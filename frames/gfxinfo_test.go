package frames

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func gfxFixture(t *testing.T, name string) *gfxinfo.Info {
	t.Helper()
	g, err := gfxinfo.Parse(fixtures.Read(t, name))
	if err != nil {
		t.Fatalf("ParseGfxInfo(%s): %v", name, err)
	}
	return g
}

func gfxOnlyProcess(t *testing.T, g *gfxinfo.Info) *gfxinfo.Process {
	t.Helper()
	if len(g.Processes) != 1 {
		t.Fatalf("processes = %d, want 1", len(g.Processes))
	}
	return g.Processes[0]
}

// Values below were read by hand from the captures.

func TestParseGfxInfoFramestatsSoundvisScroll(t *testing.T) {
	g := gfxFixture(t, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt")
	if g.UptimeMillis != 314859701 || g.RealtimeMillis != 1420190210 {
		t.Errorf("uptime/realtime = %d/%d", g.UptimeMillis, g.RealtimeMillis)
	}
	p := gfxOnlyProcess(t, g)
	if p.PID != 31667 || p.Package != "com.soundvisualization.accessibility" {
		t.Errorf("process = %d %q", p.PID, p.Package)
	}
	want := gfxinfo.Summary{
		StatsSinceNanos: 314846275543381, TotalFrames: 516, JankyFrames: 113, JankyPercent: 21.90,
		JankyFramesLegacy: 356, JankyLegacyPercent: 68.99, P50: 11, P90: 31, P95: 65, P99: 101,
		MissedVsync: 42, HighInputLatency: 876, SlowUIThread: 110, SlowBitmapUploads: 0,
		SlowIssueDrawCommands: 30, FrameDeadlineMissed: 113, FrameDeadlineMissedLegacy: 43,
		GPUP50: 3, GPUP90: 3, GPUP95: 4, GPUP99: 8,
	}
	got := p.Summary
	got.Histogram, got.GPUHistogram = nil, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("summary =\n%+v, want\n%+v", got, want)
	}
	if n := len(p.Summary.Histogram); n != 154 {
		t.Errorf("histogram buckets = %d, want 154", n)
	}
	if b := p.Summary.Histogram[5]; b != (gfxinfo.HistogramBucket{Millis: 10, Count: 130}) {
		t.Errorf("histogram[5] = %+v, want 10ms=130", b)
	}
	if b := p.Summary.GPUHistogram[2]; b != (gfxinfo.HistogramBucket{Millis: 3, Count: 451}) {
		t.Errorf("gpu histogram[2] = %+v, want 3ms=451", b)
	}
	if len(p.Windows) != 1 {
		t.Fatalf("windows = %d, want 1", len(p.Windows))
	}
	w := p.Windows[0]
	if w.Name != "com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity/android.view.ViewRootImpl@73f2e63" ||
		w.Visibility != 0 || w.Title != "com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity" {
		t.Errorf("window = %q vis %d title %q", w.Name, w.Visibility, w.Title)
	}
	if w.Summary.StatsSinceNanos != 314846275541194 || w.Summary.TotalFrames != 516 {
		t.Errorf("window summary since %d total %d", w.Summary.StatsSinceNanos, w.Summary.TotalFrames)
	}
	ft := w.Frames
	if ft.Len() != 120 || len(ft.Columns) != 23 || !ft.Complete || !ft.LabelSwapped {
		t.Fatalf("table: %d rows, %d cols, complete %v, swapped %v", ft.Len(), len(ft.Columns), ft.Complete, ft.LabelSwapped)
	}
	f0 := ft.Frame(0)
	wantF0 := gfxinfo.FrameStats{Flags: 0, IntendedVsync: 314856675367713, Vsync: 314856675367713,
		FrameDeadline: 314856692012826, FrameInterval: 8311780, FrameStartTime: 314856675794159,
		FrameCompleted: 314856686928950, GpuCompleted: 314856686928950, DisplayPresentTime: 314856700213169,
		HandleInputStart: 314856675797127, AnimationStart: 314856675798586, PerformTraversalsStart: 314856679645617,
		DrawStart: 314856679688794, SyncQueued: 314856680654054, SyncStart: 314856680755044,
		IssueDrawCommandsStart: 314856680915357, SwapBuffers: 314856684158221}
	if f0 != wantF0 {
		t.Errorf("frame 0 =\n%+v, want\n%+v", f0, wantF0)
	}
	last := ft.Frame(119)
	if last.IntendedVsync != 314859177293817 || last.Vsync != 314859210547109 || last.FrameInterval != 8313323 {
		t.Errorf("frame 119 = %+v", last)
	}
	if c := ft.Column("CommandSubmissionCompleted"); c != 22 || ft.Row(0)[c] != 314856684158221 {
		t.Errorf("CommandSubmissionCompleted column %d", c)
	}
	if ft.Columns[10] != "FrameStartTime" || ft.Columns[11] != "FrameInterval" {
		t.Errorf("swapped columns = %v", ft.Columns[9:12])
	}
	// The design's ground truth for this capture: 119 of 120 frames last
	// longer than one period, only 10 miss their deadline.
	frames := ft.Frames()
	period := ft.RefreshPeriod()
	longer := 0
	for _, f := range frames {
		if f.FrameCompleted-f.IntendedVsync > period {
			longer++
		}
	}
	if longer != 119 {
		t.Errorf("frames longer than a period = %d, want 119", longer)
	}
	if n := DeadlinesMissed(frames, period); n != 10 {
		t.Errorf("deadline missed = %d, want 10", n)
	}
}

func FuzzParseGfxInfo(f *testing.F) {
	for _, name := range []string{
		"gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt",
		"gfxinfo_framestats/androidviewclient_test_api23_rows_with_placeholders.txt",
		"gfxinfo_framestats/labaffinity_blog_api23_rows_with_input_events.txt",
		"gfxinfo_framestats/redfin_pixel5_android12_22col_elided_excerpt.txt",
		"gfxinfo_framestats/solox249_android13plus_profiledata_excerpt.txt",
		"gfxinfo_framestats/yuvaupdate_failure_while_dumping_utf16le.txt",
		"gfxinfo_summary/codeprj_zhihu_api24to28_windows_console_wrapped_80col_excerpt.txt",
		"gfxinfo_summary/mapbox9616_android6_slow_draw_summary.txt",
		"gfxinfo_legacy/weibo_blog_android4x_draw_process_execute_excerpt.txt",
	} {
		f.Add(fixtures.Read(f, name))
	}
	f.Add([]byte("No process found for: a.b\n"))
	f.Add([]byte("Uptime: 100 Realtime: 100\n---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,\n0,5,9,\n0,5,0,\n2,7,8,\n0,99000000,288234774265332736,\n0,20,10,\n---PROFILEDATA---\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		g, err := gfxinfo.Parse(in)
		if err != nil {
			return
		}
		for _, w := range g.Windows() {
			if w.Frames == nil {
				continue
			}
			if n := len(w.Frames.Columns); n > 0 && len(w.Frames.Values)%n != 0 {
				t.Fatalf("ragged table: %d values, %d columns", len(w.Frames.Values), n)
			}
			for _, fr := range w.Frames.Frames() {
				if p, ok := PhasesOf(fr); ok && (p.Total() != fr.Duration() || slices.ContainsFunc(p[:], func(v int64) bool { return v < 0 })) {
					t.Fatalf("phases %v of %+v do not divide its duration", p, fr)
				}
			}
			s := SummarizeGfxInfo(w.Frames.Frames(), w.Frames.RefreshPeriod())
			if math.IsNaN(s.FPS) || math.IsNaN(s.PerfDog.Stutter) {
				t.Fatalf("NaN in %+v", s)
			}
			checkJudged(t, w.Frames, g.ClockNs())
		}
	})
}

// checkJudged holds GfxInfoFramesOf to the rule: every row is a frame or
// counted once, and frames are real and in vsync order.
func checkJudged(t *testing.T, ft *gfxinfo.FrameTable, clock int64) {
	frames, rejects := gfxinfo.FramesOf(ft, clock)
	if len(frames)+rejects.Total() != ft.Len() {
		t.Fatalf("%d frames + %v != %d rows", len(frames), rejects, ft.Len())
	}
	var last int64
	for _, fr := range frames {
		if fr.IntendedVsync <= last || gfxinfo.RowReject(fr, clock) != "" || fr.Duration() < 0 || fr.Duration() > int64(gfxinfo.MaxDuration) {
			t.Fatalf("kept %+v after %d", fr, last)
		}
		last = fr.IntendedVsync
	}
}

func TestParseGfxInfoHeadersByName(t *testing.T) {
	// API 24–28 (16 columns): no CSV capture exists, but the celadon Davey!
	// line names every field of that layout with real values; lay them out
	// as framestats prints them.
	entries, err := logcat.Parse(fixtures.Read(t, "logcat_choreographer/celadon188_threadtime_davey_skipped79.txt"))
	if err != nil {
		t.Fatal(err)
	}
	d := logcat.Daveys(entries)[0]
	names := []string{"Flags", "IntendedVsync", "Vsync", "OldestInputEvent", "NewestInputEvent", "HandleInputStart",
		"AnimationStart", "PerformTraversalsStart", "DrawStart", "SyncQueued", "SyncStart", "IssueDrawCommandsStart",
		"SwapBuffers", "FrameCompleted", "DequeueBufferDuration", "QueueBufferDuration"}
	var row []string
	for _, n := range names {
		row = append(row, fmt.Sprint(d.Fields[n]))
	}
	in := "---PROFILEDATA---\n" + strings.Join(names, ",") + ",\n" + strings.Join(row, ",") + ",\n---PROFILEDATA---\n"
	g, err := gfxinfo.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	ft := g.Windows()[0].Frames
	f := ft.Frame(0)
	if len(ft.Columns) != 16 || f.IntendedVsync != 1966484195404271 || f.FrameCompleted != 1966485549896897 || f.FrameDeadline != 0 ||
		ft.Row(0)[ft.Column("QueueBufferDuration")] != 142000 {
		t.Errorf("16-column row: %+v", f)
	}

	// Android 16 prints FrameStartTime before FrameInterval with the data in
	// that order (per AOSP; no capture): nothing to undo.
	in = "---PROFILEDATA---\n" +
		"Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameStartTime,FrameInterval,WorkloadTarget,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,\n" +
		"0,5,2000000000,2000000000,0,2000100000,2000100001,2000100002,2000100003,2016666667,2000090000,8333333,16666666,2000200000,2000200001,2000200002,2000300000,2009000000,10,20,2009000000,2009000001,2020000000,2000300000,\n" +
		"---PROFILEDATA---\n"
	g, err = gfxinfo.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	ft = g.Windows()[0].Frames
	if f := ft.Frame(0); len(ft.Columns) != 24 || ft.LabelSwapped || f.FrameInterval != 8333333 || f.FrameStartTime != 2000090000 || ft.RefreshPeriod() != 8333333 {
		t.Errorf("24-column row: swapped %v %+v", ft.LabelSwapped, f)
	}
}

func TestGfxInfoSentinelsInFrameMath(t *testing.T) {
	// solox249: row 0 has Flags=1 (dropped); row 1 completes at 268898179479
	// before its deadline 268911853193; row 2 has FrameDeadline = INT64_MAX,
	// so it is judged by duration: 268923149063 − 268920843750 = 2.305313 ms,
	// under one period. No frame missed its deadline.
	ft := gfxFixture(t, "gfxinfo_framestats/solox249_android13plus_profiledata_excerpt.txt").Windows()[0].Frames
	usable := UsableGfxInfo(ft.Frames())
	if len(usable) != 2 || usable[1].Duration() != 2305313 {
		t.Fatalf("usable = %+v", usable)
	}
	if n := DeadlinesMissed(usable, ft.RefreshPeriod()); n != 0 {
		t.Errorf("deadline missed = %d, want 0", n)
	}
}

func TestParseGfxInfoEmptyBlocks(t *testing.T) {
	// Markers with only blank lines between them, then a block with a
	// header and no rows (both seen in the all-processes capture).
	g, err := gfxinfo.Parse([]byte("---PROFILEDATA---\n\n\n---PROFILEDATA---\n\n---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,\n---PROFILEDATA---\n"))
	if err != nil {
		t.Fatal(err)
	}
	ws := g.Windows()
	if len(ws) != 2 || ws[0].Frames.Len() != 0 || len(ws[0].Frames.Columns) != 0 || ws[1].Frames.Len() != 0 || len(ws[1].Frames.Columns) != 3 {
		t.Fatalf("windows %+v", ws)
	}
	for _, w := range ws {
		if w.Frames.RefreshPeriod() != 0 || len(w.Frames.Frames()) != 0 || !w.Frames.Complete {
			t.Errorf("empty block %+v", w.Frames)
		}
		if s := SummarizeGfxInfo(w.Frames.Frames(), 16*ms); s.Frames != 0 || s.FPS != 0 {
			t.Errorf("summary of nothing %+v", s)
		}
	}
}
