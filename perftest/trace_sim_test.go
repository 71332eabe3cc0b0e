package perftest_test

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
	"github.com/perfgate/perfgate/trace"
)

// traceJanks scrolls with every kind of jank a trace tells apart: slow
// frames whose main thread waits on binder, on storage or on a lock, or
// computes; frames SurfaceFlinger misses, and the frames queued behind
// them.
func traceJanks() []simdevice.Jank {
	return []simdevice.Jank{
		{Every: 30, Vsyncs: 4, Wait: simdevice.WaitBinder},
		{Every: 45, Ms: 80, Wait: simdevice.WaitIO},
		{Every: 50, Vsyncs: 5, Wait: simdevice.WaitLock},
		{Every: 70, Vsyncs: 3},
		{Every: 37, SurfaceFlinger: true},
	}
}

// traceSession records one step named "scroll", n ticks long, with a
// trace, on a phone of the given API level and quirks, on the bubble's
// clock (call it in a bubble): one run, where no host stalls past the
// phone's frame buffer or is too busy to poll it.
func traceSession(t *testing.T, api int, q simdevice.Quirks, n int, tc perftest.TraceConfig) (dev *simdevice.Device, r *result.Result, st *result.Step) {
	t.Helper()
	return traceSessionOf(t, traceJanks(), api, q, n, tc)
}

// traceSessionOf is traceSession on a scroll with the given janks.
func traceSessionOf(t *testing.T, janks []simdevice.Jank, api int, q simdevice.Quirks, n int, tc perftest.TraceConfig) (dev *simdevice.Device, r *result.Result, st *result.Step) {
	t.Helper()
	wl, err := simdevice.Preset("smooth-scroll")
	if err != nil {
		t.Fatal(err)
	}
	wl.Phases[0].Janks = janks
	var d *adbx.Device
	dev, d = simWorkload(t, wl, api, q)
	tk := newTicker()
	cfg := quirkConfig(t, tk)
	cfg.Trace = &tc
	r, early := tickStep(t, d, cfg, tk, "scroll", n)
	if early != "" || len(r.Gaps) > 0 {
		t.Fatalf("the session ended early (%q) or recorded gaps %+v on the fake clock", early, r.Gaps)
	}
	return dev, r, r.Step("scroll")
}

// traceTruth is the true frames of the app's main window that have a
// FrameTimeline entry in the trace.
func traceTruth(dev *simdevice.Device) []simdevice.TruthFrame {
	pkg := dev.Config().Workload.Package
	var out []simdevice.TruthFrame
	for _, f := range dev.World().TruthFrames() {
		if f.Window == pkg+"/"+pkg+".MainActivity" && f.Trace() != nil {
			out = append(out, f)
		}
	}
	return out
}

// The done-when test of Perfetto traces: on the simulated phone, the
// FrameTimeline jank types, main-thread states and top slices perfgate
// reads from the trace it recorded equal the phone's truth, frame by
// janky frame, and the step's frames are exactly the true frames due in
// it.
func TestTraceMatchesTruth(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, traceMatchesTruth)
}

