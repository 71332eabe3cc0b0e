package report_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
)

// textResults are Results of the shapes the text tells apart, from
// testdata/janky-scroll.json: as recorded; with startup, crashes, late
// ticks, process ends, notes and a trace; with an expected crash, an
// unfinished step and a trace not recorded.
func textResults(t *testing.T, path string) []*result.Result {
	t.Helper()
	load := func() *result.Result {
		r, err := result.ReadResult(path)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain := load()

	rich := load()
	rich.Whole.Ticks = result.TickStats{Ticks: 40, Late: 3, P95SpacingMs: 104.2, MaxSpacingMs: 250.6, MaxRTTMs: 31.4}
	rich.ProcessEnds = []result.Crash{{PID: 6888, Step: "scroll", Reason: "low_memory_killer"}, {PID: 6901, Step: "settle", Reason: "killed", Cause: "am force-stop"}}
	rich.Notes = append(rich.Notes, "interval: lowered to 50ms")
	rich.Trace = &result.TraceInfo{File: "perf-out/feed.perfetto-trace", SizeBytes: 12_345_678}
	sc := rich.Steps[0]
	sc.Startup = &result.StartupStats{Kind: "cold", InitialDisplayMs: 812.4, FullDisplayMs: 1033.6, Iterations: make([]result.StartupSample, 3)}
	sc.Ticks = result.TickStats{Ticks: 30, Late: 2, MaxSpacingMs: 250.6}
	sc.Crashes = []result.Crash{{Reason: "crash", Cause: "java.lang.IllegalStateException"}, {Reason: "anr"}}
	sc.Trace = &result.TraceStep{Frames: 166, Janky: 4, AppJank: 3, ByType: map[string]int{"App Deadline Missed": 3, "Buffer Stuffing": 1}, Partial: "the trace ended 0.2s before the step"}
	rich.Steps[1].Trace = &result.TraceStep{Frames: 12}
	rich.Steps[1].Startup = &result.StartupStats{Kind: "warm", InitialDisplayMs: 201, Iterations: make([]result.StartupSample, 1)}

	cut := load()
	cut.Whole = nil
	cut.Trace = &result.TraceInfo{NotRecorded: "Android 9 has no perfetto"}
	cut.Steps[0].Crashes = []result.Crash{{Reason: "crash"}}
	cut.Steps[0].CrashExpected = true
	cut.Steps[1].Unfinished = true
	cut.Steps[1].FrameStats = frames.Summary{}
	cut.Steps[1].MemoryStats = result.MemoryStats{}
	cut.Steps[1].NotMeasured = map[metrics.Name]string{"frames": "frames: no frame in the step", "pss_max": "memory: no read"}
	return []*result.Result{plain, rich, cut}
}

// liveTicks are a recording's live states: two a second apart, one too
// soon, one before frames and memory are known, one after the step.
var liveTicks = []result.Live{
	{Elapsed: 400 * time.Millisecond, Step: "record", Frames: 1, CPUPct: 12.5, Gaps: 0},
	{Elapsed: 1400 * time.Millisecond, Step: "record", Frames: 60, FPS: 59.94, Jank: 2, CPUPct: 31.25, PSSKB: 123456, Gaps: 1},
	{Elapsed: 1900 * time.Millisecond, Step: "record", Frames: 90, FPS: 60, PSSKB: 123456},
	{Elapsed: 2500 * time.Millisecond, Step: "record", Frames: 120, FPS: 60.02, Jank: 104, CPUPct: 100, PSSKB: 99, Gaps: 3},
	{Elapsed: 3500 * time.Millisecond},
}

// The text of a Result, line by line: each step's line (not failed, then
// failed), its figures and why some were not measured, the health lines,
// and the live lines of a recording, as perfgate run and record print them.
func TestText(t *testing.T) {
	var b strings.Builder
	for i, r := range textResults(t, "testdata/janky-scroll.json") {
		fmt.Fprintf(&b, "== result %d\n", i)
		for _, st := range r.Steps {
			fmt.Fprintln(&b, report.StepLine(st, false))
			fmt.Fprintln(&b, report.StepLine(st, true))
			figs, why := report.Figures(st)
			fmt.Fprintf(&b, "figures: %s\nwhy: %s\n", strings.Join(figs, ", "), why)
		}
		fmt.Fprintln(&b, "-- health")
		if err := report.WriteHealth(&b, r); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Fprintln(&b, "== live")
	l := report.NewLiveText(&b)
	for _, s := range liveTicks {
		l.Tick(s)
	}
	got, want := strings.Split(b.String(), "\n"), strings.Split(wantText, "\n")
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d:\ngot  %q\nwant %q", i+1, g, w)
		}
	}
}

