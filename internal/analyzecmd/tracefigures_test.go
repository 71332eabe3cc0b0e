package analyzecmd_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/analyzecmd"
	"github.com/perfgate/perfgate/internal/fixtures"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
	"github.com/perfgate/perfgate/trace"
)

const (
	nowInAndroid    = "perfetto/nowinandroid_pixel7pro_cheetah_android13_frametimeline_ftrace.perfetto-trace"
	nowInAndroidPkg = "com.google.samples.apps.nowinandroid.demo"
)

// analyzeTrace runs `perfgate analyze trace ARGS…` and returns what it
// printed.
func analyzeTrace(t *testing.T, args ...string) string {
	t.Helper()
	var out strings.Builder
	if err := analyzecmd.Run(append([]string{"trace"}, args...), &out, io.Discard); err != nil {
		t.Fatalf("analyze trace %s: %v", strings.Join(args, " "), err)
	}
	return out.String()
}

// lineWith is the one line of out that contains what.
func lineWith(t *testing.T, out, what string) string {
	t.Helper()
	var found []string
	for l := range strings.Lines(out) {
		if strings.Contains(l, what) {
			found = append(found, strings.TrimSpace(l))
		}
	}
	if len(found) != 1 {
		t.Fatalf("lines with %q: %q in\n%s", what, found, out)
	}
	return found[0]
}

// On the real Android 13 trace, analyze trace prints Macrobenchmark's
// overrun percentiles as the independent decoding of the same bytes
// (trace/frametiming/testdata/frametiming_ref.py) gives them, says why the
// CPU durations are absent (no doFrame or DrawFrame slices: the view and
// gfx categories were off), and prints the one launch the trace shows:
// its first frame presented (the app's first FrameTimeline frame) and its
// reportFullyDrawn (from that frame's end to the app's section), saying
// why the phases of ActivityThread's slices are absent.
func TestAnalyzeTraceFiguresOfRealAndroid13Trace(t *testing.T) {
	path := fixtures.Path(t, nowInAndroid)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 for the reference script trace/frametiming/testdata/frametiming_ref.py")
	}
	ref, err := exec.Command("python3", "../../trace/frametiming/testdata/frametiming_ref.py", nowInAndroidPkg, path).Output()
	if err != nil {
		t.Fatalf("frametiming_ref.py: %v", err)
	}
	var want struct {
		Frames  int       `json:"frames"`
		Overrun []float64 `json:"overrun"`
	}
	if err := json.Unmarshal(ref, &want); err != nil || len(want.Overrun) != 4 {
		t.Fatalf("frametiming_ref.py printed %s: %v", ref, err)
	}
	out := analyzeTrace(t, "-package", nowInAndroidPkg, path)
	o := want.Overrun
	if got, w := lineWith(t, out, "frame_overrun_ms:"), fmt.Sprintf("frame_overrun_ms: p50 %.2f, p90 %.2f, p95 %.2f, p99 %.2f", o[0], o[1], o[2], o[3]); got != w {
		t.Errorf("got  %q\nwant %q (reference %s)", got, w, ref)
	}
	if got := lineWith(t, out, "frame timing ("); !strings.Contains(got, fmt.Sprintf(", %d frames:", want.Frames)) {
		t.Errorf("%q, reference %d frames", got, want.Frames)
	}
	if got := lineWith(t, out, "frame_cpu_ms:"); !strings.HasPrefix(got, "frame_cpu_ms: not measured: the trace has no Choreographer#doFrame slices") {
		t.Errorf("cpu: %q", got)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := trace.Analyze(f, trace.Options{Package: nowInAndroidPkg, MainThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	first := a.Frames[slices.IndexFunc(a.Frames, func(f trace.Frame) bool { return f.PID == a.AppPIDs[0] })]
	for _, f := range a.Frames {
		if f.PID == first.PID && f.Start < first.Start {
			first = f
		}
	}
	_, sl := a.MainThread(first.PID, a.Start, a.End)
	drawn := sl[slices.IndexFunc(sl, func(s trace.Slice) bool { return s.Name == "reportFullyDrawn() for ComponentActivity" })]
	for _, w := range []string{
		fmt.Sprintf("%-22s %+9.3f s %9.1f ms; longest: ", "first frame presented", float64(first.Start-a.Start)/1e9, float64(first.End-first.Start)/1e6),
		fmt.Sprintf("%-22s %+9.3f s %9.1f ms; longest: ", "reportFullyDrawn", float64(first.End-a.Start)/1e9, float64(drawn.Start-first.End)/1e6),
		"not measured: the trace has no bindApplication slice on the app's main thread (atrace category am)",
		"startup phases (1 launch of " + nowInAndroidPkg + "):",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("no %q in\n%s", w, out[strings.Index(out, "\nframe timing"):])
		}
	}
	// Without -package no main thread is followed: the phases are absent,
	// saying so.
	if got := lineWith(t, analyzeTrace(t, path), "startup phases"); got != "startup phases: not measured: give -package (the phases are read from the app's main thread)" {
		t.Errorf("without -package: %q", got)
	}
}

// On a simulated phone's trace of two cold starts and a scroll, analyze
// trace prints the phone's truth: each launch's phases (process start,
// bindApplication, activityStart, activityResume, the first doFrame) as
// long as the phone made them, bindApplication's longest slice the app's
// section the phone put there, and Macrobenchmark's overrun and CPU
// percentiles over the phone's frames (androidx MetricResult's rule).
func TestAnalyzeTraceFiguresAreThePhones(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		wl, err := simdevice.Preset("slow-start")
		if err != nil {
			t.Fatal(err)
		}
		wl.Startup.ColdMs, wl.Startup.FullyDrawnMs = 1200, 1500
		wl.Startup.Cold = simdevice.ColdStart{BindApplicationMs: 520, Sections: []simdevice.StartSection{{Name: "com.example.App.onCreate", Ms: 380}, {Name: "com.example.Db.open", Ms: 60, IOMs: 40}}}
		sim, srv := simtest.ServePipe(t, simdevice.Config{Workload: wl, RefreshHz: 60})
		sc := scenario.Start(t, srv.Open(sim.Serial()), wl.Package, perftest.WithResultsDir(t.TempDir()), perftest.WithTrace(perftest.TraceConfig{}))
		sc.Step("launch", scenario.LaunchWith(scenario.Cold, 2, scenario.StartupOptions{FullyDrawn: 4 * time.Second}))
		sc.Step("scroll", scenario.Sleep(2*time.Second))
		r := sc.Stop()
		if r.Trace == nil || r.Trace.File == "" {
			t.Fatalf("no trace: %+v", r.Trace)
		}
		// The session's steps on the device's monotonic clock, which the
		// phone's truth uses too.
		from, to := r.Steps[0].DeviceStartNs, r.Steps[len(r.Steps)-1].DeviceEndNs
		out := analyzeTrace(t, "-package", wl.Package, "-clock", "monotonic", "-from", fmt.Sprint(from), "-to", fmt.Sprint(to), r.Trace.File)
		truth := sim.World().Truth().Startups
		if len(truth) != 2 || !strings.Contains(out, "startup phases (2 launches of "+wl.Package+"):") {
			t.Fatalf("the phone launched %d times; analyze trace printed\n%s", len(truth), out)
		}
		checkLaunches(t, out, truth)
		var over, cpu []float64
		for _, f := range sim.World().TruthFrames() {
			if tr := f.Trace(); tr != nil && f.Window == wl.Package+"/"+wl.Package+".MainActivity" && f.IntendedVsync >= from && f.IntendedVsync < to {
				over = append(over, float64(tr.OverrunNs)/1e6)
				cpu = append(cpu, float64(tr.DrawEndNs-tr.DoFrameNs)/1e6)
			}
		}
		if len(over) < 60 {
			t.Fatalf("the phone drew %d frames in the trace", len(over))
		}
		if got := lineWith(t, out, "frame timing ("); !strings.Contains(got, fmt.Sprintf(", %d frames:", len(over))) {
			t.Errorf("%q, the phone drew %d frames", got, len(over))
		}
		for name, vs := range map[string][]float64{"frame_overrun_ms": over, "frame_cpu_ms": cpu} {
			slices.Sort(vs)
			var p [4]float64
			for k, q := range []float64{50, 90, 95, 99} {
				p[k] = macrobenchPercentile(vs, q)
			}
			if got, w := lineWith(t, out, name+":"), fmt.Sprintf("%s: p50 %.2f, p90 %.2f, p95 %.2f, p99 %.2f", name, p[0], p[1], p[2], p[3]); got != w {
				t.Errorf("got  %q\nwant %q (the phone's)", got, w)
			}
		}
	})
}

