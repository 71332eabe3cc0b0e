package gfxinfo

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func gfxFixture(t *testing.T, name string) *Info {
	t.Helper()
	g, err := Parse(fixtures.Read(t, name))
	if err != nil {
		t.Fatalf("ParseGfxInfo(%s): %v", name, err)
	}
	return g
}

func gfxOnlyProcess(t *testing.T, g *Info) *Process {
	t.Helper()
	if len(g.Processes) != 1 {
		t.Fatalf("processes = %d, want 1", len(g.Processes))
	}
	return g.Processes[0]
}

func gfxWindow(t *testing.T, g *Info, substr string) *Window {
	t.Helper()
	for _, w := range g.Windows() {
		if strings.Contains(w.Label(), substr) {
			return w
		}
	}
	t.Fatalf("no window %q", substr)
	return nil
}

func TestParseGfxInfoFramestats(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, g *Info)
	}{
		{"gfxinfo_framestats/soundvis_120hz_android13plus_idle.txt", func(t *testing.T, g *Info) {
			p := gfxOnlyProcess(t, g)
			if p.PID != 16473 || p.Summary.TotalFrames != 134 || p.Summary.JankyFrames != 20 {
				t.Errorf("process %d total %d janky %d", p.PID, p.Summary.TotalFrames, p.Summary.JankyFrames)
			}
			ft := p.Windows[0].Frames
			if ft.Len() != 120 || ft.Frame(0).IntendedVsync != 306924231998193 {
				t.Errorf("rows %d, first IntendedVsync %d", ft.Len(), ft.Frame(0).IntendedVsync)
			}
		}},
		{"gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt", func(t *testing.T, g *Info) {
			if len(g.Processes) != 47 {
				t.Errorf("processes = %d, want 47", len(g.Processes))
			}
			blocks, empty := 0, 0
			for _, w := range g.Windows() {
				if w.Frames != nil {
					blocks++
					if w.Frames.Len() == 0 {
						empty++
					}
				}
			}
			if blocks != 13 || empty != 2 {
				t.Errorf("blocks = %d (empty %d), want 13 (2)", blocks, empty)
			}
			sb := gfxWindow(t, g, "StatusBar/")
			if sb.Visibility != 0 || sb.Title != "StatusBar" || sb.Summary.TotalFrames != 4696 || sb.Summary.JankyFrames != 3066 {
				t.Errorf("StatusBar: vis %d title %q total %d janky %d", sb.Visibility, sb.Title, sb.Summary.TotalFrames, sb.Summary.JankyFrames)
			}
			if sb.Frames.Len() != 120 || sb.Frames.Frame(0).IntendedVsync != 25660241798432 || sb.Frames.RefreshPeriod() != 16666667 {
				t.Errorf("StatusBar frames %d first %d period %d", sb.Frames.Len(), sb.Frames.Frame(0).IntendedVsync, sb.Frames.RefreshPeriod())
			}
			if sb.Profile == nil || len(sb.Profile.Rows) != 3 || sb.Profile.Rows[0][0] != 33.10 || sb.Profile.Rows[0][3] != 3.75 {
				t.Errorf("StatusBar profile = %+v", sb.Profile)
			}
			shade := gfxWindow(t, g, "NotificationShade/")
			if shade.Visibility != 4 || shade.Summary.TotalFrames != 808 || shade.Summary.JankyFrames != 114 || shade.Summary.P50 != 18 {
				t.Errorf("NotificationShade: %+v", shade.Summary)
			}
			if w := gfxWindow(t, g, "ShellDropTarget/"); w.Frames.Len() != 0 || !w.Frames.Complete || len(w.Frames.Columns) != 23 {
				t.Errorf("ShellDropTarget block: %d rows, %d columns", w.Frames.Len(), len(w.Frames.Columns))
			}
			if w := gfxWindow(t, g, "de.codevoid.aNavMode/"); w.Frames != nil || w.Visibility != 0 {
				t.Errorf("aNavMode window has frames %v vis %d", w.Frames, w.Visibility)
			}
			var sys *Process
			for _, p := range g.Processes {
				if p.Package == "system" {
					sys = p
				}
			}
			if sys == nil || sys.PID != 1415 || sys.Summary.TotalFrames != 0 {
				t.Errorf("system process = %+v", sys)
			}
		}},
		{"gfxinfo_framestats/androidviewclient_test_api23_rows_with_placeholders.txt", func(t *testing.T, g *Info) {
			ws := g.Windows()
			if len(ws) != 2 || ws[0].Frames.Len() != 2 || ws[1].Frames.Len() != 1 {
				t.Fatalf("windows %d", len(ws))
			}
			ft := ws[0].Frames
			if len(ft.Columns) != 14 || ft.LabelSwapped {
				t.Errorf("columns %d swapped %v", len(ft.Columns), ft.LabelSwapped)
			}
			r := ft.Row(0)
			if r[ft.Column("OldestInputEvent")] != math.MaxInt64 || r[ft.Column("NewestInputEvent")] != 0 {
				t.Errorf("input sentinels: %v", r)
			}
			if f := ft.Frame(0); f.IntendedVsync != 1538750837982 || f.FrameCompleted != 1539087148465 || f.FrameDeadline != 0 || f.FrameInterval != 0 {
				t.Errorf("frame 0 = %+v", f)
			}
			if f := ws[1].Frames.Frame(0); f.Flags != 1 || f.IntendedVsync != 1538295812863 {
				t.Errorf("flagged frame = %+v", f)
			}
			if ws[0].Frames.RefreshPeriod() != 0 {
				t.Errorf("a 14-column table has no period column")
			}
		}},
		{"gfxinfo_framestats/labaffinity_blog_api23_rows_with_input_events.txt", func(t *testing.T, g *Info) {
			ft := g.Windows()[0].Frames
			if ft.Len() != 4 || ft.Complete {
				t.Fatalf("rows %d complete %v", ft.Len(), ft.Complete)
			}
			if ft.Row(0)[ft.Column("OldestInputEvent")] != 1001692644983000 || ft.Frame(3).FrameCompleted != 1001692967809134 {
				t.Errorf("rows: %v", ft.Row(0))
			}
		}},
		{"gfxinfo_framestats/solox249_android13plus_profiledata_excerpt.txt", func(t *testing.T, g *Info) {
			ft := g.Windows()[0].Frames
			if ft.Len() != 3 || !ft.PartialRowDropped || ft.Complete || !ft.LabelSwapped {
				t.Fatalf("rows %d partial %v complete %v swapped %v", ft.Len(), ft.PartialRowDropped, ft.Complete, ft.LabelSwapped)
			}
			if f := ft.Frame(0); f.Flags != 1 {
				t.Errorf("frame 0 flags %d", f.Flags)
			}
			f := ft.Frame(2)
			if ft.Row(2)[ft.Column("FrameTimelineVsyncId")] != -1 || f.FrameDeadline != math.MaxInt64 || f.DisplayPresentTime != -2 || f.FrameInterval != 16653763 {
				t.Errorf("frame 2 = %+v", f)
			}
			if p := ft.RefreshPeriod(); p != 16653763 {
				t.Errorf("period = %d, want the median 16653763", p)
			}
		}},
		{"gfxinfo_framestats/yuvaupdate_reactnative_android12plus_utf16le.txt", func(t *testing.T, g *Info) {
			p := gfxOnlyProcess(t, g)
			if g.UptimeMillis != 116544855 || p.PID != 6972 || p.Summary.TotalFrames != 3 || p.Summary.P50 != 125 || p.Summary.P90 != 550 {
				t.Errorf("header/summary: %d %d %+v", g.UptimeMillis, p.PID, p.Summary)
			}
			ft := p.Windows[0].Frames
			if ft.Len() != 3 || !ft.LabelSwapped || ft.Frame(0).FrameInterval != 16602774 || ft.Frame(0).Flags != 1 {
				t.Errorf("rows %d swapped %v frame0 %+v", ft.Len(), ft.LabelSwapped, ft.Frame(0))
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) { tc.check(t, gfxFixture(t, tc.file)) })
	}
}

