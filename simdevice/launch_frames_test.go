package simdevice

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/gfxinfo"
)

// A launch draws the new window's first frame, done at Displayed, as
// ActivityMetricsLogger reports it once the window is drawn: its row in
// gfxinfo carries Flags 1 (WindowLayoutChanged), SurfaceFlinger presents
// it, and the launch phase's frames follow it. Each kind of launch does,
// and a new process's gfxinfo starts with it.
func TestLaunchDrawsFirstFrame(t *testing.T) {
	w, clk := newTestWorld(t, Config{Workload: mustPreset(t, "smooth-scroll")})
	start := func() {
		var o, e bytes.Buffer
		if st := w.Am(context.Background(), []string{"start", "-W", "-n", PresetPackage + "/.MainActivity"}, &o, &e); st != 0 {
			t.Fatalf("am start: %d %s", st, e.String())
		}
		clk.advance(100 * time.Millisecond)
	}
	start() // cold
	w.Screen().Key(4)
	clk.advance(300 * time.Millisecond)
	start() // warm
	w.Screen().Key(3)
	clk.advance(300 * time.Millisecond)
	start() // hot
	ups := w.Truth().Startups
	if len(ups) != 3 {
		t.Fatalf("startups %+v, want cold, warm and hot", ups)
	}
	truth := w.TruthFrames()
	for _, up := range ups {
		var first []TruthFrame
		after := 0
		for _, f := range truth {
			switch {
			case f.First && f.IntendedVsync >= up.StartNs && f.IntendedVsync < up.DisplayedNs:
				first = append(first, f)
			case !false && f.IntendedVsync >= up.DisplayedNs && f.IntendedVsync < up.DisplayedNs+int64(100*time.Millisecond):
				after++
			}
		}
		if len(first) != 1 {
			t.Errorf("%s launch (%v): %d first frames, want 1", up.Kind, up.Displayed, len(first))
			continue
		}
		f := first[0]
		if f.Completed != up.DisplayedNs-latchNs || f.Present != w.gridAtOrAfter(up.DisplayedNs) || f.Pid != up.Pid || f.Reject != string(gfxinfo.RejectFlags) || f.Duration < 2*int64(w.RefreshPeriod()) {
			t.Errorf("%s launch: first frame %+v; want done a latch before Displayed %d, shown on the next vsync, by pid %d, 2 periods or more, rejected for its flags", up.Kind, f, up.DisplayedNs, up.Pid)
		}
		if after == 0 {
			t.Errorf("%s launch: no frame in the 100 ms after Displayed", up.Kind)
		}
		if up.Kind == "COLD" {
			coldFirst(t, w, f)
		}
	}
}

// coldFirst checks a cold launch's first frame is the new process's first
// gfxinfo row, flagged, and a SurfaceFlinger present.
func coldFirst(t *testing.T, w *World, f TruthFrame) {
	t.Helper()
	info, err := gfxinfo.Parse([]byte(wdumpsys(w, "gfxinfo", PresetPackage, "framestats")))
	if err != nil {
		t.Fatal(err)
	}
	p := info.Processes[0]
	ft := p.Windows[0].Frames
	if row := ft.Frame(0); ft.Len() == 0 || row.Flags != 1 || row.IntendedVsync != f.IntendedVsync {
		t.Errorf("pid %d's first gfxinfo row %+v; want Flags 1 at %d", p.PID, row, f.IntendedVsync)
	}
	sf := wdumpsys(w, "SurfaceFlinger", "--latency", w.appLayer())
	if !strings.Contains(sf, fmt.Sprintf("\t%d\t", f.Present)) {
		t.Errorf("SurfaceFlinger shows no present at %d:\n%.300s", f.Present, sf)
	}
}
