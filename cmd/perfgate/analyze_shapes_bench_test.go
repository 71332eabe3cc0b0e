package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"reflect"
	"runtime/debug"
	"testing"

	"github.com/perfgate/perfgate/internal/capturegen"
	"github.com/perfgate/perfgate/internal/refbench"
)

// refScript is the reference `perfgate analyze frames` is measured
// against: README.md's frame metric definitions in plain Python.
const refScript = "testdata/frames_ref.py"

// shapeRun is one shape's figures in BenchmarkAnalyzeFramesShapes.
type shapeRun struct {
	refbench.Run
	path string
}

// BenchmarkAnalyzeFramesShapes is `perfgate analyze frames` on an hour
// at 120 Hz of every shape of capturegen.HourShapes (irregular and janky
// frames, short and wide rows, rows of every rejected kind, several
// windows, CRLF, UTF-16), each file also read by the reference script
// (python3) in the same loop, shape after shape, so machine load touches
// both alike. It fails when the two disagree on a figure. Per source it
// reports the slowest, median and fastest shape's time (s), the slowest
// over the fastest in wall and in CPU time, the slowest shape's speed-up
// over the reference, the least and the median speed-up in wall time
// (x-ref) and in CPU time (x-ref-cpu), and the peak resident memory; each shape's figures are logged. Run with -benchtime=1x: each
// loop reads every shape once with perfgate three times.
func BenchmarkAnalyzeFramesShapes(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("no python3 for the reference script")
	}
	for _, kind := range []string{"gfxinfo", "surfaceflinger"} {
		b.Run("source="+kind, func(b *testing.B) {
			var runs []*shapeRun
			var times []*refbench.Run
			for _, s := range capturegen.HourShapes() {
				runs = append(runs, &shapeRun{Run: refbench.Run{Name: s.Name}, path: shapeFile(b, s, kind)})
				times = append(times, &runs[len(runs)-1].Run)
			}
			debug.FreeOSMemory()
			peak := refbench.PeakRSS()
			b.ResetTimer()
			for i := range b.N {
				for _, r := range runs {
					b.StopTimer()
					r.reference(b, kind, i == 0)
					b.StartTimer()
					for range 3 {
						r.analyze(b, kind)
					}
				}
			}
			b.StopTimer()
			refbench.Report(b, times)
			if peak != nil {
				b.ReportMetric(peak(), "peak-rss-MB")
			}
		})
	}
}

// shapeFile writes shape s of kind to a file.
func shapeFile(b *testing.B, s capturegen.Shape, kind string) string {
	if kind == "gfxinfo" {
		return writeFile(b, s.Name+".txt", s.GfxInfo)
	}
	return writeFile(b, s.Name+".txt", s.SurfaceFlinger)
}

// reference runs the reference script on the shape's file; check
// compares its figures with perfgate's.
func (r *shapeRun) reference(b *testing.B, kind string, check bool) {
	out, err := r.Reference(exec.Command("python3", refScript, kind, r.path))
	if err != nil {
		b.Fatalf("%s: %s %s: %v", r.Name, refScript, kind, err)
	}
	if !check {
		return
	}
	var ref map[string]any
	if err := json.Unmarshal(out, &ref); err != nil {
		b.Fatalf("%s: reference output: %v", r.Name, err)
	}
	var got bytes.Buffer
	if err := run([]string{"analyze", "frames", "-source", kind, r.path}, &got, &got); err != nil {
		b.Fatalf("%s: %v", r.Name, err)
	}
	var ours map[string]any
	if err := json.Unmarshal(got.Bytes(), &ours); err != nil {
		b.Fatalf("%s: perfgate output: %v\n%s", r.Name, err, got.Bytes())
	}
	chromium, _ := ours["chromium"].(map[string]any)
	perfdog, _ := ours["perfdog"].(map[string]any)
	for _, c := range []struct {
		name      string
		ours, ref any
	}{
		{"frames", ours["frames"], ref["frames"]},
		{"fps", ours["fps"], ref["fps"]},
		{"frame_time_ms", ours["frame_time_ms"], ref["frame_time_ms"]},
		{"rejected", ours["rejected"], ref["rejected"]},
		{"deadline_missed", ours["deadline_missed"], ref["deadline_missed"]},
		{"jank_chromium", chromium["jank_count"], ref["jank_chromium"]},
		{"max_frame_delay", chromium["max_frame_delay"], ref["max_frame_delay"]},
		{"jank_perfdog", perfdog["jank"], ref["jank_perfdog"]},
	} {
		if !reflect.DeepEqual(c.ours, c.ref) {
			b.Fatalf("%s %s: %s: perfgate %v, reference %v", kind, r.Name, c.name, c.ours, c.ref)
		}
	}
}

// analyze runs `perfgate analyze frames` on the shape's file.
func (r *shapeRun) analyze(b *testing.B, kind string) {
	if err := r.Time(func() error {
		return run([]string{"analyze", "frames", "-source", kind, r.path}, io.Discard, io.Discard)
	}); err != nil {
		b.Fatalf("%s: %v", r.Name, err)
	}
}
