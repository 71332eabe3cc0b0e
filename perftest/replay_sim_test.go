package perftest_test

import (
	"fmt"
	"maps"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// replayCaptures are the gfxinfo captures of ../shared/fixtures with at
// least 20 PROFILEDATA rows for one app, and the app.
var replayCaptures = []struct{ file, pkg string }{
	{"gfxinfo_framestats/anavmode_all_processes_topicon_t865_60hz.txt", "com.android.settings"},
	{"gfxinfo_framestats/soundvis_120hz_android13plus_idle.txt", "com.soundvisualization.accessibility"},
	{"gfxinfo_framestats/soundvis_120hz_android13plus_scroll.txt", "com.soundvisualization.accessibility"},
}

// TestRecordReplayedCaptures records real captures played live by the
// simulated phone, on the bubble's clock. Every
// row of the capture must end up once, either as a frame (the rows the
// rule of metrics finds to be frames in the capture as saved, with the same
// values) or counted under the reason that rule gives; none lost, none
// doubled, none invented. The anavmode Settings windows hold the rows of
// the issue: a row that never completes (SpaActivity) and two completed at
// 288234774265332736 (SettingsHomepageActivity).
func TestRecordReplayedCaptures(t *testing.T) {
	t.Parallel()
	for _, c := range replayCaptures {
		t.Run(c.file[strings.LastIndexByte(c.file, '/')+1:], func(t *testing.T) {
			t.Parallel()
			simtest.FakeClock(t, func(t *testing.T) ([]string, bool) { return replayRun(t, c.file, c.pkg) })
		})
	}
}

func replayRun(t *testing.T, file, pkg string) (problems []string, stalled bool) {
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	capture := fixtures.Read(t, file)
	dev, err := simdevice.New(simdevice.Config{Serial: "sim-replay", Replay: &simdevice.Replay{Capture: capture, Package: pkg, Speed: 4}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	d, _ := openHost(t, dev, nil)
	w := dev.World()
	var ticks atomic.Int64
	s := perftest.Start(t, d, perftest.App(pkg), perftest.WithResultsDir(t.TempDir()),
		perftest.WithCollectors(perftest.CollectFrames), perftest.WithFrameSource(perftest.SourceGfxInfo),
		func(c *perftest.Config) { c.OnTick = func(result.Live) { ticks.Add(1) } })
	end, ok := w.ReplayEnd()
	if !ok {
		t.Fatal("the session's reset did not start the replay")
	}
	// Past the last row, and past the wait for rows still drawing.
	waitFor(t, "the replay's end", func() bool { return w.Uptime() > end+3*time.Second })
	tick := ticks.Load()
	waitFor(t, "polls after the end", func() bool { return ticks.Load() > tick+3 })
	r := s.Stop()
	stalled = len(r.Gaps) > 0

	// The verdict of each row in the capture as saved.
	g, err := gfxinfo.Parse(capture)
	if err != nil {
		t.Fatal(err)
	}
	verdict := map[string][]gfxinfo.Reject{}
	for _, p := range g.Processes {
		if p.Package != pkg {
			continue
		}
		for _, win := range p.Windows {
			if win.Frames != nil {
				verdict[win.Label()] = gfxinfo.Judge(win.Frames.Frames(), g.ClockNs())
			}
		}
	}
	rows, _ := w.ReplayRows()
	type key struct {
		window string
		vsync  int64
	}
	wantFrames := map[key]simdevice.ReplayRow{}
	wantRejects := gfxinfo.Rejects{}
	for _, row := range rows {
		if row.Hidden {
			fail("row %+v was cleared by a reset", row)
			continue
		}
		if v := verdict[row.Window][row.Row]; v != "" {
			wantRejects.Add(v)
			continue
		}
		wantFrames[key{row.Window, row.IntendedVsync}] = row
	}
	got := map[key]int{}
	for _, f := range r.Frames {
		k := key{f.Window, f.IntendedVsync}
		got[k]++
		switch want, ok := wantFrames[k]; {
		case !ok:
			fail("invented frame %+v", f)
		case got[k] == 2:
			fail("frame %+v taken twice", f)
		case f.FrameCompleted != want.FrameCompleted:
			fail("frame %+v, the capture's row completes at %d", f, want.FrameCompleted)
		}
	}
	for k, row := range wantFrames {
		if got[k] == 0 {
			fail("lost row %d of %s (vsync %d)", row.Row, row.Window, row.IntendedVsync)
		}
	}
	if !maps.Equal(r.FramesRejected, wantRejects) && !(len(r.FramesRejected) == 0 && len(wantRejects) == 0) {
		fail("rejected %v, the capture's rows %v", r.FramesRejected, wantRejects)
	}
	if strings.Contains(file, "anavmode") {
		named := false
		for _, rf := range r.RejectedFrames {
			named = named || strings.Contains(rf.Window, "SpaActivity") && rf.Reason == string(gfxinfo.RejectNotCompleted)
		}
		if !named || wantRejects[gfxinfo.RejectNotCompleted] != 1 || wantRejects[gfxinfo.RejectBeyondClock] != 2 {
			fail("the stuck SpaActivity row is not named: %+v", r.RejectedFrames)
		}
	}
	if len(r.Gaps) > 0 || r.Error != "" {
		fail("gaps %+v error %q", r.Gaps, r.Error)
	}
	t.Logf("%d frames, rejected %v", len(r.Frames), r.FramesRejected)
	return problems, stalled
}