// traceMatchesTruth is TestTraceMatchesTruth's body, on the bubble's clock.
func traceMatchesTruth(t *testing.T) {
	tc := perftest.TraceConfig{}
	dev, r, st := traceSession(t, 33, simdevice.Quirks{}, 40, tc)
	info := r.Trace
	if info == nil || info.File == "" {
		t.Fatalf("no trace: %+v", info)
	}
	if fi, err := os.Stat(info.File); err != nil || fi.Size() != info.SizeBytes || fi.Size() == 0 {
		t.Errorf("trace file %s: %v (size %d, Result says %d)", info.File, err, fi.Size(), info.SizeBytes)
	}
	if !strings.HasSuffix(info.File, ".perfetto-trace") || !strings.Contains(info.Open, trace.PerfettoUI) {
		t.Errorf("trace file %q, open %q", info.File, info.Open)
	}
	ts := st.Trace
	if ts == nil {
		t.Fatalf("no trace in the step: %s", st.NotMeasured[metrics.JankFrameTimeline])
	}
	if ts.Partial != "" || len(ts.NotMeasured) > 0 {
		t.Errorf("partial %q, not measured %v", ts.Partial, ts.NotMeasured)
	}

	// The truth: the app window's frames due in the step.
	var in []simdevice.TruthFrame
	for _, f := range traceTruth(dev) {
		if f.IntendedVsync >= st.DeviceStartNs && f.IntendedVsync < st.DeviceEndNs {
			in = append(in, f)
		}
	}
	truth := map[int64]simdevice.TruthFrame{}
	appJank, janky := 0, 0
	byType := map[string]int{}
	for _, f := range in {
		if !f.Trace().Jank.Janky() {
			continue
		}
		truth[f.VsyncID] = f
		janky++
		if f.Trace().Jank.App() {
			appJank++
		}
		for _, n := range f.Trace().Jank.Names() {
			byType[n]++
		}
	}
	if ts.Frames != len(in) || ts.Janky != janky || ts.AppJank != appJank || !reflect.DeepEqual(ts.ByType, byType) {
		t.Errorf("step: %d frames, %d janky, %d app jank, by type %v; truth %d, %d, %d, %v",
			ts.Frames, ts.Janky, ts.AppJank, ts.ByType, len(in), janky, appJank, byType)
	}
	kinds := map[string]int{}
	for _, jf := range ts.JankyFrames {
		f, ok := truth[jf.Token]
		if !ok {
			t.Errorf("frame %d is janky in the trace (%v), not in truth", jf.Token, jf.Jank)
			continue
		}
		delete(truth, jf.Token)
		tr := f.Trace()
		kinds[fmt.Sprintf("%v/%s", tr.Jank, f.Wait)]++
		if jf.Jank != tr.Jank || jf.Present != tr.Present || jf.App != tr.Jank.App() {
			t.Errorf("frame %d: %v, %v, app %v; truth %v, %v", jf.Token, jf.Jank, jf.Present, jf.App, tr.Jank, tr.Present)
		}
		if jf.MainThread == nil || *jf.MainThread != *tr.MainThread {
			t.Errorf("frame %d (%s): main thread %+v, truth %+v", jf.Token, f.Wait, jf.MainThread, tr.MainThread)
		}
		var got []simdevice.TruthSlice
		for _, s := range jf.Slices {
			got = append(got, simdevice.TruthSlice{Name: s.Name, DurNs: s.Dur()})
		}
		if !reflect.DeepEqual(got, tr.Slices) {
			t.Errorf("frame %d: slices %v, truth %v", jf.Token, got, tr.Slices)
		}
		// The frame perfgate polled for the same vsync.
		if jf.Polled == nil || jf.Polled.IntendedVsync != f.IntendedVsync || jf.Polled.FrameCompleted != f.Completed {
			t.Errorf("frame %d: polled %+v, truth vsync %d completed %d", jf.Token, jf.Polled, f.IntendedVsync, f.Completed)
		}
		if jf.DeviceStartNs != f.IntendedVsync || jf.DeviceEndNs != f.Completed {
			t.Errorf("frame %d on the device clock: [%d, %d), truth [%d, %d)", jf.Token, jf.DeviceStartNs, jf.DeviceEndNs, f.IntendedVsync, f.Completed)
		}
	}
	for tok, f := range truth {
		t.Errorf("frame %d (%v) janky in truth, not in the step's trace", tok, f.Trace().Jank)
	}
	for _, k := range []string{"App Deadline Missed/binder", "App Deadline Missed/io", "App Deadline Missed/lock", "App Deadline Missed/", "SurfaceFlinger CPU Deadline Missed/", "Buffer Stuffing/"} {
		if kinds[k] == 0 {
			t.Errorf("the step holds no janky frame of kind %q (have %v); the test wants every kind", k, kinds)
		}
	}
	if ts.Joined != len(in) {
		t.Errorf("%d of %d frames joined with a polled frame", ts.Joined, len(in))
	}
	if got := metric(t, st, metrics.JankFrameTimeline); got != float64(appJank) {
		t.Errorf("jank_frametimeline %v, truth %d", got, appJank)
	}
	// Deadline missed (gfxinfo) and FrameTimeline's app jank agree on this
	// phone: both judge the app's frames by the same deadline.
	if dm := metric(t, st, metrics.JankDeadlineMissed); dm != float64(appJank) {
		t.Errorf("deadline missed %v, FrameTimeline app jank %d", dm, appJank)
	}
	t.Logf("%d frames, %d janky (%v), app jank %d; trace %s, %d bytes", ts.Frames, ts.Janky, kinds, ts.AppJank, info.File, info.SizeBytes)
}

// A phone that cannot give a trace, or only part of one, says why, and
// everything else is still measured.
func TestTraceNotMeasured(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		api      int
		q        simdevice.Quirks
		recorded bool
		want     []string // in the step's reason for jank_frametimeline
		note     string   // in the Result's notes
	}{
		{name: "no perfetto", api: 33, q: simdevice.Quirks{MissingCommands: []string{"perfetto"}},
			want: []string{"trace: the device has no perfetto (command -v perfetto: exit status 1"}, note: "trace: not recorded: the device has no perfetto"},
		{name: "Android 9", api: 28,
			want: []string{"trace: Android API 28: perfgate records Perfetto traces on Android 10 (API 29) and later"}},
		{name: "Android 11", api: 30, recorded: true,
			want: []string{"trace: the trace has no FrameTimeline events (Android 12+"},
			note: "trace: FrameTimeline needs Android 12 (API 31); this device runs API 30"},
		{name: "no FrameTimeline data source", api: 33, q: simdevice.Quirks{MissingDataSources: []string{"android.surfaceflinger.frametimeline"}}, recorded: true,
			want: []string{"trace: the trace has no FrameTimeline events"},
			note: "trace: the device's tracing service has no data source android.surfaceflinger.frametimeline (perfetto --query does not list it): no jank types"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			simtest.Bubble(t, func(t *testing.T) {
				_, r, st := traceSession(t, tc.api, tc.q, 10, perftest.TraceConfig{})
				absent(t, st, []metrics.Name{metrics.JankFrameTimeline}, tc.want...)
				if got := r.Trace != nil && r.Trace.File != ""; got != tc.recorded {
					t.Errorf("trace recorded %v, want %v: %+v", got, tc.recorded, r.Trace)
				}
				if tc.recorded {
					// What the trace does hold is read: the main thread's
					// scheduling, the slices.
					if !slices.Contains(r.Trace.Sources, "sched") || !slices.Contains(r.Trace.Sources, "atrace") {
						t.Errorf("trace sources %v", r.Trace.Sources)
					}
				} else if r.Trace == nil || r.Trace.NotRecorded == "" {
					t.Errorf("no reason why the trace was not recorded: %+v", r.Trace)
				}
				if tc.note != "" && !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, tc.note) }) {
					t.Errorf("notes %q lack %q", r.Notes, tc.note)
				}
				for _, m := range []metrics.Name{metrics.FPS, metrics.Jank, metrics.CPU} {
					metric(t, st, m)
				}
			})
		})
	}
}

