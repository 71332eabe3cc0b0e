package trace_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

func genTrace(t testing.TB, o genOpts) ([]byte, *generator) {
	t.Helper()
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	g := generate(w, o)
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), g
}

// TestAnalyzeMatchesTruth reads a simulated phone's trace (compact and
// plain sched events on alternate CPUs, noise threads on every CPU, atrace
// and TrackEvent slices, binder calls, I/O, preemption) and checks every
// janky frame against the timeline the trace was derived from.
func TestAnalyzeMatchesTruth(t *testing.T) {
	parallel(t)
	data, g := genTrace(t, genOpts{frames: 150, cpus: 4, noiseGap: 40_000, seed: 1, truth: true})
	a, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: genPkg})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Frames) != len(g.truth) {
		t.Fatalf("frames = %d, want %d", len(a.Frames), len(g.truth))
	}
	if fmt.Sprint(a.AppPIDs) != fmt.Sprint([]int32{genPID}) {
		t.Errorf("app pids = %v, want [%d]", a.AppPIDs, genPID)
	}
	if len(a.NotMeasured) != 0 || len(a.Rejected) != 0 {
		t.Errorf("not measured %v, rejected %v; want neither", a.NotMeasured, a.Rejected)
	}
	// One display frame was had for each app frame; the expected ones
	// beside them are not display frames.
	if a.DisplayFrames != len(g.truth) {
		t.Errorf("display frames = %d, want %d", a.DisplayFrames, len(g.truth))
	}
	janky := 0
	kinds := map[string]bool{}
	byToken := map[int64]trace.JankyFrame{}
	for _, jf := range a.Janky {
		byToken[jf.Token] = jf
	}
	for i, tf := range g.truth {
		f := a.Frames[i]
		if f.Token != tf.token || f.Jank != tf.jank || f.ExpectedStart != tf.time || f.Start != tf.start || f.End != tf.end {
			t.Errorf("frame %d: token %d jank %v expected start %d span [%d,%d], want %d %v %d [%d,%d]",
				i, f.Token, f.Jank, f.ExpectedStart, f.Start, f.End, tf.token, tf.jank, tf.time, tf.start, tf.end)
		}
		if f.DisplayJank == nil || *f.DisplayJank != tf.display {
			t.Errorf("frame %d: display frame jank %v, want %v", tf.token, f.DisplayJank, tf.display)
		}
		if !tf.jank.Janky() {
			if _, ok := byToken[tf.token]; ok {
				t.Errorf("frame %d (%v) listed as janky", tf.token, tf.jank)
			}
			continue
		}
		janky++
		jf, ok := byToken[tf.token]
		if !ok {
			t.Errorf("janky frame %d missing", tf.token)
			continue
		}
		if jf.MainThread == nil || *jf.MainThread != tf.states {
			t.Errorf("frame %d: main thread %+v, want %+v", tf.token, jf.MainThread, tf.states)
		} else if jf.MainThread.Total() != tf.end-tf.start {
			t.Errorf("frame %d: states add up to %d, the frame lasts %d", tf.token, jf.MainThread.Total(), tf.end-tf.start)
		}
		if jf.SlicesFrom != tf.doFrame {
			t.Errorf("frame %d: slices from %q, want %q", tf.token, jf.SlicesFrom, tf.doFrame)
		}
		if got, want := sliceList(jf.Slices), genSliceList(tf.top); got != want {
			t.Errorf("frame %d: slices\n%s\nwant\n%s", tf.token, got, want)
		}
		for _, st := range []struct {
			name string
			ns   int64
		}{{"binder", tf.states.BinderNs}, {"uninterruptible", tf.states.UninterruptibleNs}, {"runnable", tf.states.RunnableNs}} {
			if st.ns > 0 {
				kinds[st.name] = true
			}
		}
	}
	if len(a.Janky) != janky {
		t.Errorf("%d janky frames listed, want %d", len(a.Janky), janky)
	}
	// The workload must have exercised every state, or the checks above
	// prove less than they seem to.
	if len(kinds) != 3 || janky < 20 {
		t.Errorf("the workload's janky frames (%d) covered only states %v", janky, kinds)
	}
}

func sliceList(ss []trace.Slice) string {
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "%s [%d,%d]\n", s.Name, s.Start, s.End)
	}
	return b.String()
}

