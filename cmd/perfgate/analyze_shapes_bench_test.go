package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"reflect"
	"runtime/debug"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/capturegen"
)

// refScript is the reference `perfgate analyze frames` is measured
// against: README.md's frame metric definitions in plain Python.
const refScript = "testdata/frames_ref.py"

// shapeRun is one shape's figures in BenchmarkAnalyzeFramesShapes.
type shapeRun struct {
	name, path string
	// ref and refCPU are the reference's wall and CPU times, one a run
	// of the loop; ours and ourCPU perfgate's.
	ref, refCPU, ours, ourCPU []time.Duration
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
			for _, s := range capturegen.HourShapes() {
				runs = append(runs, &shapeRun{name: s.Name, path: shapeFile(b, s, kind)})
			}
			debug.FreeOSMemory()
			peak := peakRSS()
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
			reportShapes(b, runs)
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
	cmd := exec.Command("python3", refScript, kind, r.path)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %s %s: %v\n%s", r.name, refScript, kind, err, errOut.Bytes())
	}
	r.ref = append(r.ref, time.Since(t0))
	r.refCPU = append(r.refCPU, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	if !check {
		return
	}
	var ref map[string]any
	if err := json.Unmarshal(out.Bytes(), &ref); err != nil {
		b.Fatalf("%s: reference output: %v", r.name, err)
	}
	var got bytes.Buffer
	if err := run([]string{"analyze", "frames", "-source", kind, r.path}, &got, &got); err != nil {
		b.Fatalf("%s: %v", r.name, err)
	}
	var ours map[string]any
	if err := json.Unmarshal(got.Bytes(), &ours); err != nil {
		b.Fatalf("%s: perfgate output: %v\n%s", r.name, err, got.Bytes())
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
			b.Fatalf("%s %s: %s: perfgate %v, reference %v", kind, r.name, c.name, c.ours, c.ref)
		}
	}
}

// analyze runs `perfgate analyze frames` on the shape's file.
func (r *shapeRun) analyze(b *testing.B, kind string) {
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	t0 := time.Now()
	if err := run([]string{"analyze", "frames", "-source", kind, r.path}, io.Discard, io.Discard); err != nil {
		b.Fatalf("%s: %v", r.name, err)
	}
	r.ours = append(r.ours, time.Since(t0))
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := func(ru syscall.Rusage) time.Duration {
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	r.ourCPU = append(r.ourCPU, cpu(ru1)-cpu(ru0))
}

// median is the median of d (the upper one of an even count).
func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// reportShapes reports the shapes' figures (BenchmarkAnalyzeFramesShapes):
// the slowest, median and fastest time; the slowest shape's speed-up over
// the reference (slowest-x-ref) beside the least and the median; the
// slowest over the fastest, in wall time and in CPU time (the CPU figures
// hold on a machine busy with other work, where wall times wander).
func reportShapes(b *testing.B, runs []*shapeRun) {
	var times, cpus, ratios, cpuRatios []float64
	slowest, slowestX := "", 0.0
	for _, r := range runs {
		ours, ref := median(r.ours), median(r.ref)
		ourCPU, refCPU := median(r.ourCPU), median(r.refCPU)
		x, xc := ref.Seconds()/ours.Seconds(), refCPU.Seconds()/ourCPU.Seconds()
		b.Logf("%-16s perfgate %6.3f s (cpu %6.3f s), reference %6.2f s (cpu %6.2f s): %5.1f× wall, %5.1f× cpu",
			r.name, ours.Seconds(), ourCPU.Seconds(), ref.Seconds(), refCPU.Seconds(), x, xc)
		if len(times) == 0 || ours.Seconds() > slices.Max(times) {
			slowest, slowestX = r.name, x
		}
		times = append(times, ours.Seconds())
		cpus = append(cpus, ourCPU.Seconds())
		ratios = append(ratios, x)
		cpuRatios = append(cpuRatios, xc)
	}
	b.Logf("slowest shape %s: %.1f× the reference", slowest, slowestX)
	for _, s := range [][]float64{times, cpus, ratios, cpuRatios} {
		slices.Sort(s)
	}
	mid := len(times) / 2
	b.ReportMetric(times[len(times)-1], "slowest-s")
	b.ReportMetric(times[mid], "median-s")
	b.ReportMetric(times[0], "fastest-s")
	b.ReportMetric(times[len(times)-1]/times[0], "slowest/fastest")
	b.ReportMetric(cpus[len(cpus)-1]/cpus[0], "slowest/fastest-cpu")
	b.ReportMetric(slowestX, "slowest-x-ref")
	b.ReportMetric(ratios[0], "min-x-ref")
	b.ReportMetric(ratios[mid], "median-x-ref")
	b.ReportMetric(cpuRatios[0], "min-x-ref-cpu")
	b.ReportMetric(cpuRatios[mid], "median-x-ref-cpu")
}