// checkLaunches finds each launch's phases in out and compares their
// lengths with the phone's.
func checkLaunches(t *testing.T, out string, truth []simdevice.TruthStartup) {
	t.Helper()
	blocks := strings.Split(out[strings.Index(out, "\nstartup phases ("):], "  launch ")[1:]
	if len(blocks) != len(truth) {
		t.Fatalf("%d launches printed, the phone's %d", len(blocks), len(truth))
	}
	for i, b := range blocks {
		for _, p := range truth[i].Phases {
			w := fmt.Sprintf("%-22s ", p.Name)
			l := lineWith(t, b, w)
			if got, want := strings.Fields(strings.TrimPrefix(l, w))[2], fmt.Sprintf("%.1f", float64(p.EndNs-p.StartNs)/1e6); got != want {
				t.Errorf("launch %d: %q, the phone's %s is %s ms", i+1, l, p.Name, want)
			}
			if len(p.Sections) > 0 {
				if s := fmt.Sprintf("; longest: %.1f ms %s", float64(p.Sections[0].DurNs)/1e6, p.Sections[0].Name); !strings.Contains(l, s) {
					t.Errorf("launch %d: %q, the phone's longest section %q", i+1, l, s)
				}
			}
		}
	}
}

// macrobenchPercentile is androidx MetricResult.getPercentile written
// again: at index p·(n−1)/100 of the sorted values, the two values around
// it mixed by the index's fraction.
func macrobenchPercentile(sorted []float64, p float64) float64 {
	idx := p * float64(len(sorted)-1) / 100
	i := int(idx)
	if i+1 >= len(sorted) {
		return sorted[i]
	}
	return sorted[i] + (idx-float64(i))*(sorted[i+1]-sorted[i])
}
