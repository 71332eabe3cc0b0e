package frametiming_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/frametiming"
	"github.com/perfgate/perfgate/trace/tracewriter"
)

const (
	pkg   = "com.example"
	pid   = 4242
	rtTid = 4259
	layer = "TX - com.example/com.example.Main#0"
)

// truthFrame is one frame a synthetic trace holds, with what each of its
// parts is.
type truthFrame struct {
	id                   int64
	vsync, uiStart       int64 // expected start, doFrame start
	uiEnd, rtStart       int64
	rtEnd, end, deadline int64 // DrawFrame end, actual end, expected end
	noTimeline, noDraw   bool
	resynced             bool // a nested "resynced" doFrame slice too
}

// writeTrace writes the frames as a phone would: FrameTimeline's expected
// and actual surface frames, the main thread's doFrame and RenderThread's
// DrawFrames slices (atrace), on CPUs 1 and 2.
func writeTrace(t testing.TB, fs []truthFrame, unfinished bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := tracewriter.New(&buf)
	w.ClockSnapshot(map[trace.Clock]int64{trace.Boottime: 1_000_000, trace.Monotonic: 500_000})
	w.SystemInfo("google/sim/sim:14", "6.1", 34)
	w.ProcessTree(1_000_000, []tracewriter.Process{{PID: pid, PPID: 1, Cmdline: pkg}}, nil)
	var ui, rt []tracewriter.Event
	cookie := int64(0)
	p := strconv.Itoa(pid)
	for _, f := range fs {
		if !f.noTimeline {
			sf := tracewriter.SurfaceFrame{Token: f.id, DisplayToken: f.id + 1e9, PID: pid, Layer: layer}
			cookie++
			sf.Cookie = cookie
			w.ExpectedSurfaceFrame(f.vsync, sf)
			w.FrameEnd(f.deadline, cookie)
			cookie++
			sf.Cookie, sf.Jank, sf.Present = cookie, trace.JankNone, trace.PresentOnTime
			w.ActualSurfaceFrame(f.vsync, sf)
			w.FrameEnd(f.end, cookie)
		}
		ui = append(ui, tracewriter.Event{Ts: f.uiStart, PID: pid, Print: "B|" + p + "|Choreographer#doFrame " + strconv.FormatInt(f.id, 10)})
		if f.resynced {
			ui = append(ui, tracewriter.Event{Ts: f.uiStart + 10, PID: pid, Print: "B|" + p + "|Choreographer#doFrame - resynced to " + strconv.FormatInt(f.id+1, 10) + " in 3.2ms"},
				tracewriter.Event{Ts: f.uiEnd - 10, PID: pid, Print: "E|" + p})
		}
		ui = append(ui, tracewriter.Event{Ts: f.uiEnd, PID: pid, Print: "E|" + p})
		if !f.noDraw {
			rt = append(rt, tracewriter.Event{Ts: f.rtStart, PID: rtTid, Print: "B|" + p + "|DrawFrames " + strconv.FormatInt(f.id, 10)},
				tracewriter.Event{Ts: f.rtEnd, PID: rtTid, Print: "E|" + p})
		}
	}
	if unfinished {
		last := fs[len(fs)-1]
		rt = append(rt, tracewriter.Event{Ts: last.rtEnd + 1000, PID: rtTid, Print: "B|" + p + "|DrawFrames " + strconv.FormatInt(last.id+1, 10)})
	}
	w.Ftrace(tracewriter.Bundle{CPU: 1, Events: ui})
	w.Ftrace(tracewriter.Bundle{CPU: 2, Events: rt})
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// randomFrames are n frames of a 120 Hz phone with random stage lengths;
// every so often one lacks its FrameTimeline frames or its DrawFrame, or
// has a nested resynced doFrame.
func randomFrames(rng *rand.Rand, n int) []truthFrame {
	const period = 8_333_333
	var out []truthFrame
	var uiFree, rtFree int64 // each thread runs one frame at a time
	for i := range n {
		v := int64(2_000_000_000 + i*period)
		f := truthFrame{id: int64(7000 + i), vsync: v, uiStart: max(v, uiFree) + rng.Int64N(2_000_000)}
		f.uiEnd = f.uiStart + 500_000 + rng.Int64N(30_000_000)
		f.rtStart = max(f.uiEnd, rtFree) + rng.Int64N(100_000)
		f.rtEnd = f.rtStart + 300_000 + rng.Int64N(12_000_000)
		uiFree, rtFree = f.uiEnd+1, f.rtEnd+1
		f.end = f.rtEnd + rng.Int64N(3_000_000)
		f.deadline = v + 2*period
		f.noTimeline = rng.IntN(9) == 0
		f.noDraw = rng.IntN(11) == 0
		f.resynced = rng.IntN(5) == 0
		out = append(out, f)
	}
	return out
}

// percentiles is androidx MetricResult's rule written again: rank
// p/100·(m−1), linear between the two ranks around it.
func percentiles(vs []float64) [4]float64 {
	slices.Sort(vs)
	var out [4]float64
	for k, p := range []float64{50, 90, 95, 99} {
		r := p / 100 * float64(len(vs)-1)
		lo := math.Floor(r)
		hi := math.Min(lo+1, float64(len(vs)-1))
		out[k] = vs[int(lo)] + (vs[int(hi)]-vs[int(lo)])*(r-lo)
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func checkPercentiles(t *testing.T, what string, got *frametiming.Percentiles, want [4]float64) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: absent, want %v", what, want)
	}
	g := [4]float64{got.P50, got.P90, got.P95, got.P99}
	for k := range g {
		if !near(g[k], want[k]) {
			t.Errorf("%s = %v, want %v", what, g, want)
			return
		}
	}
}

// analyze reads a trace with a Collector.
func analyze(t *testing.T, data []byte, opts trace.Options) (*trace.Analysis, *frametiming.Timing) {
	t.Helper()
	c := &frametiming.Collector{}
	opts.Marker = c.Marker
	a, err := trace.Analyze(bytes.NewReader(data), opts)
	if err != nil {
		t.Fatal(err)
	}
	return a, frametiming.Compute(a, c)
}

// On random frames, the figures are the truth's by Macrobenchmark's rule:
// only frames with both slices and both FrameTimeline frames count.
func TestMacrobenchmarkRule(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 37))
			fs := randomFrames(rng, 5+rng.IntN(200))
			a, tm := analyze(t, writeTrace(t, fs, true), trace.Options{Package: pkg})
			var cpu, over []float64
			for _, f := range fs {
				if f.noTimeline || f.noDraw {
					continue
				}
				cpu = append(cpu, float64(f.rtEnd-f.uiStart)/1e6)
				over = append(over, float64(f.end-f.deadline)/1e6)
			}
			st := tm.Window(a.Start, a.End+1)
			if st.Frames != len(cpu) {
				t.Fatalf("frames = %d, want %d", st.Frames, len(cpu))
			}
			if len(cpu) == 0 {
				if st.CPU != nil || st.Overrun != nil || st.NotMeasured[frametiming.CPU] == "" {
					t.Fatalf("no frame counts, yet %+v", st)
				}
				return
			}
			checkPercentiles(t, "cpu", st.CPU, percentiles(cpu))
			checkPercentiles(t, "overrun", st.Overrun, percentiles(over))
			if st.OverrunDefinition != frametiming.OverrunDefinition {
				t.Errorf("definition %q", st.OverrunDefinition)
			}
			if tm.Rejected["slice_unfinished"] != 1 {
				t.Errorf("rejected %v, want the one DrawFrames still open", tm.Rejected)
			}
		})
	}
}