// A run's step lines mark the steps whose action failed, and those only.
func TestWriteSteps(t *testing.T) {
	r := textResults(t, "testdata/janky-scroll.json")[0]
	r.RecordVerdicts(budget.Verdict{Kind: budget.KindAction, Step: "settle", Status: budget.Fail, Reason: "no view with text \"Done\""})
	var b strings.Builder
	if err := report.WriteSteps(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "ok   scroll (3.001s): 166 frames, 55.3 fps, jank 3 (deadline_missed); cpu 7.2%; pss max 124000 KiB\n" +
		"FAIL settle (750ms): 40 frames, 53.2 fps, jank 1 (deadline_missed); cpu 7.3%; pss max 124000 KiB\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// A step's line says which figures were not measured and why.
func TestStepLineNotMeasured(t *testing.T) {
	st := &result.Step{Name: "tap", HostEndNs: 40e6, FrameStats: frames.Summary{Source: "gfxinfo"},
		CPUStats:    result.CPUStats{Intervals: 1, Mean: 3.25},
		NotMeasured: map[metrics.Name]string{"pss_max": "memory: no dumpsys meminfo com.example read in the step (the step lasted 40ms; reads come every 1s)"}}
	// A step without frames says so where the frames are counted, not
	// only as the reason fps and jank are missing.
	want := "ok   tap (40ms): 0 frames (the app drew none in the step: is it on screen?), fps not measured, jank not measured; cpu 3.2%; pss max not measured;" +
		" not measured: fps, jank (frames: no frame in the step); pss_max (memory: no dumpsys meminfo com.example read in the step (the step lasted 40ms; reads come every 1s))"
	if got := report.StepLine(st, false); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The live line reports the step in progress only: a tick after the step
// ended (no step, no frames) prints nothing, so the last line is not
// "frames 0" above a summary of 332 frames.
func TestLiveTextEndsWithTheStep(t *testing.T) {
	var b strings.Builder
	l := report.NewLiveText(&b)
	l.Tick(result.Live{Elapsed: time.Second, Step: "record", Frames: 60, FPS: 60, PSSKB: 1000})
	l.Tick(result.Live{Elapsed: 2 * time.Second, Step: "record", Frames: 120, FPS: 60, PSSKB: 1000})
	l.Tick(result.Live{Elapsed: 3500 * time.Millisecond})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "frames 120") {
		t.Fatalf("live lines %q, want two, the last with frames 120", lines)
	}
}

// wantText is what perfgate printed for textResults and liveTicks before
// the text moved into this package.
const wantText = `== result 0
ok   scroll (3.001s): 166 frames, 55.3 fps, jank 3 (deadline_missed); cpu 7.2%; pss max 124000 KiB
FAIL scroll (3.001s): 166 frames, 55.3 fps, jank 3 (deadline_missed); cpu 7.2%; pss max 124000 KiB
figures: 166 frames, 55.3 fps, jank 3 (deadline_missed), cpu 7.2%, pss max 124000 KiB
why: 
ok   settle (750ms): 40 frames, 53.2 fps, jank 1 (deadline_missed); cpu 7.3%; pss max 124000 KiB
FAIL settle (750ms): 40 frames, 53.2 fps, jank 1 (deadline_missed); cpu 7.3%; pss max 124000 KiB
figures: 40 frames, 53.2 fps, jank 1 (deadline_missed), cpu 7.3%, pss max 124000 KiB
why: 
-- health
ticks: 0 every 100ms, 0 late; spacing p95 0ms, max 0ms; round trip max 0ms
note: frames: auto source gfxinfo (last 0.5 s: gfxinfo 6 frames, layer "SurfaceView[com.perfgate.demo/com.perfgate.demo.MainActivity](BLAST)#0" 6)
== result 1
FAIL scroll (3.001s): cold start 812 ms (median of 3), fully drawn 1034 ms; 166 frames, 55.3 fps, jank 3 (deadline_missed); cpu 7.2%; pss max 124000 KiB; CRASHED 2 times (crash java.lang.IllegalStateException, anr); 2 of 30 ticks late (spacing max 251ms)
FAIL scroll (3.001s): cold start 812 ms (median of 3), fully drawn 1034 ms; 166 frames, 55.3 fps, jank 3 (deadline_missed); cpu 7.2%; pss max 124000 KiB; CRASHED 2 times (crash java.lang.IllegalStateException, anr); 2 of 30 ticks late (spacing max 251ms)
figures: 166 frames, 55.3 fps, jank 3 (deadline_missed), cpu 7.2%, pss max 124000 KiB
why: 
ok   settle (750ms): warm start 201 ms (median of 1); 40 frames, 53.2 fps, jank 1 (deadline_missed); cpu 7.3%; pss max 124000 KiB
FAIL settle (750ms): warm start 201 ms (median of 1); 40 frames, 53.2 fps, jank 1 (deadline_missed); cpu 7.3%; pss max 124000 KiB
figures: 40 frames, 53.2 fps, jank 1 (deadline_missed), cpu 7.3%, pss max 124000 KiB
why: 
-- health
ticks: 40 every 100ms, 3 late; spacing p95 104ms, max 251ms; round trip max 31ms
process end: pid 6888 in step "scroll": low-memory-killer
process end: pid 6901 in step "settle": killed (am force-stop)
note: frames: auto source gfxinfo (last 0.5 s: gfxinfo 6 frames, layer "SurfaceView[com.perfgate.demo/com.perfgate.demo.MainActivity](BLAST)#0" 6)
note: interval: lowered to 50ms
trace: perf-out/feed.perfetto-trace (12.3 MB); open https://ui.perfetto.dev and choose Open trace file
trace: scroll: 166 frames, 4 janky, 3 app jank (FrameTimeline); App Deadline Missed 3, Buffer Stuffing 1; partial: the trace ended 0.2s before the step
trace: settle: 12 frames, 0 janky, 0 app jank (FrameTimeline)
== result 2
ok   scroll (3.001s): 166 frames, 55.3 fps, jank 3 (deadline_missed); cpu 7.2%; pss max 124000 KiB; CRASHED 1 times (expected) (crash)
FAIL scroll (3.001s): 166 frames, 55.3 fps, jank 3 (deadline_missed); cpu 7.2%; pss max 124000 KiB; CRASHED 1 times (expected) (crash)
figures: 166 frames, 55.3 fps, jank 3 (deadline_missed), cpu 7.2%, pss max 124000 KiB
why: 
STOP settle (750ms, unfinished): frames not measured, fps not measured, jank not measured; cpu 7.3%; pss max not measured; not measured: frames (frames: no frame in the step); fps, jank (frames: no frame source); pss_max (memory: no read)
STOP settle (750ms, unfinished): frames not measured, fps not measured, jank not measured; cpu 7.3%; pss max not measured; not measured: frames (frames: no frame in the step); fps, jank (frames: no frame source); pss_max (memory: no read)
figures: frames not measured, fps not measured, jank not measured, cpu 7.3%, pss max not measured
why: not measured: frames (frames: no frame in the step); fps, jank (frames: no frame source); pss_max (memory: no read)
-- health
note: frames: auto source gfxinfo (last 0.5 s: gfxinfo 6 frames, layer "SurfaceView[com.perfgate.demo/com.perfgate.demo.MainActivity](BLAST)#0" 6)
trace: not recorded: Android 9 has no perfetto
== live
   0.4s  fps     -  jank   0  cpu  12.5%  pss - KiB  frames 1  gaps 0
   1.4s  fps  59.9  jank   2  cpu  31.2%  pss 123456 KiB  frames 60  gaps 1
   2.5s  fps  60.0  jank 104  cpu 100.0%  pss 99 KiB  frames 120  gaps 3
`

// WritePath says where the Result went, or that it went nowhere.
func TestWritePath(t *testing.T) {
	var b strings.Builder
	report.WritePath(&b, &result.Result{Path: "out/TestFeed@perf.json"})
	report.WritePath(&b, &result.Result{})
	if want := "result: out/TestFeed@perf.json\nresult: not written\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
