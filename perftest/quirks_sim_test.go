package perftest_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// hostileFrames switches on every gfxinfo quirk of the real captures.
var hostileFrames = simdevice.FrameQuirks{
	InFlight: true, StuckEvery: 37, LateEvery: 23, LateMs: 300, GarbageEvery: 41, SentinelEvery: 43,
	StaleEvery: 47, FlaggedEvery: 7, TwinEvery: 11, NoVsyncIDEvery: 13, StalePresentEvery: 17, PopupEvery: 3,
}

// quirkySim builds a phone running janky-scroll with frame quirks.
func quirkySim(t testing.TB, q simdevice.FrameQuirks, hz float64, api int) *simdevice.Device {
	t.Helper()
	wl, err := simdevice.Preset("janky-scroll")
	if err != nil {
		t.Fatal(err)
	}
	wl.FrameQuirks = q
	dev, err := simdevice.New(simdevice.Config{API: api, RefreshHz: hz, Workload: simtest.QuickStart(wl), Serial: "sim-quirks"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// waitFor polls cond until it holds; the test fails after a minute.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// quirkSession records one step that lasts until the rows the phone drew
// in it (those whose IntendedVsync falls after the step began) satisfy
// enough, then lets the device run settle more and five more ticks before
// stopping, so every row of the step is settled: gfxinfo's wait for rows
// still drawing is 2 s of device time and three polls (settleStuck);
// SurfaceFlinger's fences are pending for the time the quirk says.
func quirkSession(t *testing.T, d *adbx.Device, dev *simdevice.Device, enough func([]simdevice.TruthFrame) bool, settle time.Duration, opts ...perftest.Option) *result.Result {
	t.Helper()
	var ticks atomic.Int64
	w := dev.World()
	opts = append([]perftest.Option{perftest.App(pkg), perftest.WithResultsDir(t.TempDir()), perftest.WithCollectors(perftest.CollectFrames)}, opts...)
	opts = append(opts, func(c *perftest.Config) { c.OnTick = func(result.Live) { ticks.Add(1) } })
	s := perftest.Start(t, d, opts...)
	s.Step("quirks", func() {
		start := int64(w.Uptime())
		waitFor(t, "the rows the step needs", func() bool {
			return enough(slices.DeleteFunc(w.TruthFrames(), func(f simdevice.TruthFrame) bool { return f.IntendedVsync < start }))
		})
	})
	end, tick := w.Uptime(), ticks.Load()
	waitFor(t, "the rows of the step to settle", func() bool { return w.Uptime() > end+settle && ticks.Load() > tick+5 })
	return s.Stop()
}

// settleStuck outlasts the wait for a gfxinfo row still drawing: 2 s of
// device time.
const settleStuck = 3 * time.Second

// atLeast is enough rows for a step that needs n of them.
func atLeast(n int) func([]simdevice.TruthFrame) bool {
	return func(fs []simdevice.TruthFrame) bool { return len(fs) >= n }
}

// TestFrameQuirksMatchTruth records a phone printing every kind of hostile
// frame row seen on real phones and compares the step with the phone's own
// account of each row: the frames taken are exactly the rows that are
// frames (none lost, none twice, none invented), and the other rows are
// counted under the reason the phone says.
func TestFrameQuirksMatchTruth(t *testing.T) {
	t.Parallel()
	for _, api := range []int{33, 28} {
		t.Run(fmt.Sprintf("api%d", api), func(t *testing.T) {
			t.Parallel()
			if testing.Short() && api != 33 {
				t.Skip("short mode: API 33 only")
			}
			simtest.FakeClock(t, func(t *testing.T) ([]string, bool) { return quirkRun(t, api) })
		})
	}
}

func quirkRun(t *testing.T, api int) (problems []string, stalled bool) {
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	dev := quirkySim(t, hostileFrames, 120, api)
	d, _ := openHost(t, dev, nil)
	launch(t, d, dev)
	// The quirks fall on frame numbers, and a popup's frame takes a number
	// too, so which of them a given count of rows holds varies: the step
	// lasts until it holds every one.
	r := quirkSession(t, d, dev, func(fs []simdevice.TruthFrame) bool {
		seen := map[string]bool{}
		for _, f := range fs {
			seen[f.Reject] = true
			seen["twin"] = seen["twin"] || f.Twin
			seen["late"] = seen["late"] || f.ShownCompletedNs > 0
			seen["popup"] = seen["popup"] || strings.HasPrefix(f.Window, "PopupWindow:")
		}
		return len(fs) >= 160 && seen["twin"] && seen["late"] && seen["popup"] && seen[string(gfxinfo.RejectNotCompleted)] &&
			seen[string(gfxinfo.RejectBeyondClock)] && seen[string(gfxinfo.RejectSentinel)] &&
			seen[string(gfxinfo.RejectCompletedBeforeVsync)] && seen[string(gfxinfo.RejectFlags)]
	}, settleStuck, perftest.WithFrameSource(perftest.SourceGfxInfo))
	stalled = len(r.Gaps) > 0 || lateRowsUnseen(r, 120, hostileFrames.LateMs)
	st := r.Step("quirks")
	truth := dev.World().TruthFrames()

	type key struct {
		window string
		vsync  int64
	}
	wantFrames := map[key]simdevice.TruthFrame{}
	wantRejects := gfxinfo.Rejects{}
	var mainFrames []simdevice.TruthFrame
	quirks := map[string]int{}
	for _, f := range truth {
		if f.IntendedVsync < st.DeviceStartNs || f.IntendedVsync >= st.DeviceEndNs {
			continue
		}
		if f.Twin {
			wantRejects.Add(gfxinfo.RejectFlags)
			quirks["twin"]++
		}
		if f.ShownCompletedNs > 0 {
			quirks["late"]++
		}
		if f.Reject != "" {
			wantRejects.Add(gfxinfo.Reject(f.Reject))
			continue
		}
		wantFrames[key{f.Window, f.IntendedVsync}] = f
		if !strings.HasPrefix(f.Window, "PopupWindow:") {
			mainFrames = append(mainFrames, f)
		} else {
			quirks["popup"]++
		}
	}
	// Every quirk happened in the step.
	for _, r := range []gfxinfo.Reject{gfxinfo.RejectNotCompleted, gfxinfo.RejectBeyondClock, gfxinfo.RejectSentinel,
		gfxinfo.RejectCompletedBeforeVsync, gfxinfo.RejectFlags} {
		if wantRejects[r] == 0 {
			fail("no %s row in the step", r)
		}
	}
	if quirks["twin"] == 0 || quirks["late"] == 0 || quirks["popup"] == 0 {
		fail("quirks in the step: %v", quirks)
	}
	got := map[key]int{}
	for _, f := range r.Frames {
		if f.Time() < st.DeviceStartNs || f.Time() >= st.DeviceEndNs {
			continue
		}
		window, _, _ := strings.Cut(f.Window, "/android.view.ViewRootImpl@")
		k := key{window, f.IntendedVsync}
		got[k]++
		tf, ok := wantFrames[k]
		switch {
		case !ok:
			fail("invented frame %+v", f)
		case got[k] > 1:
			fail("frame %+v taken twice", f)
		case f.FrameCompleted != tf.Completed:
			fail("frame %+v, truth completed %d", f, tf.Completed)
		}
	}
	lost := 0
	for k := range wantFrames {
		if got[k] == 0 {
			if lost++; lost <= 3 {
				fail("lost frame %+v", wantFrames[k])
			}
		}
	}
	if !maps.Equal(st.FramesRejected, wantRejects) {
		fail("rejected %v, truth %v", st.FramesRejected, wantRejects)
	}
	want := expectedSummary(mainFrames, int64(dev.World().RefreshPeriod()), false, api)
	gotS := st.Frames()
	gotS.Window = ""
	if !reflect.DeepEqual(gotS, want) {
		fail("summary\n got %+v\nwant %+v", gotS, want)
	}
	if len(r.Gaps) > 0 || r.Error != "" {
		fail("gaps %+v error %q", r.Gaps, r.Error)
	}
	return problems, stalled
}

// lateRowsUnseen reports whether two consecutive polls of r may have been
// far enough apart that a late row, which shows FrameCompleted 0 for lateMs
// after its frame is presented, left the ring before any poll saw it
// complete. The ring holds 120 rows, a few of them frames still in flight,
// so a row stays in it a little less than 120 periods. The session cannot
// tell such a row from one stuck for good, and neither can anyone reading
// the phone: the run stalled, as one with gaps did. Each poll's dump
// happened somewhere within its round trip.
func lateRowsUnseen(r *result.Result, hz float64, lateMs int) bool {
	stay := time.Duration(float64(time.Second) * (120 - 4) / hz)
	for i := 1; i < len(r.Samples); i++ {
		a, b := r.Samples[i-1], r.Samples[i]
		if time.Duration(b.HostNs+b.RTTNs/2-(a.HostNs-a.RTTNs/2)) > stay-time.Duration(lateMs)*time.Millisecond {
			return true
		}
	}
	return false
}

// TestSurfaceFlingerQuirksMatchTruth: pending fences (B = INT64_MAX for the
// newest frames) and INT64_MAX in columns A and C lose no frame; a layer
// that prints only empty rows or only its period gives no frame and says so.
func TestSurfaceFlingerQuirksMatchTruth(t *testing.T) {
	t.Parallel()
	t.Run("pending", func(t *testing.T) {
		t.Parallel()
		simtest.Bubble(t, sfPending)
	})
	for _, rows := range []string{"zeros", "period_only"} {
		t.Run(rows, func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) { sfEmpty(t, rows) })
		})
	}
}

