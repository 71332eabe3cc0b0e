package metrics

import (
	"maps"
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestGfxInfoRowReject(t *testing.T) {
	const clock = 26045845 * ms // the anavmode capture's Uptime line
	ok := GfxInfoFrame{IntendedVsync: 25828682995260, FrameCompleted: 25828695000000}
	with := func(change func(*GfxInfoFrame)) GfxInfoFrame { f := ok; change(&f); return f }
	tests := []struct {
		name  string
		f     GfxInfoFrame
		clock int64
		want  FrameReject
	}{
		{"a frame", ok, clock, ""},
		{"a frame, no clock", ok, 0, ""},
		{"RenderThread animation", with(func(f *GfxInfoFrame) { f.Flags = 2 }), clock, FrameRejectFlags},
		{"flagged and garbage", with(func(f *GfxInfoFrame) { f.Flags = 10; f.FrameCompleted = 1 }), clock, FrameRejectFlags},
		{"still drawing", with(func(f *GfxInfoFrame) { f.FrameCompleted = 0 }), clock, FrameRejectNotCompleted},
		{"Davey INT64_MAX completion", with(func(f *GfxInfoFrame) { f.FrameCompleted = math.MaxInt64 }), clock, FrameRejectSentinel},
		{"negative completion", with(func(f *GfxInfoFrame) { f.FrameCompleted = -1 }), clock, FrameRejectSentinel},
		{"no vsync", with(func(f *GfxInfoFrame) { f.IntendedVsync = 0 }), clock, FrameRejectSentinel},
		// SettingsHomepageActivity row 66 of the anavmode capture.
		{"garbage completion", with(func(f *GfxInfoFrame) { f.FrameCompleted = 288234774265332736 }), clock, FrameRejectBeyondClock},
		{"garbage completion, no clock", with(func(f *GfxInfoFrame) { f.FrameCompleted = 288234774265332736 }), 0, FrameRejectTooLong},
		{"completed just within the slack", with(func(f *GfxInfoFrame) { f.IntendedVsync = clock; f.FrameCompleted = clock + int64(FrameClockSlack) }), clock, ""},
		{"vsync beyond the clock", with(func(f *GfxInfoFrame) {
			f.IntendedVsync = clock + int64(FrameClockSlack) + 1
			f.FrameCompleted = f.IntendedVsync + ms
		}), clock, FrameRejectBeyondClock},
		// RecentsActivity row 19: the slot still holds a frame of 4 s before.
		{"stale completion", GfxInfoFrame{IntendedVsync: 24299277923990, FrameCompleted: 24294916467447}, clock, FrameRejectCompletedBeforeVsync},
		{"a minute", with(func(f *GfxInfoFrame) { f.FrameCompleted = f.IntendedVsync + int64(FrameMaxDuration) }), clock, ""},
		{"over a minute", with(func(f *GfxInfoFrame) { f.FrameCompleted = f.IntendedVsync + int64(FrameMaxDuration) + 1 }), 0, FrameRejectTooLong},
		// Stale DisplayPresentTime and a deadline of INT64_MAX do not decide.
		{"stale present time", with(func(f *GfxInfoFrame) { f.DisplayPresentTime = 25828107040153 }), clock, ""},
		{"no deadline", with(func(f *GfxInfoFrame) { f.FrameDeadline = math.MaxInt64 }), clock, ""},
	}
	for _, tc := range tests {
		if got := GfxInfoRowReject(tc.f, tc.clock); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, r := range []FrameReject{FrameRejectNotCompleted, FrameRejectCompletedBeforeVsync} {
		if !GfxInfoRowPending(r) {
			t.Errorf("%s is what a row still drawing shows", r)
		}
	}
	if GfxInfoRowPending(FrameRejectBeyondClock) || GfxInfoRowPending("") {
		t.Error("garbage and frames are final")
	}
}

func TestGfxInfoJudgeDuplicates(t *testing.T) {
	rows := []GfxInfoFrame{
		{IntendedVsync: 100 * ms, FrameCompleted: 110 * ms},
		{Flags: 2, IntendedVsync: 116 * ms, FrameCompleted: 120 * ms}, // an animation frame
		{IntendedVsync: 116 * ms, FrameCompleted: 130 * ms},           // the UI frame of the same vsync: a frame
		{IntendedVsync: 116 * ms, FrameCompleted: 131 * ms},           // the same vsync again
		{IntendedVsync: 108 * ms, FrameCompleted: 140 * ms},           // before a frame already taken
		{IntendedVsync: 133 * ms, FrameCompleted: 0},                  // drawing: does not block
		{IntendedVsync: 150 * ms, FrameCompleted: 160 * ms},
	}
	got := GfxInfoJudge(rows, 0)
	want := []FrameReject{"", FrameRejectFlags, "", FrameRejectDuplicateVsync, FrameRejectDuplicateVsync, FrameRejectNotCompleted, ""}
	if strings.Join(rejectStrings(got), ",") != strings.Join(rejectStrings(want), ",") {
		t.Errorf("verdicts %q, want %q", got, want)
	}
}

func rejectStrings(rs []FrameReject) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
		if r == "" {
			out[i] = "frame"
		}
	}
	return out
}