// A window holds the frames due in it; an empty one says why it has none.
func TestWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	fs := randomFrames(rng, 60)
	for i := range fs {
		fs[i].noTimeline, fs[i].noDraw = false, false
	}
	a, tm := analyze(t, writeTrace(t, fs, false), trace.Options{Package: pkg})
	lo, hi := fs[10].vsync, fs[30].vsync // boottime is the trace clock here
	var over []float64
	for _, f := range fs[10:30] {
		over = append(over, float64(f.end-f.deadline)/1e6)
	}
	st := tm.Window(lo, hi)
	if st.Frames != 20 {
		t.Fatalf("frames = %d, want 20", st.Frames)
	}
	checkPercentiles(t, "overrun", st.Overrun, percentiles(over))
	empty := tm.Window(a.End+1, a.End+2)
	if empty.Frames != 0 || empty.CPU != nil || empty.Overrun != nil || empty.NotMeasured[frametiming.Overrun] == "" {
		t.Errorf("empty window: %+v", empty)
	}
}

// Without DrawFrame slices (atrace gfx off) no frame counts by the rule:
// the CPU figures are absent with the reason, the overrun is taken over
// FrameTimeline's frames and says so. Without FrameTimeline (before
// Android 12) the overrun is absent and the CPU figures stay.
func TestWithoutSlicesOrTimeline(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	fs := randomFrames(rng, 40)
	var over, cpu []float64
	for i := range fs {
		fs[i].noDraw, fs[i].noTimeline = true, false
		over = append(over, float64(fs[i].end-fs[i].deadline)/1e6)
		cpu = append(cpu, float64(fs[i].rtEnd-fs[i].uiStart)/1e6)
	}
	a, tm := analyze(t, writeTrace(t, fs, false), trace.Options{Package: pkg})
	st := tm.Window(a.Start, a.End+1)
	if st.CPU != nil || !bytes.Contains([]byte(st.NotMeasured[frametiming.CPU]), []byte("DrawFrame")) {
		t.Errorf("cpu %+v, reason %q", st.CPU, st.NotMeasured[frametiming.CPU])
	}
	checkPercentiles(t, "overrun", st.Overrun, percentiles(over))
	if st.OverrunDefinition != frametiming.TimelineDefinition {
		t.Errorf("definition %q", st.OverrunDefinition)
	}

	for i := range fs {
		fs[i].noDraw, fs[i].noTimeline = false, true
	}
	a, tm = analyze(t, writeTrace(t, fs, false), trace.Options{Package: pkg})
	st = tm.Window(a.Start, a.End+1)
	checkPercentiles(t, "cpu", st.CPU, percentiles(cpu))
	if st.Overrun != nil || st.NotMeasured[frametiming.Overrun] == "" {
		t.Errorf("overrun %+v, reason %q", st.Overrun, st.NotMeasured[frametiming.Overrun])
	}
}

// Percentile is MetricResult's: linear between ranks.
func TestPercentile(t *testing.T) {
	vs := []float64{4, 1, 3, 2}
	p := frametiming.PercentilesOf(vs)
	// Ranks 1.5, 2.7, 2.85, 2.97 of 1 2 3 4.
	if !near(p.P50, 2.5) || !near(p.P90, 3.7) || !near(p.P95, 3.85) || !near(p.P99, 3.97) {
		t.Errorf("percentiles of 1..4 = %+v", p)
	}
	if one := frametiming.PercentilesOf([]float64{-2.5}); *one != (frametiming.Percentiles{P50: -2.5, P90: -2.5, P95: -2.5, P99: -2.5}) {
		t.Errorf("one value: %+v", one)
	}
}