// The session as a whole has the trace's FrameTimeline too: every frame
// the trace holds of the app, the step's among them.
func TestTraceWholeSession(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		_, r, st := traceSession(t, 33, simdevice.Quirks{}, 10, perftest.TraceConfig{})
		w := r.Whole
		if w == nil || w.Trace == nil || w.Trace.Partial != "" {
			t.Fatalf("whole session trace %+v (%s)", w.Trace, w.NotMeasured[metrics.JankFrameTimeline])
		}
		if w.Trace.Frames < st.Trace.Frames || w.Trace.AppJank < st.Trace.AppJank {
			t.Errorf("the session has %d frames, %d app jank; its step %d, %d", w.Trace.Frames, w.Trace.AppJank, st.Trace.Frames, st.Trace.AppJank)
		}
		metric(t, w, metrics.JankFrameTimeline)
	})
}

// A trace that ends at MaxDuration, before the step does, covers only part
// of the step: its figures are no step's, and say so.
func TestTraceShorterThanStep(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		_, r, st := traceSession(t, 33, simdevice.Quirks{}, 25, perftest.TraceConfig{MaxDuration: time.Second})
		if r.Trace == nil || r.Trace.File == "" || st.Trace == nil {
			t.Fatalf("trace %+v, step %+v", r.Trace, st.Trace)
		}
		if !strings.Contains(st.Trace.Partial, "the trace ended") || !strings.Contains(st.Trace.Partial, "TraceConfig.MaxDuration 1s") {
			t.Errorf("partial %q", st.Trace.Partial)
		}
		absent(t, st, []metrics.Name{metrics.JankFrameTimeline}, "trace: covers only part of the step: the trace ended")
	})
}

// Through the stock adb server too: perfetto started and stopped by the
// shell, the file pulled with adb's sync service. Every frame of the trace
// is joined to a polled one, unless the host stalled past the phone's
// frame buffer: the polls then lost frames (the session says so in a gap),
// or too busy to poll it at all (the session ends as unreachable), and the
// test is skipped: a test of the real timing, on the wall clock.
func TestTraceThroughStockADB(t *testing.T) {
	t.Parallel()
	stock := stockServer(t)
	problems, stalled := func() (problems []string, stalled bool) {
		wl, err := simdevice.Preset("janky-scroll")
		if err != nil {
			t.Fatal(err)
		}
		dev := simConfig(t, simdevice.Config{API: 34, RefreshHz: 60, Workload: wl})
		d, _ := openStock(t, dev, stock)
		launch(t, d, dev)
		tk := newTicker()
		cfg := quirkConfig(t, tk)
		cfg.Trace = &perftest.TraceConfig{}
		r, ended := tickStep(t, d, cfg, tk, "scroll", 15)
		if ended != "" {
			return []string{ended}, true
		}
		st := r.Step("scroll")
		if r.Trace == nil || r.Trace.File == "" || st.Trace == nil || st.Trace.Frames == 0 {
			t.Fatalf("trace %+v, step %+v (%s)", r.Trace, st.Trace, st.NotMeasured[metrics.JankFrameTimeline])
		}
		// The trace's frames are the app window's true frames due in the
		// step. Those the session could not read at its edges (shown
		// before it cleared the frame history at Start, or after its last
		// poll) are set apart, at most two each; every other one must be
		// joined to the frame polled for it.
		in, early, late := truthInStep(r, st, traceTruth(dev), false)
		if st.Trace.Joined != len(in) || st.Trace.Frames != len(in)+early+late || early > 2 || late > 2 {
			problems = append(problems, fmt.Sprintf("%d of the trace's %d frames joined to polled ones; of the true frames in the step %d were read or lost mid-step, %d unread at its start, %d after the last poll; gaps %+v",
				st.Trace.Joined, st.Trace.Frames, len(in), early, late, r.Gaps))
		}
		if early+late > 0 {
			t.Logf("trace frames unread at the step's edges: %d at its start, %d after the last poll", early, late)
		}
		return problems, len(r.Gaps) > 0
	}()
	simtest.WallClock(t, "the host was too busy for the session to keep up with the phone (frames lost past its frame buffer, or no tick got through)", problems, stalled)
}