func TestParseGfxInfoErrors(t *testing.T) {
	t.Run("failure while dumping", func(t *testing.T) {
		_, err := Parse(fixtures.Read(t, "gfxinfo_framestats/yuvaupdate_failure_while_dumping_utf16le.txt"))
		var fe *DumpFailedError
		if !errors.Is(err, ErrDumpFailed) || !errors.As(err, &fe) || fe.PID != 25723 ||
			fe.Text != "Failure while dumping the app: ProcessRecord{45d538c 25723:com.nareshkumarbalamurugan.YuvaUpdate/u0a675}" {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("elided rows", func(t *testing.T) {
		_, err := Parse(fixtures.Read(t, "gfxinfo_framestats/redfin_pixel5_android12_22col_elided_excerpt.txt"))
		var pe *devtext.ParseError
		if !errors.As(err, &pe) || pe.Line != 3 || !strings.HasPrefix(pe.Text, "1,3323,993103720308,") {
			t.Errorf("err = %v", err)
		}
	})
	tests := []struct {
		name, in string
		line     int
	}{
		{"bad field", "---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,\n0,12x,3,\n---PROFILEDATA---\n", 3},
		{"long row", "---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,\n0,1,2,3,\n---PROFILEDATA---\n", 3},
		{"short row mid-block", "---PROFILEDATA---\nFlags,IntendedVsync,FrameCompleted,\n0,1,\n0,1,2,\n---PROFILEDATA---\n", 3},
		{"header without columns", "---PROFILEDATA---\nA,B,C,\n", 2},
		{"bad total", "Total frames rendered: many\n", 1},
		{"bad percentile", "50th percentile: 11\n", 1},
		{"bad histogram", "HISTOGRAM: 5ms=1 6ms=x 7ms=2\nPipeline=Skia\n", 1},
		{"bad pid", "** Graphics info for pid x [a.b] **\n", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			var pe *devtext.ParseError
			if !errors.As(err, &pe) || pe.Line != tc.line || pe.Source != Source {
				t.Errorf("err = %v, want a ParseError at line %d", err, tc.line)
			}
		})
	}
	t.Run("no process", func(t *testing.T) {
		_, err := Parse([]byte("No process found for: com.example.gone\n"))
		var ne *NoProcessError
		if !errors.Is(err, ErrNoProcess) || !errors.As(err, &ne) || ne.Package != "com.example.gone" {
			t.Errorf("err = %v", err)
		}
	})
}

func TestParseGfxInfoSummaries(t *testing.T) {
	tests := []struct {
		file string
		pid  int
		want Summary // histograms are checked separately
	}{
		{"gfxinfo_summary/codeprj_zhihu_api24to28_windows_console_wrapped_80col_excerpt.txt", 23231, Summary{
			StatsSinceNanos: 2104750516354290, TotalFrames: 360, JankyFrames: 35, JankyPercent: 9.72,
			JankyFramesLegacy: -1, JankyLegacyPercent: -1, P50: 9, P90: 16, P95: 26, P99: 117,
			MissedVsync: 14, HighInputLatency: 0, SlowUIThread: 20, SlowBitmapUploads: 1, SlowIssueDrawCommands: 16,
			FrameDeadlineMissed: -1, FrameDeadlineMissedLegacy: -1, GPUP50: -1, GPUP90: -1, GPUP95: -1, GPUP99: -1}},
		{"gfxinfo_summary/droidmonitor_api23_android6_chrome_summary.txt", 9702, Summary{
			StatsSinceNanos: 9656484850794, TotalFrames: 3, JankyFrames: 2, JankyPercent: 66.67,
			JankyFramesLegacy: -1, JankyLegacyPercent: -1, P50: -1, P90: 101, P95: 101, P99: 101,
			MissedVsync: 2, HighInputLatency: 0, SlowUIThread: 2, SlowBitmapUploads: 0, SlowIssueDrawCommands: 1,
			FrameDeadlineMissed: -1, FrameDeadlineMissedLegacy: -1, GPUP50: -1, GPUP90: -1, GPUP95: -1, GPUP99: -1}},
		{"gfxinfo_summary/droidmonitor_api24_android7_settings_summary.txt", 3015, Summary{
			StatsSinceNanos: 6839009800620, TotalFrames: 24, JankyFrames: 14, JankyPercent: 58.33,
			JankyFramesLegacy: -1, JankyLegacyPercent: -1, P50: 19, P90: 65, P95: 150, P99: 300,
			MissedVsync: 3, HighInputLatency: 0, SlowUIThread: 5, SlowBitmapUploads: 1, SlowIssueDrawCommands: 12,
			FrameDeadlineMissed: -1, FrameDeadlineMissedLegacy: -1, GPUP50: -1, GPUP90: -1, GPUP95: -1, GPUP99: -1}},
		{"gfxinfo_summary/droidmonitor_api28_android9_chrome_summary.txt", 2720, Summary{
			StatsSinceNanos: 101382312046230, TotalFrames: 43, JankyFrames: 7, JankyPercent: 16.28,
			JankyFramesLegacy: -1, JankyLegacyPercent: -1, P50: 5, P90: 69, P95: 150, P99: 200,
			MissedVsync: 5, HighInputLatency: 14, SlowUIThread: 5, SlowBitmapUploads: 0, SlowIssueDrawCommands: 1,
			FrameDeadlineMissed: 5, FrameDeadlineMissedLegacy: -1, GPUP50: -1, GPUP90: -1, GPUP95: -1, GPUP99: -1}},
		{"gfxinfo_summary/flashlight_gfxinfo_sample_android12plus.txt", 2599, Summary{
			StatsSinceNanos: 558712350232182, TotalFrames: 21, JankyFrames: 4, JankyPercent: 19.05,
			JankyFramesLegacy: 16, JankyLegacyPercent: 76.19, P50: 19, P90: 57, P95: 57, P99: 200,
			MissedVsync: 1, HighInputLatency: 35, SlowUIThread: 4, SlowBitmapUploads: 1, SlowIssueDrawCommands: 1,
			FrameDeadlineMissed: 4, FrameDeadlineMissedLegacy: 3, GPUP50: 4, GPUP90: 5, GPUP95: 9, GPUP99: 9}},
		{"gfxinfo_summary/flashlight_reactnativefeed_with_profile_table.txt", 14824, Summary{
			StatsSinceNanos: 27089945586046, TotalFrames: 35360, JankyFrames: 23595, JankyPercent: 66.73,
			JankyFramesLegacy: -1, JankyLegacyPercent: -1, P50: 28, P90: 48, P95: 53, P99: 57,
			MissedVsync: 4838, HighInputLatency: 12547, SlowUIThread: 5842, SlowBitmapUploads: 3, SlowIssueDrawCommands: 11523,
			FrameDeadlineMissed: 12149, FrameDeadlineMissedLegacy: -1, GPUP50: -1, GPUP90: -1, GPUP95: -1, GPUP99: -1}},
		{"gfxinfo_summary/mapbox9616_android6_slow_draw_summary.txt", 0, Summary{
			StatsSinceNanos: 752958278148, TotalFrames: 82189, JankyFrames: 35335, JankyPercent: 42.99,
			JankyFramesLegacy: -1, JankyLegacyPercent: -1, P50: -1, P90: 34, P95: 42, P99: 69,
			MissedVsync: 4706, HighInputLatency: 142, SlowUIThread: 17270, SlowBitmapUploads: 1542, SlowIssueDrawCommands: 23342,
			FrameDeadlineMissed: -1, FrameDeadlineMissedLegacy: -1, GPUP50: -1, GPUP90: -1, GPUP95: -1, GPUP99: -1}},
		{"gfxinfo_summary/redfin_pixel5_android12_summary_excerpt.txt", 7206, Summary{
			StatsSinceNanos: 992991790325, TotalFrames: 84, JankyFrames: 4, JankyPercent: 4.76,
			JankyFramesLegacy: 6, JankyLegacyPercent: 7.14, P50: 5, P90: 10, P95: 20, P99: 105,
			MissedVsync: 1, HighInputLatency: 29, SlowUIThread: 4, SlowBitmapUploads: 0, SlowIssueDrawCommands: 3,
			FrameDeadlineMissed: 4, FrameDeadlineMissedLegacy: 3, GPUP50: -1, GPUP90: -1, GPUP95: -1, GPUP99: -1}},
		{"gfxinfo_summary/solox_doc_rrmj_summary.txt", 13422, Summary{
			StatsSinceNanos: 152741070392878, TotalFrames: 110, JankyFrames: 7, JankyPercent: 6.36,
			JankyFramesLegacy: -1, JankyLegacyPercent: -1, P50: 9, P90: 13, P95: 18, P99: 36,
			MissedVsync: 2, HighInputLatency: 0, SlowUIThread: 6, SlowBitmapUploads: 3, SlowIssueDrawCommands: 0,
			FrameDeadlineMissed: -1, FrameDeadlineMissedLegacy: -1, GPUP50: -1, GPUP90: -1, GPUP95: -1, GPUP99: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			p := gfxOnlyProcess(t, gfxFixture(t, tc.file))
			got := p.Summary
			got.Histogram, got.GPUHistogram = nil, nil
			if p.PID != tc.pid || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("pid %d summary\n%+v, want pid %d\n%+v", p.PID, got, tc.pid, tc.want)
			}
		})
	}
}

func TestParseGfxInfoHistograms(t *testing.T) {
	t.Run("hard-wrapped at 80 columns and truncated", func(t *testing.T) {
		p := gfxOnlyProcess(t, gfxFixture(t, "gfxinfo_summary/codeprj_zhihu_api24to28_windows_console_wrapped_80col_excerpt.txt"))
		h := p.Summary.Histogram
		// 5..32 ms (28), 34..48 step 2 (8), 53..109 step 4 (15); the cut "113ms=" is dropped.
		if len(h) != 51 {
			t.Fatalf("buckets = %d, want 51", len(h))
		}
		want := map[int64]int64{5: 16, 8: 108, 14: 5, 25: 4, 42: 1, 81: 0, 85: 1, 101: 1, 109: 0}
		for _, b := range h {
			if c, ok := want[b.Millis]; ok && c != b.Count {
				t.Errorf("%dms=%d, want %d", b.Millis, b.Count, c)
			}
		}
		if h[len(h)-1].Millis != 109 {
			t.Errorf("last bucket %+v", h[len(h)-1])
		}
	})
	t.Run("GPU histogram", func(t *testing.T) {
		p := gfxOnlyProcess(t, gfxFixture(t, "gfxinfo_summary/flashlight_gfxinfo_sample_android12plus.txt"))
		g := p.Summary.GPUHistogram
		if len(g) != 26 || g[2] != (HistogramBucket{3, 7}) || g[25] != (HistogramBucket{4950, 0}) {
			t.Errorf("gpu histogram = %v", g)
		}
		if h := p.Summary.Histogram; len(h) != 154 || h[11] != (HistogramBucket{16, 2}) {
			t.Errorf("histogram[11] = %v", h[11])
		}
	})
}

func TestParseGfxInfoLegacy(t *testing.T) {
	t.Run("android 6 table of 120 rows", func(t *testing.T) {
		w := gfxFixture(t, "gfxinfo_legacy/blog_android6_draw_prepare_process_execute_120rows.txt").Windows()[0]
		pt := w.Profile
		if pt == nil || len(pt.Rows) != 120 || len(pt.Columns) != 4 {
			t.Fatalf("profile = %+v", pt)
		}
		if fmt.Sprint(pt.Rows[0]) != "[10.3 0.67 5.21 3.51]" || fmt.Sprint(pt.Rows[119]) != "[2.19 0.95 8.7 0.66]" {
			t.Errorf("rows 0/119 = %v %v", pt.Rows[0], pt.Rows[119])
		}
		if tot := pt.Totals()[0]; math.Abs(tot-19.69) > 1e-9 {
			t.Errorf("total of row 0 = %v, want 19.69", tot)
		}
	})
	t.Run("android 4 three columns", func(t *testing.T) {
		pt := gfxFixture(t, "gfxinfo_legacy/weibo_blog_android4x_draw_process_execute_excerpt.txt").Windows()[0].Profile
		if pt == nil || len(pt.Rows) != 5 || fmt.Sprint(pt.Columns) != "[Draw Process Execute]" || fmt.Sprint(pt.Rows[3]) != "[1.32 2.15 1.14]" {
			t.Errorf("profile = %+v", pt)
		}
	})
	t.Run("android 4 profiling off", func(t *testing.T) {
		g := gfxFixture(t, "gfxinfo_legacy/droidmonitor_android4x_chrome.txt")
		p := gfxOnlyProcess(t, g)
		if g.UptimeMillis != 14972669 || p.PID != 29541 || len(p.Windows) != 1 {
			t.Fatalf("uptime %d pid %d windows %d", g.UptimeMillis, p.PID, len(p.Windows))
		}
		w := p.Windows[0]
		if w.Name != "com.android.chrome/org.chromium.chrome.browser.ChromeTabbedActivity/android.view.ViewRootImpl@41fc59c8" || w.Visibility != -1 || w.Profile != nil || w.Frames != nil {
			t.Errorf("window = %+v", w)
		}
	})
	t.Run("android 5 profiling off", func(t *testing.T) {
		p := gfxOnlyProcess(t, gfxFixture(t, "gfxinfo_legacy/droidmonitor_api21_android5_chrome.txt"))
		if p.PID != 26834 || len(p.Windows) != 1 || p.Windows[0].Visibility != 0 || p.Windows[0].Profile != nil {
			t.Errorf("process = %+v", p)
		}
	})
	t.Run("modern table with a decimal comma elsewhere", func(t *testing.T) {
		w := gfxOnlyProcess(t, gfxFixture(t, "gfxinfo_summary/flashlight_reactnativefeed_with_profile_table.txt")).Windows[0]
		if w.Profile == nil || len(w.Profile.Rows) != 120 || fmt.Sprint(w.Profile.Rows[0]) != "[20.51 0.49 7.13 16.37]" {
			t.Errorf("profile = %+v", w.Profile)
		}
	})
}

// gfxBench128 builds a 128-frame framestats dump from the soundvis capture:
// its 120 rows plus 8 more continuing the same vsync cadence.
func gfxBench128(tb testing.TB) []byte {
	raw := devtext.Normalize(fixtures.Read(tb, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt"))
	end := bytes.LastIndex(raw, gfxMarker)
	start := bytes.Index(raw, gfxMarker)
	rows := bytes.Split(bytes.TrimSpace(raw[start+len(gfxMarker):end]), []byte("\n"))[1:]
	var extra bytes.Buffer
	for i := 0; i < 8; i++ {
		fields := bytes.Split(bytes.TrimSuffix(rows[len(rows)-8+i], []byte(",")), []byte(","))
		for j, f := range fields {
			v, _ := devtext.ParseInt(f)
			if v > 1e12 { // shift timestamps one second on, keep periods and durations
				v += 1e9
			}
			fmt.Fprintf(&extra, "%d", v)
			if j < len(fields)-1 {
				extra.WriteByte(',')
			}
		}
		extra.WriteString(",\n")
	}
	out := append([]byte{}, raw[:end]...)
	out = append(out, extra.Bytes()...)
	return append(out, raw[end:]...)
}

func BenchmarkParseGfxInfo128(b *testing.B) {
	in := gfxBench128(b)
	g, err := Parse(in)
	if err != nil || g.Windows()[0].Frames.Len() != 128 {
		b.Fatalf("setup: %v", err)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(in); err != nil {
			b.Fatal(err)
		}
	}
}

// checkJudged holds FramesOf to the rule: every row is a frame or
// counted once, and frames are real and in vsync order.
func checkJudged(t *testing.T, ft *FrameTable, clock int64) {
	frames, rejects := FramesOf(ft, clock)
	if len(frames)+rejects.Total() != ft.Len() {
		t.Fatalf("%d frames + %v != %d rows", len(frames), rejects, ft.Len())
	}
	var last int64
	for _, fr := range frames {
		if fr.IntendedVsync <= last || RowReject(fr, clock) != "" || fr.Duration() < 0 || fr.Duration() > int64(MaxDuration) {
			t.Fatalf("kept %+v after %d", fr, last)
		}
		last = fr.IntendedVsync
	}
}

func TestParseGfxInfoHistogramEndsAtBlankLine(t *testing.T) {
	g, err := Parse([]byte("HISTOGRAM: 5ms=1 6ms=2\n\n7\n"))
	if err != nil {
		t.Fatal(err)
	}
	if h := g.Processes[0].Summary.Histogram; len(h) != 2 || h[1] != (HistogramBucket{6, 2}) {
		t.Errorf("histogram %v", h)
	}
}

// A dump refused for want of the DUMP permission (the platform's line, as
// in the sectrollz netstats capture) or of the service holds no frames:
// an error, never an empty dump read as 0 frames.
func TestParseGfxInfoRefused(t *testing.T) {
	for _, in := range []string{
		"Permission Denial: can't dump gfxinfo from from pid=4243, uid=2000 due to missing android.permission.DUMP permission\n",
		"\r\n  Can't find service: gfxinfo\r\n",
	} {
		g, err := Parse([]byte(in))
		var pe *devtext.ParseError
		if !errors.As(err, &pe) || pe.Source != Source || !strings.Contains(in, pe.Text) || pe.Text == "" {
			t.Errorf("ParseGfxInfo(%q) = %+v, %v; want a ParseError quoting the line", in, g, err)
		}
	}
	if g, err := Parse([]byte("Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 1\n")); err != nil || g == nil {
		t.Errorf("a dump without processes: %v", err)
	}
}

// A wrapped histogram, and processes and windows, are kept: each is
// bounded, so repeating them does not grow the parse without end.
func TestGfxInfoRepeatsBounded(t *testing.T) {
	hist := "HISTOGRAM: 5ms=1\n" + strings.Repeat(" 6ms=2 7ms=3 8ms=4 9ms=5\n", devtext.MaxLine/24+1)
	for name, text := range map[string]string{
		"wrapped histogram": hist,
		"processes":         strings.Repeat("** Graphics info for pid 1 [com.x] **\n", gfxMaxSections+1),
		"windows":           strings.Repeat("---PROFILEDATA---\n", 2*gfxMaxSections+4),
	} {
		_, perr := Parse([]byte(text))
		_, serr := Scan(strings.NewReader(text))
		if perr == nil || serr == nil || perr.Error() != serr.Error() || excerpt.Check(perr.Error()) != nil {
			t.Errorf("%s: Parse %v, Scan %v", name, perr, serr)
		}
	}
	if _, err := Parse([]byte(hist)); !errors.Is(err, devtext.ErrLineTooLong) || !strings.Contains(err.Error(), "line 1:") {
		t.Errorf("wrapped histogram: %v", err)
	}
}
