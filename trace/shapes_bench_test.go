package trace_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/perfgate/perfgate/internal/refbench"
	"github.com/perfgate/perfgate/trace"
)

// shapeRef is the reference trace.Analyze is measured against: README.md's
// figures of `analyze trace` in plain Python, decoding the wire format
// itself.
const shapeRef = "testdata/trace_ref.py"

// shapeBytes is the size of each shape's trace: the reference reads about
// 1 MB a second, so that all the shapes take it a few minutes.
const shapeBytes = 16 << 20

// traceRun is one shape's figures in BenchmarkAnalyzeShapes.
type traceRun struct {
	refbench.Run
	path string
}

// BenchmarkAnalyzeShapes is trace.Analyze with a package on a 16 MB trace
// of every shape of traceShapes (2 to 12 CPUs, compact and plain sched,
// dense and sparse other threads, thousands of processes renamed, deep and
// long slices, 60 to 120 Hz, janky or not, binder, with and without
// FrameTimeline, tiny and huge ftrace bundles, incremental state resets),
// each file also read by the reference script (python3) in the same loop,
// so that machine load touches both alike. It fails when the two disagree
// on a figure. It reports the slowest, median and fastest shape's time per
// MB (s/MB), the slowest over the fastest in wall and CPU time, the least
// and the median speed-up over the reference in wall time (x-ref) and CPU
// time (x-ref-cpu), and the peak resident memory; each shape's figures are
// logged. Run with -benchtime=1x: each loop reads every shape once with
// the reference and three times with trace.Analyze.
func BenchmarkAnalyzeShapes(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("no python3 for the reference script")
	}
	dir := b.TempDir()
	var runs []*traceRun
	var times []*refbench.Run
	for _, s := range traceShapes() {
		path := writeShape(b, dir, s, shapeBytes, 0)
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, &traceRun{Run: refbench.Run{Name: s.name, MB: float64(st.Size()) / (1 << 20)}, path: path})
		times = append(times, &runs[len(runs)-1].Run)
	}
	debug.FreeOSMemory()
	peak := refbench.PeakRSS()
	b.ResetTimer()
	for i := range b.N {
		for _, r := range runs {
			b.StopTimer()
			r.reference(b, i == 0)
			b.StartTimer()
			for range 3 {
				r.analyze(b)
			}
		}
	}
	b.StopTimer()
	refbench.Report(b, times)
	if peak != nil {
		b.ReportMetric(peak(), "peak-rss-MB")
	}
}

// shapeFigures are the figures trace_ref.py prints, from an Analysis.
func shapeFigures(a *trace.Analysis) map[string]int64 {
	f := map[string]int64{"packets": int64(a.Packets), "display_frames": int64(a.DisplayFrames),
		"frames": 0, "expected": 0, "janky": 0, "app_jank": 0,
		"running_ns": 0, "runnable_ns": 0, "asleep_ns": 0, "other_ns": 0}
	for _, l := range a.Layers {
		if l.PID == shapePID {
			f["frames"] += int64(l.Frames)
			f["expected"] += int64(l.Expected)
			f["janky"] += int64(l.Janky)
			f["app_jank"] += int64(l.AppJank)
		}
	}
	for _, jf := range a.Janky {
		if s := jf.MainThread; s != nil && jf.PID == shapePID {
			f["running_ns"] += s.RunningNs
			f["runnable_ns"] += s.RunnableNs
			f["asleep_ns"] += s.SleepingNs + s.UninterruptibleNs + s.BinderNs
			f["other_ns"] += s.OtherNs + s.UnknownNs
		}
	}
	return f
}

// reference runs the reference script on the shape's file; check compares
// its figures with trace.Analyze's.
func (r *traceRun) reference(b testing.TB, check bool) map[string]int64 {
	out, err := r.Reference(exec.Command("python3", shapeRef, shapePkg, r.path))
	if err != nil {
		b.Fatalf("%s: %s: %v", r.Name, shapeRef, err)
	}
	if !check {
		return nil
	}
	var ref map[string]int64
	if err := json.Unmarshal(out, &ref); err != nil {
		b.Fatalf("%s: reference output: %v", r.Name, err)
	}
	a := r.read(b)
	for k, v := range shapeFigures(a) {
		if ref[k] != v {
			b.Errorf("%s: %s: trace.Analyze %d, reference %d", r.Name, k, v, ref[k])
		}
	}
	if b.Failed() {
		b.FailNow()
	}
	b.Logf("%-20s %5.1f MB, %d packets, %d sched events, %d frames, %d janky", r.Name, r.MB, ref["packets"], ref["sched_events"], ref["frames"], ref["janky"])
	return ref
}

func (r *traceRun) read(b testing.TB) *trace.Analysis {
	f, err := os.Open(r.path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	a, err := trace.Analyze(f, trace.Options{Package: shapePkg})
	if err != nil {
		b.Fatalf("%s: %v", r.Name, err)
	}
	return a
}

// analyze reads the shape's file with trace.Analyze, timing it.
func (r *traceRun) analyze(b *testing.B) {
	r.Time(func() error {
		runtime.KeepAlive(r.read(b))
		return nil
	})
}

// TestShapesAgreeWithReference: on a small trace of every shape,
// trace.Analyze and the reference script agree on every figure, janky
// frames and their main thread's states included.
func TestShapesAgreeWithReference(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the reference script")
	}
	parallel(t)
	dir := t.TempDir()
	for _, s := range traceShapes() {
		s.flushEvery = min(s.flushEvery, 4) // bundles of a few frames' events
		r := &traceRun{Run: refbench.Run{Name: s.name}, path: writeShape(t, dir, s, 0, 60)}
		ref := r.reference(t, true)
		if !s.noFT && (ref["janky"] == 0 || ref["running_ns"] == 0 || ref["asleep_ns"] == 0) {
			t.Errorf("%s: no janky frame with its states to compare: %v", s.name, ref)
		}
	}
}
