package frames

import (
	"encoding/json"
	"maps"
	"testing"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func TestFramePhasesOfCaptures(t *testing.T) {
	// Phases of every Flags-0 row of real captures: how many divide, and
	// which phase dominates how many frames. Rows that do not divide are
	// rows still drawing (FrameCompleted 0) or a ring slot's stale value.
	tests := []struct {
		file      string
		ok, notOK int
		dominant  map[Phase]int
	}{
		{"gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt", 120, 0,
			map[Phase]int{PhaseAnimation: 110, PhaseCommands: 4, PhaseWait: 6}},
		{"gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt", 760, 8,
			map[Phase]int{PhaseAnimation: 24, PhaseCommands: 203, PhaseDraw: 50, PhaseLayout: 50, PhaseSwap: 269, PhaseSync: 60, PhaseWait: 104}},
		{"gfxinfo_framestats/labaffinity_blog_api23_rows_with_input_events.txt", 4, 0, map[Phase]int{PhaseInput: 4}},
		{"gfxinfo_framestats/androidviewclient_test_api23_rows_with_placeholders.txt", 2, 0, map[Phase]int{PhaseWait: 2}},
		{"gfxinfo_framestats/yuvaupdate_reactnative_android12plus_utf16le.txt", 2, 0, map[Phase]int{PhaseAnimation: 1, PhaseLayout: 1}},
		{"gfxinfo_framestats/solox249_android13plus_profiledata_excerpt.txt", 2, 0, map[Phase]int{PhaseSwap: 2}},
	}
	for _, tt := range tests {
		g, err := gfxinfo.Parse(fixtures.Read(t, tt.file))
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		ok, notOK := 0, 0
		dom := map[Phase]int{}
		for _, w := range g.Windows() {
			if w.Frames == nil {
				continue
			}
			for _, f := range w.Frames.Frames() {
				if f.Flags != 0 {
					continue
				}
				p, divided := PhasesOf(f)
				if !divided {
					notOK++
					continue
				}
				ok++
				dom[p.Dominant()]++
				if p.Total() != f.Duration() {
					t.Errorf("%s: phases %v add up to %d, duration %d", tt.file, p, p.Total(), f.Duration())
				}
			}
		}
		if ok != tt.ok || notOK != tt.notOK || !maps.Equal(dom, tt.dominant) {
			t.Errorf("%s: %d divided, %d not, dominant %v; want %d, %d, %v", tt.file, ok, notOK, dom, tt.ok, tt.notOK, tt.dominant)
		}
	}
}

func TestFramePhasesOfRow(t *testing.T) {
	// A row of round numbers, each stage after the one before.
	f := gfxinfo.FrameStats{IntendedVsync: 1000, HandleInputStart: 1100, AnimationStart: 1150, PerformTraversalsStart: 1400,
		DrawStart: 1900, SyncQueued: 3000, SyncStart: 3010, IssueDrawCommandsStart: 3100, SwapBuffers: 3600, FrameCompleted: 3700}
	p, ok := PhasesOf(f)
	want := Phases{100, 50, 250, 500, 1100, 100, 500, 100}
	if !ok || p != want || p.Dominant() != PhaseDraw {
		t.Fatalf("FramePhasesOf = %v, %v (dominant %s); want %v, draw", p, ok, p.Dominant(), want)
	}
	for _, bad := range []func(*gfxinfo.FrameStats){
		func(f *gfxinfo.FrameStats) { f.DrawStart = 0 },                           // a header without the column
		func(f *gfxinfo.FrameStats) { f.SwapBuffers = 3800 },                      // after FrameCompleted
		func(f *gfxinfo.FrameStats) { f.FrameCompleted = frameInt64Max },          // sentinel
		func(f *gfxinfo.FrameStats) { f.HandleInputStart = 900 },                  // before the vsync
		func(f *gfxinfo.FrameStats) { f.IntendedVsync = -5 },                      // negative
		func(f *gfxinfo.FrameStats) { f.AnimationStart = f.HandleInputStart - 1 }, // backwards
	} {
		g := f
		bad(&g)
		if p, ok := PhasesOf(g); ok {
			t.Errorf("FramePhasesOf(%+v) = %v, want not ok", g, p)
		}
	}
	b, err := json.Marshal(want)
	if err != nil || string(b) != `{"wait":0,"input":0,"animation":0,"layout":0.001,"draw":0.001,"sync":0,"commands":0.001,"swap":0}` {
		t.Errorf("json %s, %v", b, err)
	}
	ms := Phases{1_250_000, 0, 0, 30_000_000, 0, 0, 0, 4_000_000}
	b, _ = json.Marshal(ms)
	var back Phases
	if err := json.Unmarshal(b, &back); err != nil || back != ms {
		t.Errorf("round trip %s → %v, %v", b, back, err)
	}
}
