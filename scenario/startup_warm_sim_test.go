package scenario_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
)

// warmSections makes the slow-start app spend its warm start in its
// activity's onCreate, its hot start in onResume, with a file read each.
func warmSections(wl *simdevice.Workload) {
	wl.Startup.Warm = simdevice.WarmStart{Sections: []simdevice.StartSection{{Name: "com.example.MainActivity.onCreate", Ms: 300, IOMs: 40}}}
	wl.Startup.Hot = simdevice.WarmStart{Sections: []simdevice.StartSection{{Name: "com.example.MainActivity.onResume", Ms: 60, IOMs: 10}}}
}

// Each warm and hot start of a step gets its phases from the trace, the
// phone's: the app was opened and sent away (BACK, HOME) before the step,
// so the step's first preparation is itself a start of the same kind, in
// the step's window, and each launch is read from its own. Every phase's
// span, the app's section in the first, the main thread's I/O in it, the
// first frame after the doFrame; with noise too, every launch its own. A
// failing startup budget names the phase of the median launch and its
// section, the phone's.
func TestWarmAndHotStartPhasesAreThePhones(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind  scenario.StartKind
		away  scenario.Action
		noise simdevice.Noise
	}{
		{scenario.Warm, scenario.Back(), simdevice.Noise{}},
		{scenario.Hot, scenario.Home(), simdevice.Noise{}},
		{scenario.Warm, scenario.Back(), simdevice.Noise{Seed: 4, FramePct: 20}},
		{scenario.Hot, scenario.Home(), simdevice.Noise{Seed: 7, FramePct: 20}},
	} {
		t.Run(fmt.Sprintf("%s noise %g", tc.kind, tc.noise.FramePct), func(t *testing.T) {
			simtest.Bubble(t, func(t *testing.T) {
				p := newPhoneConfig(t, "slow-start", warmSections, simdevice.Config{Noise: tc.noise})
				sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()), perftest.WithTrace(perftest.TraceConfig{}))
				sc.Step("open", scenario.Launch(scenario.Cold), tc.away)
				sc.Step("launch", scenario.LaunchWith(tc.kind, 3, scenario.StartupOptions{}))
				r := sc.Stop()
				su := r.Step("launch").Startup
				truth := p.sim.World().Truth().Startups
				kind := strings.ToUpper(string(tc.kind))
				// The cold open, the first preparation, the three launches.
				if su == nil || len(su.Iterations) != 3 || len(truth) != 5 || truth[1].Kind != kind {
					t.Fatalf("startup %+v; the phone's launches %+v", su, truth)
				}
				if su.PhasesNotMeasured != "" {
					t.Fatalf("phases not measured: %s", su.PhasesNotMeasured)
				}
				checkWarmPhases(t, su, truth[2:], kind)
				checkWarmCause(t, r.Step("launch"), truth[2:])
			})
		})
	}
}

// checkWarmPhases compares each launch's phases with the phone's truth:
// every phase's span, the section in the first phase and the main
// thread's I/O in it, then the first frame presented from the doFrame's
// end.
func checkWarmPhases(t *testing.T, su *result.StartupStats, truth []simdevice.TruthStartup, kind string) {
	t.Helper()
	for i, it := range su.Iterations {
		tr := truth[i]
		if tr.Kind != kind || len(tr.Phases) == 0 || len(it.Phases) != len(tr.Phases)+1 {
			t.Fatalf("launch %d: phases %+v, the phone's %s %+v", i, it.Phases, tr.Kind, tr.Phases)
		}
		checkSpans(t, i, it.Phases, tr.Phases)
		first, want := it.Phases[0], tr.Phases[0]
		if len(first.Slices) == 0 || first.Slices[0].Name != want.Sections[0].Name || math.Abs(first.Slices[0].DurMs-float64(want.Sections[0].DurNs)/1e6) > 1e-6 {
			t.Errorf("launch %d: %s's slices %+v, the phone's sections %+v", i, first.Name, first.Slices, want.Sections)
		}
		if st := first.MainThread; st == nil || want.IONs == 0 || st.UninterruptibleNs != want.IONs || st.RunningNs != want.EndNs-want.StartNs-want.IONs {
			t.Errorf("launch %d: %s's main thread %+v, the phone's %d ns of I/O in %d ns", i, first.Name, st, want.IONs, want.EndNs-want.StartNs)
		}
		doFrame, shown := it.Phases[len(tr.Phases)-1], it.Phases[len(tr.Phases)]
		if shown.Name != "first frame presented" || shown.DeviceStartNs != doFrame.DeviceEndNs || shown.DeviceEndNs > tr.DisplayedNs {
			t.Errorf("launch %d: after the doFrame %+v, %+v; Displayed at %d", i, doFrame, shown, tr.DisplayedNs)
		}
	}
}

// checkWarmCause fails the step's startup budget and checks that the line
// names the longest phase of the phone's median launch, with its section.
func checkWarmCause(t *testing.T, st *result.Step, truth []simdevice.TruthStartup) {
	t.Helper()
	var median *simdevice.TruthStartup
	for i := range truth {
		if float64(truth[i].Displayed.Milliseconds()) == st.Startup.InitialDisplayMs {
			median = &truth[i]
		}
	}
	if median == nil {
		t.Fatalf("no launch of the phone's is the median %v ms", st.Startup.InitialDisplayMs)
	}
	// The first phase, where the app's code runs, is the longest.
	long := median.Phases[0]
	for _, p := range median.Phases[1:] {
		if p.EndNs-p.StartNs >= long.EndNs-long.StartNs {
			t.Fatalf("the phone's %s is no longer than its %s", long.Name, p.Name)
		}
	}
	cause := fmt.Sprintf("; %s %.0f ms, of which %.0f ms in %s)", long.Name, float64(long.EndNs-long.StartNs)/1e6, float64(long.Sections[0].DurNs)/1e6, long.Sections[0].Name)
	ft := &fakeT{}
	assert.MaxStartup(ft, st, 100*time.Millisecond)
	if len(ft.errs) != 1 || !strings.HasSuffix(ft.errs[0], cause) {
		t.Errorf("got %q\nwant it to end %q", ft.errs, cause)
	}
}

// On a phone whose app has not run, the step's first preparation is a
// cold start, with bindApplication, activityStart and activityResume of
// its own, in the step's window: the launches are still the phone's warm
// and hot starts, not it.
func TestWarmAndHotStartsAfterAColdPreparation(t *testing.T) {
	t.Parallel()
	for _, kind := range []scenario.StartKind{scenario.Warm, scenario.Hot} {
		t.Run(string(kind), func(t *testing.T) {
			simtest.Bubble(t, func(t *testing.T) {
				p := newPhone(t, server, "slow-start", warmSections)
				sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()), perftest.WithTrace(perftest.TraceConfig{}))
				sc.Step("launch", scenario.LaunchWith(kind, 2, scenario.StartupOptions{}))
				r := sc.Stop()
				su := r.Step("launch").Startup
				truth := p.sim.World().Truth().Startups
				if su == nil || len(su.Iterations) != 2 || len(truth) != 3 || truth[0].Kind != "COLD" || su.PhasesNotMeasured != "" {
					t.Fatalf("startup %+v; the phone's launches %+v", su, truth)
				}
				checkWarmPhases(t, su, truth[1:], strings.ToUpper(string(kind)))
			})
		})
	}
}