func genSliceList(ss []genSlice) string {
	var b strings.Builder
	for _, s := range ss {
		fmt.Fprintf(&b, "%s [%d,%d]\n", s.name, s.start, s.end)
	}
	return b.String()
}

// TestWindowOnMonotonicClock: a step given on the monotonic clock (as
// perfgate's steps are) holds the frames whose expected start falls in it,
// and counts their jank by type as the truth does.
func TestWindowOnMonotonicClock(t *testing.T) {
	parallel(t)
	data, g := genTrace(t, genOpts{frames: 120, cpus: 4, noiseGap: 50_000, seed: 2, truth: true})
	a, err := trace.Analyze(bytes.NewReader(data), trace.Options{Package: genPkg})
	if err != nil {
		t.Fatal(err)
	}
	from, to := g.truth[20].time, g.truth[80].time
	st, err := a.Window(trace.Window{Name: "scroll", Start: from - genMonoLag, End: to - genMonoLag, Clock: trace.Monotonic})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	frames, janky, app := 0, 0, 0
	for _, tf := range g.truth[20:80] {
		frames++
		if !tf.jank.Janky() {
			continue
		}
		janky++
		if tf.jank.App() {
			app++
		}
		for _, n := range tf.jank.Names() {
			want[n]++
		}
	}
	if st.Start != from || st.End != to {
		t.Errorf("window on the trace clock [%d,%d), want [%d,%d)", st.Start, st.End, from, to)
	}
	if st.Frames != frames || st.Janky != janky || st.AppJank != app || fmt.Sprint(st.ByType) != fmt.Sprint(want) {
		t.Errorf("step: frames %d janky %d app %d by type %v; want %d %d %d %v", st.Frames, st.Janky, st.AppJank, st.ByType, frames, janky, app, want)
	}
	if len(st.JankyFrames) != janky {
		t.Errorf("%d janky frames listed, want %d", len(st.JankyFrames), janky)
	}
	if app == 0 || app == janky {
		t.Errorf("the window should hold app and non-app janks (app %d of %d)", app, janky)
	}
}

// TestAnalyzeEveryApp: without a package every layer is analysed, the other
// app's too; with one, only the package's.
func TestAnalyzeEveryApp(t *testing.T) {
	parallel(t)
	data, g := genTrace(t, genOpts{frames: 60, cpus: 2, noiseGap: 60_000, seed: 3, truth: true})
	all, err := trace.Analyze(bytes.NewReader(data), trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Frames) != len(g.truth)+g.other {
		t.Errorf("frames of every app = %d, want %d + %d", len(all.Frames), len(g.truth), g.other)
	}
	var names []string
	for _, l := range all.Layers {
		names = append(names, fmt.Sprintf("%d %s %d", l.PID, l.Name, l.Frames))
	}
	want := []string{
		fmt.Sprintf("%d %s %d", genPID, genLayer, len(g.truth)),
		fmt.Sprintf("%d TX - %s/%s.Main#3 %d", genOtherPID, genOther, genOther, g.other),
	}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Errorf("layers %q, want %q", names, want)
	}
	for _, jf := range all.Janky {
		if jf.PID == genOtherPID && jf.MainThread == nil {
			t.Errorf("other app's janky frame %d has no main-thread states", jf.Token)
		}
	}
}

// ConvertTo takes a trace-clock time back onto another clock through the
// same snapshot Convert used: the two are inverses, and a clock no snapshot
// holds is an error.
func TestConvertTo(t *testing.T) {
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: 10_000, trace.Monotonic: 4_000})
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: 50_000, trace.Monotonic: 43_000}) // the phone slept 1 µs
	a, err := trace.Analyze(bytes.NewReader(buf.Bytes()), trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, mono := range []int64{5_000, 42_999, 43_000, 90_000} {
		boot, err := a.Convert(mono, trace.Monotonic)
		if err != nil {
			t.Fatal(err)
		}
		back, err := a.ConvertTo(boot, trace.Monotonic)
		if err != nil || back != mono {
			t.Errorf("monotonic %d → boottime %d → %d, %v", mono, boot, back, err)
		}
	}
	if got, _ := a.ConvertTo(60_000, trace.Monotonic); got != 53_000 {
		t.Errorf("boottime 60000 on monotonic: %d, want 53000 (the later snapshot's offset)", got)
	}
	if _, err := a.ConvertTo(1, trace.Realtime); err == nil {
		t.Error("no error for a clock no snapshot holds")
	}
}