// sfPending is TestSurfaceFlingerQuirksMatchTruth's case of pending fences.
func sfPending(t *testing.T) {
	dev := quirkySim(t, simdevice.FrameQuirks{SFPendingMs: 200, SFSentinelAC: true}, 60, 33)
	d, _ := openHost(t, dev, nil)
	launch(t, d, dev)
	// The fences of the step's last frames signal 200 ms after.
	r := quirkSession(t, d, dev, atLeast(150), time.Second, perftest.WithFrameSource(perftest.SourceSurfaceFlinger))
	st := r.Step("quirks")
	want := map[int64]bool{}
	for _, f := range dev.World().TruthFrames() {
		if f.SFActual >= st.DeviceStartNs && f.SFActual < st.DeviceEndNs {
			want[f.SFActual] = true
		}
	}
	got := 0
	for _, f := range r.Frames {
		if f.Time() >= st.DeviceStartNs && f.Time() < st.DeviceEndNs {
			got++
			if !want[f.ActualPresent] || f.DesiredPresent != 1<<63-1 {
				t.Errorf("frame %+v is not a true one as the layer prints it", f)
			}
		}
	}
	if got != len(want) || len(r.FramesRejected) != 0 || len(r.Gaps) != 0 {
		t.Errorf("%d frames, truth %d; rejected %v; gaps %+v", got, len(want), r.FramesRejected, r.Gaps)
	}
}

// sfEmpty is TestSurfaceFlingerQuirksMatchTruth's case of a layer that
// prints rows (zeros, period_only) without a frame.
func sfEmpty(t *testing.T, rows string) {
	dev := quirkySim(t, simdevice.FrameQuirks{SFRows: rows}, 60, 33)
	d, _ := openHost(t, dev, nil)
	launch(t, d, dev)
	// Nothing is pending: the rows are all empty, or none.
	r := quirkSession(t, d, dev, atLeast(30), 0, perftest.WithFrameSource(perftest.SourceSurfaceFlinger))
	want := map[string]string{"zeros": "only empty rows", "period_only": "only the refresh period line"}[rows]
	if len(r.Frames) != 0 || len(r.FramesRejected) != 0 || !strings.Contains(strings.Join(r.Notes, "\n"), want) {
		t.Errorf("%d frames, rejected %v, notes %q; want none and a note saying %q", len(r.Frames), r.FramesRejected, r.Notes, want)
	}
}
