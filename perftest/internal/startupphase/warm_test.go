package startupphase_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx/adbtest"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/perftest/internal/startupphase"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
	"github.com/perfgate/perfgate/trace"
)

// warmSession runs, on a simulated phone, an open and BACK, then a step of
// two warm starts with a trace, and returns the step's startup and the
// trace, read for its main threads.
func warmSession(t *testing.T) (*result.StartupStats, *trace.Analysis, trace.Clock) {
	wl, err := simdevice.Preset("slow-start")
	if err != nil {
		t.Fatal(err)
	}
	wl.Startup.Warm = simdevice.WarmStart{Sections: []simdevice.StartSection{{Name: "com.example.MainActivity.onCreate", Ms: 300}}}
	sim, err := simdevice.New(simdevice.Config{Workload: wl, RefreshHz: 60})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	srv := adbtest.NewPipeServer(sim)
	t.Cleanup(srv.Close)
	sc := scenario.Start(t, srv.Open(sim.Serial()), wl.Package, perftest.WithResultsDir(t.TempDir()), perftest.WithTrace(perftest.TraceConfig{}))
	sc.Step("open", scenario.Launch(scenario.Cold), scenario.Back())
	sc.Step("launch", scenario.LaunchWith(scenario.Warm, 2, scenario.StartupOptions{}))
	r := sc.Stop()
	su := r.Step("launch").Startup
	if su == nil || len(su.Iterations) != 2 || su.PhasesNotMeasured != "" || r.Clock.Source != "gfxinfo Uptime" {
		t.Fatalf("startup %+v, clock %+v", su, r.Clock)
	}
	f, err := os.Open(r.Trace.File)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := trace.Analyze(f, trace.Options{Package: wl.Package, MainThreads: true})
	if err != nil {
		t.Fatal(err)
	}
	return su, a, trace.Monotonic
}

// A warm start is placed only where its window says surely which slices
// are its own: a launch no session timed, a launch am start -W did not
// report as a start, and a clock whose uncertainty puts the launch's own
// activityStart (the phone's: a tenth into the 900 ms start) on either
// side of its am start are not placed, and each says why; the clock
// known to within 0 ns places them as the session did.
func TestWarmStartsNotPlacedSurely(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		su, a, clock := warmSession(t)
		attach := func(u time.Duration, edit func(it []result.StartupSample)) *result.StartupStats {
			st := *su
			st.Iterations = slices.Clone(su.Iterations)
			for i := range st.Iterations {
				st.Iterations[i].Phases = nil
			}
			if edit != nil {
				edit(st.Iterations)
			}
			clk := startupphase.Clock{
				ToDevice:      func(ns int64) int64 { v, _ := a.ConvertTo(ns, clock); return v },
				FromDevice:    func(ns int64) (int64, error) { return a.Convert(ns, clock) },
				UncertaintyNs: int64(u),
			}
			startupphase.Attach(a, a.Start, a.End, &st, clk)
			return &st
		}
		if st := attach(0, nil); st.PhasesNotMeasured != "" || len(st.Iterations[1].Phases) == 0 || st.Iterations[1].Phases[0].DeviceStartNs != su.Iterations[1].Phases[0].DeviceStartNs {
			t.Errorf("exact clock: %q, phases %+v", st.PhasesNotMeasured, st.Iterations[1].Phases)
		}
		for _, tc := range []struct {
			u    time.Duration
			edit func([]result.StartupSample)
			why  string
		}{
			{0, func(it []result.StartupSample) { it[0].DeviceStartNs, it[0].DeviceEndNs = 0, 0 }, "launch 1: the launch's am start was not timed"},
			{0, func(it []result.StartupSample) { it[1].LaunchState = "UNKNOWN (-1)" }, `launch 2: am start -W reported launch state "UNKNOWN (-1)"`},
			{200 * time.Millisecond, nil, "launches 1, 2: activityStart begins within the clock's uncertainty (±200ms) of the launch's am start"},
			{500 * time.Millisecond, nil, "launches 1, 2: the launch is no longer than twice the clock's uncertainty (±500ms)"},
		} {
			st := attach(tc.u, tc.edit)
			if !strings.HasPrefix(st.PhasesNotMeasured, "startup phases: "+tc.why) {
				t.Errorf("uncertainty %v: not measured %q, want %q", tc.u, st.PhasesNotMeasured, tc.why)
			}
			for i, it := range st.Iterations {
				if len(it.Phases) > 0 && strings.Contains(tc.why, "launches") {
					t.Errorf("uncertainty %v: launch %d placed: %+v", tc.u, i+1, it.Phases)
				}
			}
		}
	})
}
