package frames

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/logcat"
	"github.com/perfgate/perfgate/android/surfaceflinger"
	"github.com/perfgate/perfgate/internal/fixtures"
)

const ms = int64(time.Millisecond)

// msTimes turns frame times in ms into ns timestamps.
func msTimes(v ...float64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(math.Round(x * 1e6))
	}
	return out
}

func TestFrameFPS(t *testing.T) {
	tests := []struct {
		name string
		t    []int64
		want float64
	}{
		{"none", nil, 0},
		{"one", msTimes(5), 0},
		{"two", msTimes(0, 20), 50},                     // 1 / 0.020 s
		{"four at 16 ms", msTimes(0, 16, 32, 48), 62.5}, // 3 / 0.048 s
		{"identical timestamps", msTimes(7, 7, 7), 0},
		{"pause", msTimes(0, 1000, 1010), 2 / 1.010},
	}
	for _, tc := range tests {
		if got := FPS(tc.t); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: FrameFPS = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFrameChromiumJank(t *testing.T) {
	const r = 16 * ms
	tests := []struct {
		name string
		t    []int64
		want Chromium
	}{
		// L = 16,16,16,48,16,16 → N = 1,1,1,3,1,1 → D = 0,0,2,−2,0: one jank.
		{"one 3-period frame", msTimes(0, 16, 32, 48, 96, 112, 128), Chromium{1, 3}},
		// L = 16, 4, 16: the 4 ms gap has N = 0.25 < 0.5 and is dropped; D = 0.
		{"short interval ignored", msTimes(0, 16, 20, 36), Chromium{0, 1}},
		// N = 1, 1.5: D = 0.5 rounds half away from zero to 1; max 1.5 → 2.
		{"round half away from zero", msTimes(0, 16, 40), Chromium{1, 2}},
		// A 20-vsync pause: N = 1,1,21,1 → D = 0,20,−20; 20 is not < 20.
		{"20-vsync pause", msTimes(0, 16, 32, 32+21*16, 48+21*16), Chromium{0, 21}},
		// A 19-period change still counts.
		{"19-period change", msTimes(0, 16, 32, 32+20*16, 48+20*16), Chromium{1, 20}},
		{"no frames", nil, Chromium{}},
		{"one frame", msTimes(1), Chromium{}},
		{"identical timestamps", msTimes(3, 3, 3, 3), Chromium{}},
	}
	for _, tc := range tests {
		if got := ChromiumJank(tc.t, r); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if got := ChromiumJank(msTimes(0, 16, 32), 0); got != (Chromium{}) {
		t.Errorf("period 0: %+v", got)
	}
}

func TestFramePerfDogJank(t *testing.T) {
	tests := []struct {
		name        string
		t           []int64
		jank, big   []int
		stutterWant float64
	}{
		// F = 16,16,16,100: 100 > 2×16 and > 83.33 but not > 125.
		{"jank", msTimes(0, 16, 32, 48, 148), []int{4}, nil, 100.0 / 148},
		{"big jank", msTimes(0, 16, 32, 48, 178), []int{4}, []int{4}, 130.0 / 178},
		{"just above 2 film frames", msTimes(0, 16, 32, 48, 132), []int{4}, nil, 84.0 / 132},
		{"just below 2 film frames", msTimes(0, 16, 32, 48, 131), nil, nil, 0},
		// F = 100,100,100,150: 150 is not > 2 × 100.
		{"slow but steady", msTimes(0, 100, 200, 300, 450), nil, nil, 0},
		// i = 2 < 4: too few earlier frame times.
		{"too early", msTimes(0, 16, 200), nil, nil, 0},
		// A pause counts: PerfDog looks only at intervals.
		{"pause", msTimes(0, 16, 32, 48, 1048, 1064), []int{4}, []int{4}, 1000.0 / 1064},
		{"two janks", msTimes(0, 16, 32, 48, 148, 164, 180, 196, 296), []int{4, 8}, nil, 200.0 / 296},
		{"identical timestamps", msTimes(5, 5, 5, 5, 5, 5), nil, nil, 0},
		{"none", nil, nil, nil, 0},
	}
	for _, tc := range tests {
		got := PerfDogJank(tc.t)
		// The frames are named by their time.
		var times, bigTimes []int64
		for _, i := range tc.jank {
			times = append(times, tc.t[i])
		}
		for _, i := range tc.big {
			bigTimes = append(bigTimes, tc.t[i])
		}
		if s := SummarizeSurfaceFlinger(tc.t, 16_666_667); !slices.Equal(s.Janked.PerfDog, times) || !slices.Equal(s.Janked.PerfDogBig, bigTimes) ||
			!slices.Equal(s.Janked.Of(s.JankDefinition), times) {
			t.Errorf("%s: janked %+v, want jank at %v, big at %v", tc.name, s.Janked, times, bigTimes)
		}
		if _, jank, big := framePerfDog(tc.t); !slices.Equal(jank, times) || !slices.Equal(big, bigTimes) {
			t.Errorf("%s: jank at %v, big at %v; want %v, %v", tc.name, jank, big, times, bigTimes)
		}
		if got.Jank != len(tc.jank) || got.BigJank != len(tc.big) || math.Abs(got.Stutter-tc.stutterWant) > 1e-12 {
			t.Errorf("%s: %+v, want jank %v big %v stutter %v", tc.name, got, tc.jank, tc.big, tc.stutterWant)
		}
	}
}

// NearestRank takes the ⌈p·m/100⌉-th smallest value in integers: for
// p = 7 of 100 values a float ceiling of 0.07 × 100 = 7.000000000000001
// would take the 8th.
func TestNearestRank(t *testing.T) {
	hundred := make([]float64, 100)
	for i := range hundred {
		hundred[i] = float64(100 - i) // descending: the input is sorted
	}
	tests := []struct {
		in   []float64
		p    int
		want float64
	}{
		{nil, 50, 0},
		{[]float64{4}, 90, 4},
		{[]float64{650, 700, 640}, 50, 650},
		{[]float64{1, 2, 3, 4}, 50, 2},
		{hundred, 7, 7},
		{hundred, 90, 90},
		{hundred, 100, 100},
		{hundred, 0, 1},
	}
	for _, tc := range tests {
		in := slices.Clone(tc.in)
		if got := NearestRank(tc.in, tc.p); got != tc.want {
			t.Errorf("NearestRank(%v…, %d) = %v, want %v", tc.in[:min(len(tc.in), 3)], tc.p, got, tc.want)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("NearestRank changed its input")
		}
	}
}

func TestFramePercentilesOf(t *testing.T) {
	seq := func(n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(n-i) * ms // descending, to show the input is sorted
		}
		return out
	}
	tests := []struct {
		name string
		in   []int64
		want Percentiles
	}{
		{"none", nil, Percentiles{}},
		{"one", []int64{7 * ms}, Percentiles{7, 7, 7, 7}},
		// m = 3: ranks ⌈1.5⌉=2, ⌈2.7⌉=3, ⌈2.85⌉=3, ⌈2.97⌉=3.
		{"three", []int64{3 * ms, 1 * ms, 2 * ms}, Percentiles{2, 3, 3, 3}},
		// m = 10: ranks 5, 9, ⌈9.5⌉=10, ⌈9.9⌉=10.
		{"ten", seq(10), Percentiles{5, 9, 10, 10}},
		// m = 100: ranks 50, 90, 95, 99 exactly.
		{"hundred", seq(100), Percentiles{50, 90, 95, 99}},
		// m = 120: ranks 60, 108, 114, ⌈118.8⌉=119.
		{"hundred twenty", seq(120), Percentiles{60, 108, 114, 119}},
	}
	for _, tc := range tests {
		in := slices.Clone(tc.in)
		if got := PercentilesOf(tc.in); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
		if !slices.Equal(in, tc.in) {
			t.Errorf("%s: input modified", tc.name)
		}
	}
}

func TestFrameMatrixLevels(t *testing.T) {
	const r = 16 * ms
	d := []int64{
		8 * ms,              // negative → 0 → best
		r,                   // 0 → best
		r + 2*r + r*99/100,  // ⌊2.99⌋ = 2 → best
		r + 3*r,             // 3 → normal
		r + 8*r + r/2,       // 8 → normal
		r + 9*r,             // 9 → middle
		r + 24*r,            // 24 → high
		r + 41*r + r*99/100, // 41 → high
		r + 42*r,            // 42 → frozen
		r + 100*r,           // frozen
	}
	want := Matrix{Best: 3, Normal: 2, Middle: 1, High: 2, Frozen: 2}
	if got := MatrixLevels(d, r); got != want {
		t.Errorf("FrameMatrixLevels = %+v, want %+v", got, want)
	}
	if got := MatrixLevels(d, 0); got != (Matrix{}) {
		t.Errorf("period 0: %+v", got)
	}
}

func TestFrameVitalsCounts(t *testing.T) {
	d := []int64{16 * ms, 16*ms + 1, 700 * ms, 700*ms + 1, 2000 * ms, 3 * ms}
	// > 16 ms: four; > 700 ms: two (also counted as slow).
	if got, want := VitalsCounts(d), (Vitals{Slow: 4, Frozen: 2}); got != want {
		t.Errorf("FrameVitalsCounts = %+v, want %+v", got, want)
	}
}

func TestGfxInfoFrameDeadlineMissed(t *testing.T) {
	const r = 8 * ms
	tests := []struct {
		name string
		f    gfxinfo.FrameStats
		want bool
	}{
		{"deadline met though longer than a period", gfxinfo.FrameStats{IntendedVsync: 100 * ms, FrameDeadline: 116 * ms, FrameCompleted: 115 * ms}, false},
		{"deadline missed", gfxinfo.FrameStats{IntendedVsync: 100 * ms, FrameDeadline: 116 * ms, FrameCompleted: 117 * ms}, true},
		{"completed exactly at the deadline", gfxinfo.FrameStats{IntendedVsync: 100 * ms, FrameDeadline: 116 * ms, FrameCompleted: 116 * ms}, false},
		{"INT64_MAX deadline, long", gfxinfo.FrameStats{IntendedVsync: 100 * ms, FrameDeadline: math.MaxInt64, FrameCompleted: 109 * ms}, true},
		{"INT64_MAX deadline, short", gfxinfo.FrameStats{IntendedVsync: 100 * ms, FrameDeadline: math.MaxInt64, FrameCompleted: 107 * ms}, false},
		{"no deadline column, long", gfxinfo.FrameStats{IntendedVsync: 100 * ms, FrameCompleted: 108*ms + 1}, true},
		{"no deadline column, one period", gfxinfo.FrameStats{IntendedVsync: 100 * ms, FrameCompleted: 108 * ms}, false},
	}
	for _, tc := range tests {
		if got := MissedDeadline(tc.f, r); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFrameGTSmoothness(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse("15:04:05.000", s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	skips := []logcat.SkippedFrames{
		{Time: at("10:00:00.500"), Frames: 30},
		{Time: at("10:00:00.900"), Frames: 40},
		{Time: at("10:00:02.100"), Frames: 5},
		{Frames: 99}, // no time: ignored
	}
	got := GTSmoothness(skips, 60)
	want := []struct {
		skipped int
		sm      float64
	}{{70, 0}, {0, 60}, {5, 55}}
	if len(got) != len(want) {
		t.Fatalf("seconds = %d, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Skipped != w.skipped || got[i].SM != w.sm || !got[i].Second.Equal(at("10:00:00.000").Add(time.Duration(i)*time.Second)) {
			t.Errorf("second %d = %+v, want skipped %d SM %v", i, got[i], w.skipped, w.sm)
		}
	}
	if GTSmoothness(nil, 60) != nil {
		t.Error("no skips should give no seconds")
	}
}

func TestFrameDedup(t *testing.T) {
	sf := func(b ...int64) []surfaceflinger.LatencyFrame {
		out := make([]surfaceflinger.LatencyFrame, len(b))
		for i, v := range b {
			out[i] = surfaceflinger.LatencyFrame{ActualPresent: v}
		}
		return out
	}
	kept, last := DedupSurfaceFlinger(0, sf(10, 20, 30))
	if len(kept) != 3 || last != 30 {
		t.Fatalf("first poll: %v %d", kept, last)
	}
	// The next poll overlaps: 20 and 30 were seen already.
	kept, last = DedupSurfaceFlinger(last, sf(20, 30, 40, 50))
	if !slices.Equal(kept, sf(40, 50)) || last != 50 {
		t.Errorf("second poll: %v %d", kept, last)
	}
	kept, last = DedupSurfaceFlinger(last, sf(50))
	if len(kept) != 0 || last != 50 {
		t.Errorf("nothing new: %v %d", kept, last)
	}

	g := func(v ...int64) []gfxinfo.FrameStats {
		out := make([]gfxinfo.FrameStats, len(v))
		for i, x := range v {
			out[i] = gfxinfo.FrameStats{IntendedVsync: x}
		}
		return out
	}
	// Two windows rendering in the same vsync keep their own last value.
	lastA, lastB := int64(0), int64(0)
	var a, b []gfxinfo.FrameStats
	a, lastA = DedupGfxInfo(lastA, g(100, 200))
	b, lastB = DedupGfxInfo(lastB, g(200))
	if len(a) != 2 || len(b) != 1 || lastA != 200 || lastB != 200 {
		t.Errorf("windows: %v %v", a, b)
	}
	a, lastA = DedupGfxInfo(lastA, g(100, 200, 300))
	if !slices.Equal(a, g(300)) || lastA != 300 {
		t.Errorf("overlapping poll: %v %d", a, lastA)
	}
}

// uniform returns n present times at period p.
func uniform(n int, p int64) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = 1_000_000_000 + int64(i)*p
	}
	return out
}

func TestFrameSummarizeEdges(t *testing.T) {
	for _, hz := range []float64{30, 60, 90, 120, 144} {
		p := int64(math.Round(1e9 / hz))
		s := SummarizeSurfaceFlinger(uniform(200, p), p)
		wantFPS := 1e9 / float64(p)
		if math.Abs(s.FPS-wantFPS) > 1e-9 || s.Jank != 0 || s.Chromium != (Chromium{0, 1}) || s.FrameTimeMS.P99 != float64(p)/1e6 {
			t.Errorf("%v Hz: %+v", hz, s)
		}
		if s.JankDefinition != JankDefinitionPerfDog || s.DeadlineMissed != nil {
			t.Errorf("%v Hz: SurfaceFlinger default jank %q", hz, s.JankDefinition)
		}
	}
	for n := 0; n <= 3; n++ {
		for _, ts := range [][]int64{uniform(n, 16*ms), slices.Repeat([]int64{5 * ms}, n)} {
			sf := SummarizeSurfaceFlinger(ts, 16*ms)
			frames := make([]gfxinfo.FrameStats, n)
			for i, v := range ts {
				frames[i] = gfxinfo.FrameStats{IntendedVsync: v, FrameCompleted: v + 10*ms}
			}
			gi := SummarizeGfxInfo(frames, 16*ms)
			for _, s := range []Summary{sf, gi} {
				if _, err := json.Marshal(s); err != nil {
					t.Errorf("%d frames %v: %v", n, ts, err)
				}
				if s.Frames != n || s.Jank != 0 {
					t.Errorf("%d frames: %+v", n, s)
				}
			}
			if n >= 1 && gi.FrameTimeMS.P50 != 10 {
				t.Errorf("%d frames: gfxinfo p50 %v, want 10", n, gi.FrameTimeMS.P50)
			}
		}
	}
}

func TestFrameSummarizeGfxInfo(t *testing.T) {
	const r = 16 * ms
	// Seven rows: one flagged and one with INT64_MAX FrameCompleted are
	// dropped; a 40 ms frame meets its deadline three periods out; a 50 ms
	// frame misses its deadline two periods out.
	frames := []gfxinfo.FrameStats{
		{IntendedVsync: 0 * ms, FrameCompleted: 10 * ms, FrameDeadline: 32 * ms},
		{IntendedVsync: 16 * ms, FrameCompleted: 26 * ms, FrameDeadline: 48 * ms},
		{Flags: 1, IntendedVsync: 24 * ms, FrameCompleted: 300 * ms},
		{IntendedVsync: 32 * ms, FrameCompleted: 72 * ms, FrameDeadline: 80 * ms},
		{IntendedVsync: 48 * ms, FrameCompleted: math.MaxInt64},
		{IntendedVsync: 64 * ms, FrameCompleted: 74 * ms, FrameDeadline: 96 * ms},
		{IntendedVsync: 80 * ms, FrameCompleted: 130 * ms, FrameDeadline: 112 * ms},
	}
	for i := range frames { // real IntendedVsync values are far from 0
		frames[i].IntendedVsync += 1e9
		if frames[i].FrameCompleted != math.MaxInt64 {
			frames[i].FrameCompleted += 1e9
		}
		if frames[i].FrameDeadline != 0 {
			frames[i].FrameDeadline += 1e9
		}
	}
	s := SummarizeGfxInfo(frames, r)
	// Kept: vsyncs 0,16,32,64,80 → 5 frames over 80 ms.
	if s.Frames != 5 || math.Abs(s.FPS-4/0.080) > 1e-9 || s.DurationS != 0.080 {
		t.Errorf("frames %d fps %v duration %v", s.Frames, s.FPS, s.DurationS)
	}
	// Durations 10,10,40,10,50: sorted 10,10,10,40,50; ranks 3,5,5,5.
	if s.FrameTimeMS != (Percentiles{10, 50, 50, 50}) {
		t.Errorf("percentiles %+v", s.FrameTimeMS)
	}
	if *s.DeadlineMissed != 1 || s.Jank != 1 || s.JankDefinition != JankDefinitionDeadlineMissed {
		t.Errorf("deadline missed %d jank %d (%s)", *s.DeadlineMissed, s.Jank, s.JankDefinition)
	}
	// Matrix: 40 ms → ⌊24/16⌋ = 1, 50 ms → ⌊34/16⌋ = 2: all best.
	if *s.Matrix != (Matrix{Best: 5}) || *s.Vitals != (Vitals{Slow: 2}) {
		t.Errorf("matrix %+v vitals %+v", *s.Matrix, *s.Vitals)
	}
	// Intervals 16,16,32,16: N = 1,1,2,1; D = 0,1,−1 → one Chromium jank.
	if s.Chromium != (Chromium{1, 2}) || s.RefreshPeriodMS != 16 {
		t.Errorf("chromium %+v period %v", s.Chromium, s.RefreshPeriodMS)
	}
	// The summary names the frames each definition counted, by vsync: the
	// 50 ms frame missed its deadline; the change D = 1 ended at vsync 64.
	want := Janks{DeadlineMissed: []int64{1e9 + 80*ms}, Chromium: []int64{1e9 + 64*ms}}
	if !reflect.DeepEqual(s.Janked, want) || !slices.Equal(s.Janked.Of(s.JankDefinition), want.DeadlineMissed) {
		t.Errorf("janked %+v, want %+v", s.Janked, want)
	}
	// A session's frames of the same rows summarise the same.
	kept := make([]Frame, len(frames))
	for i, f := range frames {
		kept[i] = Frame{Source: SourceGfxInfo, Window: "w", FrameStats: f}
	}
	if got := Summarize(SourceGfxInfo, kept, r); !reflect.DeepEqual(got, s) {
		t.Errorf("FrameSummarize of the session's frames:\n%+v\nFrameSummarizeGfxInfo of the rows:\n%+v", got, s)
	}
}

// Every frame the summary names as missing its deadline is one
// MissedDeadline judges so, over a real 120 Hz capture.
func TestFrameSummaryJankedRealCapture(t *testing.T) {
	g, err := gfxinfo.Parse(fixtures.Read(t, "gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt"))
	if err != nil {
		t.Fatal(err)
	}
	w := g.Windows()[0]
	rows, period := w.Frames.Frames(), w.Frames.RefreshPeriod()
	s := SummarizeGfxInfo(rows, period)
	var missed []int64
	for _, f := range UsableGfxInfo(rows) {
		if MissedDeadline(f, period) {
			missed = append(missed, f.IntendedVsync)
		}
	}
	if len(missed) != 10 || !slices.Equal(s.Janked.DeadlineMissed, missed) || *s.DeadlineMissed != len(missed) {
		t.Errorf("janked %v (%d counted), want the %d frames judged late: %v", s.Janked.DeadlineMissed, *s.DeadlineMissed, len(missed), missed)
	}
	if len(s.Janked.PerfDog) != s.PerfDog.Jank || len(s.Janked.PerfDogBig) != s.PerfDog.BigJank || len(s.Janked.Chromium) != s.Chromium.JankCount {
		t.Errorf("janked %+v against counts PerfDog %+v, Chromium %+v", s.Janked, s.PerfDog, s.Chromium)
	}
}

// A session's frame keeps, in its JSON, the names and columns a Result
// has always had, and nothing more.
func TestFrameJSON(t *testing.T) {
	gfx := Frame{Source: SourceGfxInfo, Window: "w", FrameStats: gfxinfo.FrameStats{Flags: 0, IntendedVsync: 1, Vsync: 2, FrameDeadline: 3,
		FrameInterval: 4, FrameStartTime: 5, FrameCompleted: 6, GpuCompleted: 7, DisplayPresentTime: 8}}
	sf := Frame{Source: SourceSurfaceFlinger, Window: "l", LatencyFrame: surfaceflinger.LatencyFrame{DesiredPresent: 1, ActualPresent: 2, FrameReady: 3}}
	for _, tc := range []struct {
		f    Frame
		want string
	}{
		{gfx, `{"source":"gfxinfo","window":"w","intended_vsync_ns":1,"vsync_ns":2,"frame_deadline_ns":3,"frame_completed_ns":6}`},
		{sf, `{"source":"surfaceflinger","window":"l","desired_present_ns":1,"actual_present_ns":2,"frame_ready_ns":3}`},
	} {
		b, err := json.Marshal(tc.f)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.f.Source, b, err, tc.want)
		}
		var back Frame
		if err := json.Unmarshal(b, &back); err != nil || back.Time() != tc.f.Time() {
			t.Errorf("%s: read back %+v, %v", tc.f.Source, back, err)
		}
	}
	if gfx.Time() != 1 || sf.Time() != 2 {
		t.Errorf("times %d %d, want IntendedVsync 1 and B 2", gfx.Time(), sf.Time())
	}
}

// hourOf120Hz builds an hour of 120 Hz gfxinfo frames (432,000) with a
// janky frame every 500.
func hourOf120Hz() []gfxinfo.FrameStats {
	const p = 8_333_333
	frames := make([]gfxinfo.FrameStats, 432_000)
	t := int64(1_000_000_000)
	for i := range frames {
		d := int64(6 * ms)
		if i%500 == 499 {
			t += 12 * p // the app stalls; the next frame is late and long
			d = 110 * ms
		}
		frames[i] = gfxinfo.FrameStats{IntendedVsync: t, FrameCompleted: t + d, FrameDeadline: t + 2*p, FrameInterval: p}
		t += p
	}
	return frames
}

func BenchmarkFrameSummarizeGfxInfoHour120Hz(b *testing.B) {
	frames := hourOf120Hz()
	b.ReportAllocs()
	for b.Loop() {
		s := SummarizeGfxInfo(frames, 8_333_333)
		if s.Frames != len(frames) {
			b.Fatal(s.Frames)
		}
	}
}

func BenchmarkFrameSummarizeSurfaceFlingerHour120Hz(b *testing.B) {
	frames := hourOf120Hz()
	t := make([]int64, len(frames))
	for i, f := range frames {
		t[i] = f.IntendedVsync
	}
	b.ReportAllocs()
	for b.Loop() {
		SummarizeSurfaceFlinger(t, 8_333_333)
	}
}
