package perftest

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"golang.org/x/perf/benchfmt"
)

const cpuDef = "app share of device, /proc/stat, /proc/<pid>/stat, /proc/<pid>/task/*/stat"

// boundSession starts a session on the fake device bound to rt, as Start
// binds one to its test.
func boundSession(t *testing.T, rt *loggingT) (*Session, *fakeDevice) {
	t.Helper()
	f := newFake()
	s := startFake(t, f, fastConfig(t))
	s.t = rt
	register(rt, s)
	t.Cleanup(func() { unregister(rt, s) })
	return s, f
}

// A check called while the session runs waits for Stop and then checks
// the step that was the most recent when it was called; one called after
// Stop checks at once. Both report the line assert reports. Until the
// session stops a check has no verdict, and says so.
func TestBoundChecks(t *testing.T) {
	rt := &loggingT{}
	s, f := boundSession(t, rt)
	s.Step("scroll", func() { waitTicks(t, f, 5) })
	early := MaxCPU(rt, 4)
	if passed, checked := early.Passed(); passed || checked || len(rt.errs) != 0 {
		t.Fatalf("a check on a running session gave a verdict before Stop: passed %v, checked %v, reported %q", passed, checked, rt.errs)
	}
	s.Step("idle", func() { waitTicks(t, f, 3) })
	within := MaxCPUP90(rt, 6)
	late := MaxCPUP90(rt, 4)
	r := s.Stop()
	want := []string{
		"perf budget exceeded: scroll: cpu 5% > 4% (" + cpuDef + ")",
		"perf budget exceeded: idle: cpu_p90 5% > 4% (app share of device, nearest-rank p90 of ticks, /proc/stat, /proc/<pid>/stat, /proc/<pid>/task/*/stat)",
	}
	if strings.Join(rt.errs, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(rt.errs, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range []struct {
		name  string
		check *BoundCheck
		want  bool
	}{{"MaxCPU 4 on scroll", early, false}, {"MaxCPUP90 6 on idle", within, true}, {"MaxCPUP90 4 on idle", late, false}} {
		if passed, checked := c.check.Passed(); passed != c.want || !checked {
			t.Errorf("%s after Stop: passed %v, checked %v; want passed %v", c.name, passed, checked, c.want)
		}
	}
	if p90 := r.Step("scroll").CPU().P90; math.Abs(p90-5) > 1e-9 {
		t.Errorf("cpu p90 %v, want 5 (every tick 5 %%)", p90)
	}
	rt.errs = nil
	if passed, checked := MaxCPU(rt, 4).Passed(); passed || !checked || len(rt.errs) != 1 || !strings.HasPrefix(rt.errs[0], "perf budget exceeded: idle: cpu 5% > 4%") {
		t.Errorf("after Stop: passed %v, checked %v, reported %q", passed, checked, rt.errs)
	}
	rt.errs = nil
	cpu, _ := MaxCPU(rt, 6).Passed()
	noCrash, _ := NoCrash(rt).Passed()
	if !cpu || !noCrash || len(rt.errs) != 0 {
		t.Errorf("within budget after Stop: %v %v, reported %q", cpu, noCrash, rt.errs)
	}
}

// Every session-bound check reports, after Stop, the very lines assert's
// check of the same name reports on the session's last step, and has a
// verdict.
func TestEveryBoundCheckIsAssert(t *testing.T) {
	rt := &loggingT{}
	s, f := boundSession(t, rt)
	s.Step("scroll", func() { waitTicks(t, f, 4) })
	r := s.Stop()
	st := r.Step("scroll")
	for _, c := range []struct {
		name  string
		bound func(TestingT) *BoundCheck
		check func(assert.TestingT) bool
	}{
		{"MaxJank", func(t TestingT) *BoundCheck { return MaxJank(t, 0) }, func(t assert.TestingT) bool { return assert.MaxJank(t, st, 0) }},
		{"MinFPS", func(t TestingT) *BoundCheck { return MinFPS(t, 50) }, func(t assert.TestingT) bool { return assert.MinFPS(t, st, 50) }},
		{"MaxFrameTimeP95", func(t TestingT) *BoundCheck { return MaxFrameTimeP95(t, time.Millisecond) },
			func(t assert.TestingT) bool { return assert.MaxFrameTimeP95(t, st, time.Millisecond) }},
		{"MaxBigJank", func(t TestingT) *BoundCheck { return MaxBigJank(t, 0) }, func(t assert.TestingT) bool { return assert.MaxBigJank(t, st, 0) }},
		{"MaxStutter", func(t TestingT) *BoundCheck { return MaxStutter(t, 1) }, func(t assert.TestingT) bool { return assert.MaxStutter(t, st, 1) }},
		{"MaxCPU", func(t TestingT) *BoundCheck { return MaxCPU(t, 4) }, func(t assert.TestingT) bool { return assert.MaxCPU(t, st, 4) }},
		{"MaxCPUP90", func(t TestingT) *BoundCheck { return MaxCPUP90(t, 6) }, func(t assert.TestingT) bool { return assert.MaxCPUP90(t, st, 6) }},
		{"MaxPSS", func(t TestingT) *BoundCheck { return MaxPSS(t, 1000) }, func(t assert.TestingT) bool { return assert.MaxPSS(t, st, 1000) }},
		{"MaxMemoryGrowth", func(t TestingT) *BoundCheck { return MaxMemoryGrowth(t, 1) }, func(t assert.TestingT) bool { return assert.MaxMemoryGrowth(t, st, 1) }},
		{"MaxTraffic", func(t TestingT) *BoundCheck { return MaxTraffic(t, 10, 10) }, func(t assert.TestingT) bool { return assert.MaxTraffic(t, st, 10, 10) }},
		{"MaxStartup", func(t TestingT) *BoundCheck { return MaxStartup(t, time.Second) }, func(t assert.TestingT) bool { return assert.MaxStartup(t, st, time.Second) }},
		{"NoCrash", func(t TestingT) *BoundCheck { return NoCrash(t) }, func(t assert.TestingT) bool { return assert.NoCrash(t, st) }},
		{"MaxBlock", func(t TestingT) *BoundCheck { return MaxBlock(t, time.Millisecond) }, func(t assert.TestingT) bool { return assert.MaxBlock(t, st, time.Millisecond) }},
		{"NoANR", func(t TestingT) *BoundCheck { return NoANR(t) }, func(t assert.TestingT) bool { return assert.NoANR(t, st) }},
	} {
		rt.errs = nil
		passed, checked := c.bound(rt).Passed()
		got := rt.errs
		want := &loggingT{}
		ok := c.check(want)
		if !checked || passed != ok || strings.Join(got, "\n") != strings.Join(want.errs, "\n") {
			t.Errorf("%s: bound check passed %v (checked %v) reporting %q; assert passed %v reporting %q", c.name, passed, checked, got, ok, want.errs)
		}
	}
}

// Without named steps the checks read the whole session.
func TestBoundChecksWholeSession(t *testing.T) {
	rt := &loggingT{}
	s, f := boundSession(t, rt)
	waitTicks(t, f, 6)
	r := s.Stop()
	if r.Whole == nil || r.Whole.Name != "session" || r.Whole.CPUStats.Intervals < 5 {
		t.Fatalf("whole session %+v", r.Whole)
	}
	MaxCPU(rt, 4)
	if want := "perf budget exceeded: session: cpu 5% > 4% (" + cpuDef + ")"; len(rt.errs) != 1 || rt.errs[0] != want {
		t.Errorf("got %q, want %q", rt.errs, want)
	}
}

func TestBoundCheckWithoutSession(t *testing.T) {
	rt := &loggingT{}
	if passed, checked := MaxJank(rt, 3).Passed(); passed || !checked {
		t.Errorf("a check with no session: passed %v, checked %v; want a failure", passed, checked)
	}
	if want := "perftest.MaxJank: this test has no session: call perftest.Start(t, …) first"; len(rt.errs) != 1 || rt.errs[0] != want {
		t.Errorf("got %q", rt.errs)
	}
}

// Repeat records n iterations under the names a repeated step gets.
func TestRepeat(t *testing.T) {
	f := newFake()
	s := startFake(t, f, fastConfig(t))
	var seen []int
	s.Repeat("scroll", 3, func(i int) { seen = append(seen, i); waitTicks(t, f, 2) })
	r := s.Stop()
	var names []string
	for _, st := range r.Steps {
		names = append(names, st.Name)
	}
	if strings.Join(names, ",") != "scroll,scroll#2,scroll#3" || len(seen) != 3 || seen[2] != 2 {
		t.Errorf("steps %v, iterations %v", names, seen)
	}
}

// benchRecorder stands in for *testing.B.
type benchRecorder struct {
	loggingT
	metrics map[string]float64
}

func (b *benchRecorder) ReportMetric(n float64, unit string) { b.metrics[unit] = n }

// Under a benchmark each step's metrics are reported in benchstat units,
// prefixed by the step when there are several; iterations are averaged.
func TestReportMetric(t *testing.T) {
	b := &benchRecorder{metrics: map[string]float64{}}
	f := newFake()
	s := startFake(t, f, fastConfig(t))
	s.t = b
	s.Repeat("scroll", 2, func(int) { waitTicks(t, f, 3) })
	s.Step("idle", func() { waitTicks(t, f, 3) })
	s.Stop()
	for unit, want := range map[string]float64{"scroll-app-cpu-%": 5, "idle-app-cpu-%": 5, "scroll-pss-max-B": 13000 * 1024, "idle-device-cpu-%": 25} {
		if got, ok := b.metrics[unit]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (reported: %v), want %v", unit, got, ok, want)
		}
	}
	for unit := range b.metrics {
		if strings.ContainsAny(unit, " /=") && !strings.HasSuffix(unit, "-B/min") {
			t.Errorf("unit %q is not a benchstat token", unit)
		}
	}
}

// A process change inside Restarting (a cold launch's force-stop) is a
// restart, not a crash; the same change outside it is a crash.
func TestRestartingIsNoCrash(t *testing.T) {
	f := newFake()
	s := startFake(t, f, fastConfig(t))
	waitTicks(t, f, 2)
	s.Step("launch", func() {
		s.Restarting(func() {
			f.setPIDs(5151)
			waitTicks(t, f, 2)
		})
	})
	s.Step("tap", func() {
		// The fake logs a crash 20 ms before the process goes; four ticks
		// (three intervals of 10 ms at least) put that line inside tap.
		waitTicks(t, f, 4)
		f.setPIDs(6161)
		waitTicks(t, f, 2)
	})
	r := s.Stop()
	if len(r.Restarts) != 1 || r.Restarts[0].Step != "launch" || r.Step("launch").Crashed() {
		t.Errorf("restarts %+v, launch crashes %+v", r.Restarts, r.Step("launch").Crashes)
	}
	if len(r.Crashes) != 1 || r.Crashes[0].Step != "tap" {
		t.Errorf("crashes %+v, want one in tap", r.Crashes)
	}
}

// The first tick after Restarting excuses only the end of a process that
// ran before the restart began: a process the restart started that
// crashed before that tick (a host too busy to tick in between) is a
// crash.
func TestCrashBeforeTheTickAfterARestart(t *testing.T) {
	f := newFake()
	var hold atomic.Bool // the cheap lane's ticks fail while set
	held := make(chan struct{}, 1000)
	f.fail = func(ctx context.Context, cmds []string) error {
		if hold.Load() && slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "pidof ") }) {
			select {
			case held <- struct{}{}:
			default:
			}
			return errors.New("held")
		}
		return nil
	}
	s := startFake(t, f, fastConfig(t))
	waitTicks(t, f, 2)
	s.Step("launch", func() {
		s.Restarting(func() {
			f.setPIDs(5151)
			waitTicks(t, f, 2) // ticks see the new process
			hold.Store(true)
		})
	})
	s.Step("tap", func() {
		// The fake logs the crash 20 ms before the process goes: eleven
		// held ticks into the step (ten intervals, 100 ms at least) put
		// that line inside it, and no tick went through meanwhile. A
		// minute bounds a broken test, not the wait.
		for len(held) > 0 {
			<-held
		}
		timeout := time.After(time.Minute)
		for i := range 11 {
			select {
			case <-held:
			case <-timeout:
				t.Fatalf("%d held ticks in a minute", i)
			}
		}
		f.setPIDs(6161)
		hold.Store(false)
		waitTicks(t, f, 2)
	})
	r := s.Stop()
	if len(r.Restarts) != 1 || r.Restarts[0].PID != 4242 {
		t.Errorf("restarts %+v, want the one of pid 4242 the launch replaced", r.Restarts)
	}
	if len(r.Crashes) != 1 || r.Crashes[0].PID != 5151 || r.Crashes[0].Step != "tap" {
		t.Errorf("crashes %+v, want pid 5151's in tap", r.Crashes)
	}
}

