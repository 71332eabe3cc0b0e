package simdevice

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/perfgate/perfgate/trace"
)

// traceWorkload scrolls with every kind of jank the trace tells apart:
// slow frames waiting on binder, on storage and on a lock, one computing,
// and a frame SurfaceFlinger misses (with the frames queued behind it).
func traceWorkload(t testing.TB) *Workload {
	wl := mustPreset(t, "smooth-scroll")
	wl.Phases[0].Janks = []Jank{
		{At: []int{20}, Vsyncs: 5, Wait: WaitBinder},
		{At: []int{50}, Vsyncs: 7, Wait: WaitIO},
		{At: []int{80}, Ms: 60, Wait: WaitLock},
		{At: []int{110}, Vsyncs: 4},
		{At: []int{140}, SurfaceFlinger: true},
	}
	return wl
}

// fullConfig asks for every data source and category the simulated app
// writes to.
func fullConfig(pkg string, compact bool) perfettoConfig {
	return perfettoConfig{
		sources:          []string{dsFtrace, dsFrameTimeline, dsProcessStats},
		ftraceEvents:     []string{evSchedSwitch, evSchedWaking, evBinderTx},
		atraceCategories: []string{"gfx", "view", "dalvik", "aidl", "binder_driver"},
		atraceApps:       []string{pkg},
		compactSched:     compact,
	}
}

// recordTrace runs a trace job over d of the world's time and returns the
// trace's bytes, the frames it covers and when it ended.
func recordTrace(t *testing.T, w *World, clk *fakeClock, cfg perfettoConfig, api int, d time.Duration) ([]byte, []TruthFrame, int64) {
	t.Helper()
	start := int64(w.Uptime())
	j := w.traceJob(start)
	j.cfg = cfg
	j.sources = map[string]bool{}
	for _, s := range cfg.sources {
		if s != dsFrameTimeline || api >= 31 {
			j.sources[s] = true
		}
	}
	clk.advance(d)
	w.finishTraceJob(&j)
	var buf bytes.Buffer
	if err := j.write(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), j.frames, j.end
}

// The trace the phone writes is the truth: every frame's FrameTimeline jank
// type, and for each janky one its main thread's states and longest slices,
// read back by package trace, equal what the world decided for the frame.
func TestTraceIsTheTruth(t *testing.T) {
	for _, compact := range []bool{false, true} {
		t.Run(fmt.Sprintf("compact=%v", compact), func(t *testing.T) {
			w, clk := newTestWorld(t, Config{API: 33, RefreshHz: 60, Workload: traceWorkload(t)})
			wlaunch(t, w)
			data, frames, end := recordTrace(t, w, clk, fullConfig(w.Package(), compact), 33, 4*time.Second)
			a, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: w.Package()})
			if err != nil {
				t.Fatal(err)
			}
			if len(a.NotMeasured) > 0 {
				t.Errorf("not measured %v", a.NotMeasured)
			}
			// The frames still in flight when the trace stopped have no end.
			if n := a.Rejected["frametimeline_no_end"]; n == 0 || n > 4 {
				t.Errorf("%d frames without an end, want the few in flight at the end", n)
			}
			byToken := map[int64]trace.JankyFrame{}
			for _, jf := range a.Janky {
				byToken[jf.Token] = jf
			}
			kinds := map[string]int{}
			for _, f := range frames {
				if f.Completed > end || f.Trace() == nil {
					continue // still drawing when the trace stopped
				}
				tr := f.Trace()
				jf, janky := byToken[f.VsyncID]
				if janky != tr.Jank.Janky() {
					t.Errorf("frame %d: janky in the trace %v, truth %v", f.VsyncID, janky, tr.Jank)
					continue
				}
				if !janky {
					continue
				}
				kinds[fmt.Sprintf("%v/%s", tr.Jank, f.Wait)]++
				// What the main thread waited on shows as its state.
				if st := tr.MainThread; f.Slow {
					wait := map[string]int64{WaitBinder: st.BinderNs, WaitIO: st.UninterruptibleNs, WaitLock: st.SleepingNs, "": st.RunningNs}[f.Wait]
					if wait < f.Duration/20 {
						t.Errorf("frame %d waits on %q yet spends %v in that state: %+v", f.VsyncID, f.Wait, time.Duration(wait), *st)
					}
				}
				if jf.Jank != tr.Jank || jf.Present != tr.Present {
					t.Errorf("frame %d: %v %v, truth %v %v", f.VsyncID, jf.Jank, jf.Present, tr.Jank, tr.Present)
				}
				if jf.MainThread == nil || *jf.MainThread != *tr.MainThread {
					t.Errorf("frame %d (%s): main thread %+v, truth %+v", f.VsyncID, f.Wait, jf.MainThread, tr.MainThread)
				}
				var got []TruthSlice
				for _, s := range jf.Slices {
					got = append(got, TruthSlice{Name: s.Name, DurNs: s.Dur()})
				}
				if !reflect.DeepEqual(got, tr.Slices) {
					t.Errorf("frame %d: slices %v, truth %v", f.VsyncID, got, tr.Slices)
				}
			}
			t.Logf("janky frames by kind: %v", kinds)
			for _, k := range []string{"App Deadline Missed/binder", "App Deadline Missed/io", "App Deadline Missed/lock", "App Deadline Missed/", "SurfaceFlinger CPU Deadline Missed/", "Buffer Stuffing/"} {
				if kinds[k] == 0 {
					t.Errorf("no janky frame of kind %q in the trace", k)
				}
			}
		})
	}
}
