package main

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/fixtures"
)

// framesJSON mirrors the documented output of `perfgate analyze frames`.
type framesJSON struct {
	Source          string  `json:"source"`
	Window          string  `json:"window"`
	Frames          int     `json:"frames"`
	DurationS       float64 `json:"duration_s"`
	FPS             float64 `json:"fps"`
	RefreshPeriodMS float64 `json:"refresh_period_ms"`
	Chromium        struct {
		JankCount     int   `json:"jank_count"`
		MaxFrameDelay int64 `json:"max_frame_delay"`
	} `json:"chromium"`
	PerfDog struct {
		Jank    int     `json:"jank"`
		BigJank int     `json:"big_jank"`
		Stutter float64 `json:"stutter"`
	} `json:"perfdog"`
	FrameTimeMS struct {
		P50, P90, P95, P99 float64
	} `json:"frame_time_ms"`
	DeadlineMissed *int `json:"deadline_missed"`
	Matrix         *struct {
		Best, Normal, Middle, High, Frozen int
	} `json:"matrix"`
	Jank           int            `json:"jank"`
	JankDefinition string         `json:"jank_definition"`
	Rejected       map[string]int `json:"rejected"`
	OtherWindows   []struct {
		Window   string         `json:"window"`
		Frames   int            `json:"frames"`
		Rejected map[string]int `json:"rejected"`
	} `json:"other_windows"`
}