// Under a real testing.B the metrics arrive as the benchmark's extra
// units, and the line `go test -bench` prints for them parses with
// golang.org/x/perf/benchfmt, as benchstat reads it.
func TestRealBenchmarkMetrics(t *testing.T) {
	res := testing.Benchmark(func(b *testing.B) {
		f := newFake()
		s, err := newSession(context.Background(), f, fastConfig(t))
		if err != nil {
			b.Fatal(err)
		}
		s.t = b
		s.Step("scroll", func() { waitTicks(t, f, 3) })
		s.Stop()
	})
	if got := res.Extra["app-cpu-%"]; math.Abs(got-5) > 1e-9 {
		t.Fatalf("app-cpu-%% = %v, want 5; extra %v", got, res.Extra)
	}
	line := "BenchmarkPerf/step=scroll " + res.String()
	r := benchfmt.NewReader(strings.NewReader(line+"\n"), "bench.txt")
	if !r.Scan() {
		t.Fatalf("benchfmt read nothing: %v", r.Err())
	}
	rec, ok := r.Result().(*benchfmt.Result)
	if !ok {
		t.Fatalf("benchfmt: %v (line %q)", r.Result(), line)
	}
	if v, ok := rec.Value("app-cpu-%"); !ok || math.Abs(v-5) > 1e-9 {
		t.Errorf("benchfmt app-cpu-%% = %v %v in %q", v, ok, line)
	}
	if _, ok := rec.Value("pss-max-B"); !ok {
		t.Errorf("no pss-max-B in %q", line)
	}
}
