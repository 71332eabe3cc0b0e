package frames

import (
	"maps"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/android/gfxinfo"
)

// TestGfxInfoFramesOfRealCapture judges the windows of real captures. The
// expected counts were taken from the capture text with awk (Flags ≠ 0;
// FrameCompleted 0; FrameCompleted past the Uptime line; FrameCompleted
// before IntendedVsync), not with this package.
func TestGfxInfoFramesOfRealCapture(t *testing.T) {
	type counts struct {
		frames  int
		rejects gfxinfo.Rejects
	}
	tests := map[string]map[string]counts{
		"gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt": {
			"SettingsHomepageActivity": {32, gfxinfo.Rejects{gfxinfo.RejectFlags: 33, gfxinfo.RejectBeyondClock: 2}},
			"SubSettings":              {19, gfxinfo.Rejects{gfxinfo.RejectFlags: 61}},
			"SpaActivity":              {38, gfxinfo.Rejects{gfxinfo.RejectFlags: 81, gfxinfo.RejectNotCompleted: 1}},
			"RecentsActivity":          {115, gfxinfo.Rejects{gfxinfo.RejectFlags: 1, gfxinfo.RejectCompletedBeforeVsync: 4}},
			"ScreenDecorOverlay/":      {17, gfxinfo.Rejects{gfxinfo.RejectFlags: 2, gfxinfo.RejectNotCompleted: 1, gfxinfo.RejectBeyondClock: 1}},
			"NotificationShade":        {103, gfxinfo.Rejects{gfxinfo.RejectFlags: 15, gfxinfo.RejectCompletedBeforeVsync: 2}},
			"andronavibar":             {116, gfxinfo.Rejects{gfxinfo.RejectFlags: 4}},
		},
		"gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt": {
			"MainActivity": {120, gfxinfo.Rejects{}},
		},
	}
	for file, windows := range tests {
		g := gfxFixture(t, file)
		for _, w := range g.Windows() {
			for name, want := range windows {
				if !strings.Contains(w.Label(), name) || w.Frames == nil {
					continue
				}
				frames, rejects := gfxinfo.FramesOf(w.Frames, g.ClockNs())
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
		for _, frames := range [][]gfxinfo.FrameStats{UsableGfxInfo(w.Frames.Frames()), first(gfxinfo.FramesOf(w.Frames, g.ClockNs()))} {
			s := SummarizeGfxInfo(frames, w.Frames.RefreshPeriod())
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
		f := gfxinfo.FrameStats{IntendedVsync: 100 * ms, FrameDeadline: d, FrameCompleted: 110 * ms}
		if MissedDeadline(f, r) {
			t.Errorf("deadline %d is not a deadline: a 10 ms frame at 60 Hz is on time", d)
		}
	}
}