func runFrames(t *testing.T, args ...string) (framesJSON, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(append([]string{"analyze", "frames"}, args...), &out, &errOut)
	var got framesJSON
	if err == nil {
		var raw map[string]any
		if jerr := json.Unmarshal(out.Bytes(), &raw); jerr != nil {
			t.Fatalf("output is not one JSON object: %v\n%s", jerr, out.String())
		}
		for _, k := range []string{"source", "window", "frames", "duration_s", "fps", "refresh_period_ms", "chromium", "perfdog", "frame_time_ms"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("output lacks %q", k)
			}
		}
		if jerr := json.Unmarshal(out.Bytes(), &got); jerr != nil {
			t.Fatal(jerr)
		}
	}
	return got, errOut.String(), err
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestAnalyzeFramesSurfaceFlingerHandComputed(t *testing.T) {
	// Honor 9: B = 3618832932780, 3618849592155, 3618866251530 with period
	// 16666666. Frame times 16.659375 ms twice; fps = 2 / 0.03331875 s;
	// N = 0.99956… rounds to 1, D = 0.
	got, _, err := runFrames(t, fixtures.Path(t, "sf_latency/mobileperf_honor9_android8_int64max_excerpt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Source != "surfaceflinger" || got.Frames != 3 || !near(got.DurationS, 0.03331875) || !near(got.FPS, 2/0.03331875) ||
		!near(got.RefreshPeriodMS, 16.666666) || got.Chromium.MaxFrameDelay != 1 || got.Chromium.JankCount != 0 ||
		got.PerfDog.Jank != 0 || !near(got.FrameTimeMS.P50, 16.659375) || !near(got.FrameTimeMS.P99, 16.659375) {
		t.Errorf("got %+v", got)
	}
	if got.DeadlineMissed != nil || got.Matrix != nil || got.JankDefinition != "perfdog" {
		t.Errorf("SurfaceFlinger output carries gfxinfo-only fields: %+v", got)
	}
}

// sfRows reads --latency rows independently: B of every 3-integer row with B
// neither 0 nor INT64_MAX.
func sfRows(t *testing.T, text string) (period int64, b []int64) {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	period, _ = strconv.ParseInt(strings.TrimSpace(lines[0]), 10, 64)
	for _, ln := range lines[1:] {
		f := strings.Fields(ln)
		if len(f) != 3 {
			continue
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || v == 0 || v == math.MaxInt64 {
			continue
		}
		b = append(b, v)
	}
	return period, b
}

func TestAnalyzeFramesSurfaceFlingerRealTimestamps(t *testing.T) {
	name := "sf_latency/solox249_blast_surfaceview_real_timestamps_excerpt.txt"
	period, b := sfRows(t, string(fixtures.Read(t, name)))
	got, _, err := runFrames(t, "-source", "surfaceflinger", fixtures.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	n := len(b)
	span := float64(b[n-1]-b[0]) / 1e9
	var ft []float64
	maxN := 0.0
	for i := 1; i < n; i++ {
		ft = append(ft, float64(b[i]-b[i-1])/1e6)
		maxN = math.Max(maxN, float64(b[i]-b[i-1])/float64(period))
	}
	slices.Sort(ft)
	if got.Frames != n || n != 25 || !near(got.DurationS, span) || !near(got.FPS, float64(n-1)/span) {
		t.Errorf("frames %d (want %d) duration %v (want %v) fps %v", got.Frames, n, got.DurationS, span, got.FPS)
	}
	// Nearest rank over 24 frame times: ranks 12, ⌈21.6⌉=22, ⌈22.8⌉=23, ⌈23.76⌉=24.
	if !near(got.FrameTimeMS.P50, ft[11]) || !near(got.FrameTimeMS.P90, ft[21]) || !near(got.FrameTimeMS.P95, ft[22]) || !near(got.FrameTimeMS.P99, ft[23]) {
		t.Errorf("percentiles %+v, sorted frame times %v", got.FrameTimeMS, ft)
	}
	if got.Chromium.MaxFrameDelay != int64(math.Round(maxN)) || got.Chromium.MaxFrameDelay != 3 {
		t.Errorf("max_frame_delay %d, want round(%v)", got.Chromium.MaxFrameDelay, maxN)
	}
}

// gfxRows reads a single-block framestats capture independently, by header
// name, remembering that on API 31–34 the column labelled FrameStartTime
// holds the vsync period.
func gfxRows(t *testing.T, text string) (intended, completed, deadline []int64, period int64) {
	text = string(devtext.Normalize([]byte(text)))
	parts := strings.Split(text, "---PROFILEDATA---")
	lines := strings.Split(strings.TrimSpace(parts[1]), "\n")
	header := strings.Split(strings.TrimSuffix(lines[0], ","), ",")
	col := func(name string) int { return slices.Index(header, name) }
	for _, ln := range lines[1:] {
		f := strings.Split(strings.TrimSuffix(ln, ","), ",")
		v := func(name string) int64 {
			x, err := strconv.ParseInt(f[col(name)], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return x
		}
		if v("Flags") != 0 {
			continue
		}
		intended = append(intended, v("IntendedVsync"))
		completed = append(completed, v("FrameCompleted"))
		deadline = append(deadline, v("FrameDeadline"))
		period = v("FrameStartTime") // the label swap
	}
	return intended, completed, deadline, period
}

func TestAnalyzeFramesGfxInfoSoundvis(t *testing.T) {
	name := "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt"
	iv, fc, dl, _ := gfxRows(t, string(fixtures.Read(t, name)))
	got, _, err := runFrames(t, fixtures.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	n := len(iv)
	span := float64(iv[n-1]-iv[0]) / 1e9
	missed := 0
	var d []float64
	for i := range iv {
		if fc[i] > dl[i] {
			missed++
		}
		d = append(d, float64(fc[i]-iv[i])/1e6)
	}
	slices.Sort(d)
	if got.Source != "gfxinfo" || got.Window != "com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity/android.view.ViewRootImpl@73f2e63" {
		t.Errorf("source %q window %q", got.Source, got.Window)
	}
	// The design's ground truth: 10 of the 120 frames miss their deadline.
	if got.Frames != 120 || n != 120 || missed != 10 || *got.DeadlineMissed != 10 || got.Jank != 10 || got.JankDefinition != "deadline_missed" {
		t.Errorf("frames %d deadline_missed %v jank %d (%s); independent count %d", got.Frames, *got.DeadlineMissed, got.Jank, got.JankDefinition, missed)
	}
	if !near(got.DurationS, span) || !near(got.DurationS, 2.501926104) || !near(got.FPS, 119/2.501926104) {
		t.Errorf("duration %v fps %v", got.DurationS, got.FPS)
	}
	// Nearest rank over 120 durations: 60, 108, 114, 119.
	if !near(got.FrameTimeMS.P50, d[59]) || !near(got.FrameTimeMS.P90, d[107]) || !near(got.FrameTimeMS.P95, d[113]) || !near(got.FrameTimeMS.P99, d[118]) {
		t.Errorf("percentiles %+v", got.FrameTimeMS)
	}
	// The period is the median of the vsync-period column (8311* ns values).
	if got.RefreshPeriodMS < 8.31 || got.RefreshPeriodMS > 8.32 || got.Matrix == nil {
		t.Errorf("refresh_period_ms %v", got.RefreshPeriodMS)
	}
	if m := got.Matrix; m.Best+m.Normal+m.Middle+m.High+m.Frozen != 120 {
		t.Errorf("matrix %+v does not add up to 120", m)
	}

	// PerfDog and Chromium straight from the design's wording, in floats.
	r := got.RefreshPeriodMS
	var f []float64 // f[i] = t[i] − t[i−1] in ms; f[0] unused
	f = append(f, 0)
	for i := 1; i < n; i++ {
		f = append(f, float64(iv[i]-iv[i-1])/1e6)
	}
	jank, big, jankSum := 0, 0, 0.0
	for i := 4; i < n; i++ {
		mean := (f[i-3] + f[i-2] + f[i-1]) / 3
		if f[i] > 2*mean && f[i] > 2*1000.0/24 {
			jank++
			jankSum += f[i]
			if f[i] > 3*1000.0/24 {
				big++
			}
		}
	}
	var norm []float64
	for i := 1; i < n; i++ {
		if f[i]/r >= 0.5 {
			norm = append(norm, f[i]/r)
		}
	}
	chromium := 0
	for i := 1; i < len(norm); i++ {
		if d := math.Round(norm[i] - norm[i-1]); d > 0 && d < 20 {
			chromium++
		}
	}
	if got.PerfDog.Jank != jank || got.PerfDog.BigJank != big || !near(got.PerfDog.Stutter, jankSum/(span*1000)) {
		t.Errorf("perfdog %+v, want jank %d big %d stutter %v", got.PerfDog, jank, big, jankSum/(span*1000))
	}
	if got.Chromium.JankCount != chromium || got.Chromium.MaxFrameDelay != int64(math.Round(slices.Max(norm))) {
		t.Errorf("chromium %+v, want jank_count %d max %v", got.Chromium, chromium, slices.Max(norm))
	}
}

func TestAnalyzeFramesGfxInfoNoPeriodColumn(t *testing.T) {
	path := fixtures.Path(t, "gfxinfo_framestats/androidviewclient_test_api23_rows_with_placeholders.txt")
	if _, _, err := runFrames(t, path); err == nil || !strings.Contains(err.Error(), "-refresh-hz") {
		t.Errorf("without -refresh-hz: err = %v, want a hint at -refresh-hz", err)
	}
	got, _, err := runFrames(t, "-refresh-hz", "60", path)
	if err != nil {
		t.Fatal(err)
	}
	// Block 1 rows (Flags 0): IntendedVsync 1538750837982 → FrameCompleted
	// 1539087148465 (336.310483 ms), 1808866542439 → 1808922659568
	// (56.117129 ms). Block 2 has one Flags=1 row and loses to block 1.
	// No FrameDeadline column: missed = duration > 16.666667 ms, both.
	// Matrix: ⌊(336.310483−16.666667)/16.666667⌋ = 19 → middle; ⌊2.37⌋ → best.
	if got.Frames != 2 || !near(got.DurationS, 270.115704457) || !near(got.RefreshPeriodMS, 16.666667) ||
		!near(got.FrameTimeMS.P50, 56.117129) || !near(got.FrameTimeMS.P90, 336.310483) ||
		*got.DeadlineMissed != 2 || got.Matrix.Best != 1 || got.Matrix.Middle != 1 {
		t.Errorf("got %+v", got)
	}
	if len(got.OtherWindows) != 1 || got.OtherWindows[0].Frames != 0 {
		t.Errorf("other windows %+v", got.OtherWindows)
	}
}

func TestAnalyzeFramesWindowChoice(t *testing.T) {
	path := fixtures.Path(t, "gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt")
	all, _, err := runFrames(t, path)
	if err != nil {
		t.Fatal(err)
	}
	// 13 blocks: one picked, twelve listed; none listed has more frames.
	if len(all.OtherWindows) != 12 {
		t.Errorf("other windows = %d, want 12", len(all.OtherWindows))
	}
	for _, w := range all.OtherWindows {
		if w.Frames > all.Frames {
			t.Errorf("%s has %d frames, more than the picked %s (%d)", w.Window, w.Frames, all.Window, all.Frames)
		}
	}
	if !near(all.RefreshPeriodMS, 16.666667) {
		t.Errorf("refresh %v", all.RefreshPeriodMS)
	}
	shade, _, err := runFrames(t, "-window", "NotificationShade", path)
	if err != nil {
		t.Fatal(err)
	}
	if shade.Window != "NotificationShade/android.view.ViewRootImpl@8f4b5e5" {
		t.Errorf("window %q", shade.Window)
	}
	if _, _, err := runFrames(t, "-window", "NoSuchWindow", path); err == nil || !strings.Contains(err.Error(), "NoSuchWindow") {
		t.Errorf("unmatched -window: %v", err)
	}
}

// TestAnalyzeFramesRejectsRows: the Settings home window of the Android 14
// tablet capture ends with two rows completed at 288234774265332736, which
// gave frame times of 288208950230 ms; the SpaActivity window has a row that
// never completed. Counts per reason were read from the capture with awk.
func TestAnalyzeFramesRejectsRows(t *testing.T) {
	path := fixtures.Path(t, "gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt")
	home, _, err := runFrames(t, "-window", "SettingsHomepage", path)
	if err != nil {
		t.Fatal(err)
	}
	if home.Frames != 32 || home.FrameTimeMS.P99 > 1000 || home.Matrix.Frozen != 0 ||
		!maps.Equal(home.Rejected, map[string]int{"flags": 33, "beyond_clock": 2}) {
		t.Errorf("home: %d frames, p99 %v ms, rejected %v", home.Frames, home.FrameTimeMS.P99, home.Rejected)
	}
	spa, _, err := runFrames(t, "-window", "SpaActivity", path)
	if err != nil {
		t.Fatal(err)
	}
	if spa.Frames != 38 || !maps.Equal(spa.Rejected, map[string]int{"flags": 81, "not_completed": 1}) {
		t.Errorf("spa: %d frames, rejected %v", spa.Frames, spa.Rejected)
	}
	for _, w := range spa.OtherWindows {
		if strings.HasPrefix(w.Window, "com.android.launcher3/com.android.quickstep.RecentsActivity") &&
			!maps.Equal(w.Rejected, map[string]int{"flags": 1, "completed_before_vsync": 4}) {
			t.Errorf("%s rejected %v", w.Window, w.Rejected)
		}
	}
	zeros, _, err := runFrames(t, fixtures.Path(t, "sf_latency/solox249_nonblast_surfaceview_zeros_excerpt.txt"))
	if err != nil || zeros.Frames != 0 || !maps.Equal(zeros.Rejected, map[string]int{"empty": 12}) {
		t.Errorf("zero rows: %+v %v", zeros, err)
	}
}

func TestAnalyzeFramesRefreshPeriodOnly(t *testing.T) {
	// TECNO: UTF-16LE, only the period line: zero frames, no NaN.
	got, _, err := runFrames(t, fixtures.Path(t, "sf_latency/tecno_camon20_5g_refresh_period_only_utf16le.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Source != "surfaceflinger" || got.Frames != 0 || got.FPS != 0 || !near(got.RefreshPeriodMS, 16.666667) {
		t.Errorf("got %+v", got)
	}
}

func TestAnalyzeFramesSurfaceFlingerPeriodFromFlag(t *testing.T) {
	// A --latency output whose period line reads 0 needs -refresh-hz; four
	// frames 20 ms apart: fps 50, frame time 20 ms, N = 20/(1000/48) = 0.96.
	path := filepath.Join(t.TempDir(), "latency.txt")
	text := "0\n1 1000000000 1\n1 1020000000 1\n1 1040000000 1\n1 1060000000 1\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runFrames(t, path); err == nil || !strings.Contains(err.Error(), "-refresh-hz") {
		t.Errorf("without -refresh-hz: %v", err)
	}
	got, _, err := runFrames(t, "-refresh-hz", "48", path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Frames != 4 || !near(got.FPS, 50) || !near(got.RefreshPeriodMS, 20.833333) || !near(got.FrameTimeMS.P50, 20) ||
		got.Chromium.MaxFrameDelay != 1 || got.Chromium.JankCount != 0 {
		t.Errorf("got %+v", got)
	}
}