// TestGfxInfoFramesOfRealCapture judges the windows of real captures. The
// expected counts were taken from the capture text with awk (Flags ≠ 0;
// FrameCompleted 0; FrameCompleted past the Uptime line; FrameCompleted
// before IntendedVsync), not with this package.
func TestGfxInfoFramesOfRealCapture(t *testing.T) {
	type counts struct {
		frames  int
		rejects FrameRejects
	}
	tests := map[string]map[string]counts{
		"gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt": {
			"SettingsHomepageActivity": {32, FrameRejects{FrameRejectFlags: 33, FrameRejectBeyondClock: 2}},
			"SubSettings":              {19, FrameRejects{FrameRejectFlags: 61}},
			"SpaActivity":              {38, FrameRejects{FrameRejectFlags: 81, FrameRejectNotCompleted: 1}},
			"RecentsActivity":          {115, FrameRejects{FrameRejectFlags: 1, FrameRejectCompletedBeforeVsync: 4}},
			"ScreenDecorOverlay/":      {17, FrameRejects{FrameRejectFlags: 2, FrameRejectNotCompleted: 1, FrameRejectBeyondClock: 1}},
			"NotificationShade":        {103, FrameRejects{FrameRejectFlags: 15, FrameRejectCompletedBeforeVsync: 2}},
			"andronavibar":             {116, FrameRejects{FrameRejectFlags: 4}},
		},
		"gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt": {
			"MainActivity": {120, FrameRejects{}},
		},
	}
	for file, windows := range tests {
		g := gfxFixture(t, file)
		for _, w := range g.Windows() {
			for name, want := range windows {
				if !strings.Contains(w.Label(), name) || w.Frames == nil {
					continue
				}
				frames, rejects := GfxInfoFramesOf(w.Frames, g.ClockNs())
				if len(frames) != want.frames || !maps.Equal(rejects, want.rejects) {
					t.Errorf("%s %s: %d frames, rejected %v; want %d, %v", file, name, len(frames), rejects, want.frames, want.rejects)
				}
				if len(frames)+rejects.Total() != w.Frames.Len() {
					t.Errorf("%s %s: %d frames + %d rejected != %d rows", file, name, len(frames), rejects.Total(), w.Frames.Len())
				}
			}
		}
	}
}

// TestGfxInfoGarbageIsNotAFrame is the report: the garbage
// FrameCompleted of the Settings home window gave a p95 frame time of
// 288208950230 ms and frozen frames.
func TestGfxInfoGarbageIsNotAFrame(t *testing.T) {
	g := gfxFixture(t, "gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt")
	for _, w := range g.Windows() {
		if !strings.Contains(w.Label(), "SettingsHomepageActivity") {
			continue
		}
		for _, frames := range [][]GfxInfoFrame{GfxInfoUsableFrames(w.Frames.Frames()), first(GfxInfoFramesOf(w.Frames, g.ClockNs()))} {
			s := FrameSummarizeGfxInfo(frames, w.Frames.RefreshPeriod())
			if s.FrameTimeMS.P99 > 1000 || s.Vitals.Frozen != 0 || s.Matrix.Frozen != 0 {
				t.Errorf("frame time %+v, vitals %+v, matrix %+v", s.FrameTimeMS, *s.Vitals, *s.Matrix)
			}
		}
		return
	}
	t.Fatal("no SettingsHomepageActivity window")
}

