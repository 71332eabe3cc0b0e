package simdevice

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/internal/fixtures"
)

const anavmode = "gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt"

// TestReplayPlaysCapture plays the Settings section of the Android 14 tablet
// capture and checks what a dump shows while it plays and at its end.
func TestReplayPlaysCapture(t *testing.T) {
	capture := fixtures.Read(t, anavmode)
	w, clk := newTestWorld(t, Config{Replay: &Replay{Capture: capture, Package: "com.android.settings"}})
	if _, ok := w.ReplayEnd(); ok {
		t.Fatal("the replay started before anyone asked gfxinfo")
	}
	if pid := wdumpsysPidof(t, w); pid != "1955" {
		t.Errorf("pidof %q, want the capture's pid 1955", pid)
	}
	first := wdumpsys(w, "gfxinfo", "com.android.settings", "framestats")
	g, err := gfxinfo.Parse([]byte(first))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(g.Windows()); n != 3 || g.Windows()[0].Frames.Len() != 0 || !strings.Contains(first, "Memory policy:") {
		t.Fatalf("at the start: %d windows, rows %d; the section's text:\n%s", n, g.Windows()[0].Frames.Len(), first)
	}
	end, ok := w.ReplayEnd()
	if !ok {
		t.Fatal("no end")
	}
	rows, _ := w.ReplayRows()
	// The SpaActivity row that never completes: find its time, and look at
	// a dump taken just after it appeared.
	var stuck ReplayRow
	for _, r := range rows {
		if strings.Contains(r.Window, "SpaActivity") && r.Row == 31 {
			stuck = r
		}
	}
	if stuck.FrameCompleted != 0 || stuck.IntendedVsync-25828699661927 != rows[0].IntendedVsync-25821299661779 {
		t.Fatalf("stuck row %+v", stuck)
	}
	clk.advance(time.Duration(stuck.AppearNs-int64(w.Uptime())) + 5*time.Millisecond)
	mid, err := gfxinfo.Parse([]byte(wdumpsys(w, "gfxinfo", "com.android.settings", "framestats")))
	if err != nil {
		t.Fatal(err)
	}
	spa := mid.Windows()[2].Frames
	if spa.Len() != 32 || spa.Frame(31).FrameCompleted != 0 || spa.Frame(31).IntendedVsync != stuck.IntendedVsync {
		t.Errorf("SpaActivity while row 32 draws: %d rows, last %+v", spa.Len(), spa.Frame(spa.Len()-1))
	}
	// At the end every row reads as captured, moved by one offset.
	clk.advance(end - w.Uptime() + time.Second)
	last, err := gfxinfo.Parse([]byte(wdumpsys(w, "gfxinfo", "com.android.settings", "framestats")))
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := gfxinfo.Parse(capture)
	var want []*gfxinfo.Window
	for _, ow := range orig.Windows() {
		if strings.HasPrefix(ow.Label(), "com.android.settings/") {
			want = append(want, ow)
		}
	}
	shift := rows[0].IntendedVsync - 25821299661779
	for i, lw := range last.Windows() {
		ft, wt := lw.Frames, want[i].Frames
		if lw.Label() != want[i].Label() || ft.Len() != wt.Len() {
			t.Fatalf("window %d: %q %d rows, capture %q %d", i, lw.Label(), ft.Len(), want[i].Label(), wt.Len())
		}
		for r := 0; r < ft.Len(); r++ {
			got, w := ft.Frame(r), wt.Frame(r)
			mv := func(v int64) int64 {
				if v > 0 && v < 26045845e6 {
					return v + shift
				}
				return v
			}
			if got.Flags != w.Flags || got.IntendedVsync != mv(w.IntendedVsync) || got.FrameCompleted != mv(w.FrameCompleted) ||
				got.DisplayPresentTime != mv(w.DisplayPresentTime) || got.FrameInterval != w.FrameInterval {
				t.Fatalf("window %d row %d: %+v, capture %+v (shift %d)", i, r, got, w, shift)
			}
		}
	}
	// A reset clears the rows shown so far.
	wdumpsys(w, "gfxinfo", "com.android.settings", "reset")
	after, _ := gfxinfo.Parse([]byte(wdumpsys(w, "gfxinfo", "com.android.settings", "framestats")))
	if n := after.Windows()[0].Frames.Len(); n != 0 {
		t.Errorf("%d rows after a reset", n)
	}
}

func wdumpsysPidof(t *testing.T, w *World) string {
	t.Helper()
	var o, e bytes.Buffer
	w.Pidof([]string{"com.android.settings"}, &o, &e)
	return strings.TrimSpace(o.String())
}

func TestReplayErrors(t *testing.T) {
	capture := fixtures.Read(t, anavmode)
	for _, tc := range []struct {
		r    Replay
		want string
	}{
		{Replay{Capture: capture}, "name one"},
		{Replay{Capture: capture, Package: "com.nope"}, `"com.nope"`},
		{Replay{Capture: capture, Package: "com.android.settings", Speed: 1000}, "speed"},
		{Replay{Capture: fixtures.Read(t, "gfxinfo_framestats/solox249_android13plus_profiledata_excerpt.txt")}, "Uptime"},
		{Replay{Capture: []byte("** Graphics info for pid 5 [a.b] **\nFlags,\n")}, "no PROFILEDATA rows"},
	} {
		_, err := New(Config{Replay: &tc.r})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error saying %q", tc.r.Package, err, tc.want)
		}
	}
}

func FuzzReplay(f *testing.F) {
	f.Add(fixtures.Read(f, "gfxinfo_framestats/soundvis_120hz_android13plus_idle.txt"))
	f.Add(fixtures.Read(f, "gfxinfo_framestats/yuvaupdate_reactnative_android12plus_utf16le.txt"))
	f.Add([]byte("Uptime: 100 Realtime: 100\n** Graphics info for pid 5 [a.b] **\n---PROFILEDATA---\nFlags,IntendedVsync,SyncStart,FrameCompleted,\n0,50,60,0,\n0,90,40,95,\n---PROFILEDATA---\n---PROFILEDATA---\n\n---PROFILEDATA---\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rp, err := newReplay(&Replay{Capture: in})
		if err != nil {
			return
		}
		rp.start(11_000_000_000_000)
		var b strings.Builder
		rp.dump(&b, 11_000_000_000_000+rp.endNs-rp.firstApp+int64(replayLeadIn)+1)
		g, err := gfxinfo.Parse([]byte(b.String()))
		if err != nil {
			t.Fatalf("the replay's last dump does not parse: %v\n%s", err, b.String())
		}
		n := 0
		for _, w := range g.Windows() {
			if w.Frames != nil {
				n += w.Frames.Len()
			}
		}
		if rows := rp.rows(); n != len(rows) && len(rows) <= gfxRingFrames {
			t.Fatalf("the last dump shows %d rows of %d", n, len(rows))
		}
	})
}