func first[A, B any](a A, _ B) A { return a }

func TestGfxInfoFrameDeadlineNotReal(t *testing.T) {
	const r = 16 * ms
	for _, d := range []int64{-1, 0, 90 * ms, 100 * ms} {
		f := GfxInfoFrame{IntendedVsync: 100 * ms, FrameDeadline: d, FrameCompleted: 110 * ms}
		if GfxInfoFrameDeadlineMissed(f, r) {
			t.Errorf("deadline %d is not a deadline: a 10 ms frame at 60 Hz is on time", d)
		}
	}
}

func TestSurfaceFlingerRowReject(t *testing.T) {
	tests := []struct {
		name         string
		f            SurfaceFlingerFrame
		prev, clock  int64
		want         FrameReject
		wantNoClockB FrameReject
	}{
		{"a frame", SurfaceFlingerFrame{1, 100, 90}, 50, 1000, "", ""},
		{"Honor 9: A and C INT64_MAX", SurfaceFlingerFrame{math.MaxInt64, 100, math.MaxInt64}, 50, 1000, "", ""},
		{"empty slot", SurfaceFlingerFrame{}, 50, 1000, FrameRejectEmpty, FrameRejectEmpty},
		{"pending fence", SurfaceFlingerFrame{1, math.MaxInt64, 90}, 50, 1000, FrameRejectPendingFence, FrameRejectPendingFence},
		{"negative", SurfaceFlingerFrame{1, -2, 90}, 50, 1000, FrameRejectSentinel, FrameRejectSentinel},
		{"backwards", SurfaceFlingerFrame{1, 40, 30}, 50, 1000, FrameRejectBackwards, FrameRejectBackwards},
		{"same present", SurfaceFlingerFrame{1, 50, 30}, 50, 1000, FrameRejectBackwards, FrameRejectBackwards},
		{"beyond the clock", SurfaceFlingerFrame{1, 1000 + int64(FrameClockSlack) + 1, 30}, 50, 1000, FrameRejectBeyondClock, ""},
	}
	for _, tc := range tests {
		if got := SurfaceFlingerRowReject(tc.f, tc.prev, tc.clock); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if got := SurfaceFlingerRowReject(tc.f, tc.prev, 0); got != tc.wantNoClockB {
			t.Errorf("%s without a clock: %q, want %q", tc.name, got, tc.wantNoClockB)
		}
	}
}

func TestSurfaceFlingerLatencyRejects(t *testing.T) {
	l, err := ParseSurfaceFlingerLatency([]byte("16666667\n0\t0\t0\n1\t100\t90\n2\t90\t95\n3\t9223372036854775807\t99\n4\t120\t110\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := FrameRejects{FrameRejectEmpty: 1, FrameRejectBackwards: 1, FrameRejectPendingFence: 1}
	if len(l.Rows) != 5 || len(l.Frames) != 2 || !maps.Equal(l.Rejected, want) || l.Dropped != 3 {
		t.Errorf("rows %d frames %v rejected %v dropped %d", len(l.Rows), l.Frames, l.Rejected, l.Dropped)
	}
	zeros, err := ParseSurfaceFlingerLatency(fixtures.Read(t, "sf_latency/mobileperf_pixel2_android8_zeros_excerpt.txt"))
	if err != nil || !maps.Equal(zeros.Rejected, FrameRejects{FrameRejectEmpty: 4}) {
		t.Errorf("zeros: %v %v", zeros.Rejected, err)
	}
}

func TestFrameRejects(t *testing.T) {
	r := FrameRejects{}
	r.Add("")
	r.Add(FrameRejectFlags)
	r.Add(FrameRejectFlags)
	r.Add(FrameRejectBeyondClock)
	if r.Total() != 3 || len(r) != 2 || strings.Join(rejectStrings(r.Reasons()), ",") != "beyond_clock,flags" {
		t.Errorf("%v total %d reasons %v", r, r.Total(), r.Reasons())
	}
}
