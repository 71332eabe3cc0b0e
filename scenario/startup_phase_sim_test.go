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

// Each cold start of a step with a trace gets its phases from the trace,
// and they are the phone's: every phase's span, the app's sections in
// bindApplication, and a failing startup budget names the longest phase
// and the slice in it that the phone put there.
func TestColdStartPhasesAreThePhones(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		p := newPhone(t, server, "slow-start", slowBind(false))
		sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()), perftest.WithTrace(perftest.TraceConfig{}))
		sc.Step("launch", scenario.LaunchWith(scenario.Cold, 3, scenario.StartupOptions{FullyDrawn: 4 * time.Second}))
		r := sc.Stop()
		su := r.Step("launch").Startup
		truth := p.sim.World().Truth().Startups
		if su == nil || len(su.Iterations) != 3 || len(truth) != 3 {
			t.Fatalf("startup %+v; the phone launched %d times", su, len(truth))
		}
		if su.PhasesNotMeasured != "" {
			t.Fatalf("phases not measured: %s", su.PhasesNotMeasured)
		}
		checkPhases(t, su, truth)
		// The failing line names the phone's longest phase, bindApplication
		// (the median launch's: all three are alike without noise), and its
		// longest section.
		tb := truth[0].Phases[1]
		cause := fmt.Sprintf("bindApplication %d ms, of which %d ms in %s", (tb.EndNs-tb.StartNs)/1e6, tb.Sections[0].DurNs/1e6, tb.Sections[0].Name)
		ft := &fakeT{}
		assert.MaxStartup(ft, r.Step("launch"), time.Second)
		want := "perf budget exceeded: launch: startup_initial 1200ms > 1000ms (time to initial display, cold start, am start -W TotalTime, median of 3; " + cause + ")"
		if len(ft.errs) != 1 || ft.errs[0] != want {
			t.Errorf("got %q\nwant %q", ft.errs, want)
		}
		if cause != "bindApplication 520 ms, of which 380 ms in com.example.App.onCreate" {
			t.Errorf("the phone's truth is %q", cause)
		}
	})
}

// With noise every launch draws its own factor, so the three differ:
// each launch's phases are still the phone's, and the failing line names
// the bindApplication of the launch that is the median, with its section.
func TestColdStartPhasesWithNoise(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		p := newPhoneConfig(t, "slow-start", slowBind(false), simdevice.Config{Noise: simdevice.Noise{Seed: 4, FramePct: 20}})
		sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()), perftest.WithTrace(perftest.TraceConfig{}))
		sc.Step("launch", scenario.LaunchWith(scenario.Cold, 3, scenario.StartupOptions{FullyDrawn: 4 * time.Second}))
		r := sc.Stop()
		su := r.Step("launch").Startup
		truth := p.sim.World().Truth().Startups
		if su == nil || len(su.Iterations) != 3 || len(truth) != 3 || su.PhasesNotMeasured != "" {
			t.Fatalf("startup %+v; the phone launched %d times", su, len(truth))
		}
		checkPhases(t, su, truth)
		var median *simdevice.TruthStartup
		binds := map[int64]bool{}
		for i := range truth {
			b := truth[i].Phases[1]
			binds[b.EndNs-b.StartNs] = true
			if float64(truth[i].Displayed.Milliseconds()) == su.InitialDisplayMs {
				median = &truth[i]
			}
		}
		if median == nil || len(binds) != 3 {
			t.Fatalf("no launch of the phone's is the median %v ms, or their bindApplications are alike: %v", su.InitialDisplayMs, binds)
		}
		tb := median.Phases[1]
		cause := fmt.Sprintf("; bindApplication %d ms, of which %d ms in %s)", (tb.EndNs-tb.StartNs)/1e6, tb.Sections[0].DurNs/1e6, tb.Sections[0].Name)
		ft := &fakeT{}
		assert.MaxStartup(ft, r.Step("launch"), time.Second)
		if len(ft.errs) != 1 || !strings.HasSuffix(ft.errs[0], cause) {
			t.Errorf("got %q\nwant it to end %q", ft.errs, cause)
		}
	})
}

// What a trace cannot place is said, never guessed: in a trace without
// the am category warm starts have no phases (no activityStart slice
// begins them), and cold starts only those the app's own slices show
// (each launch is a process of its own): its first doFrame, the phone's.
func TestStartupPhasesNotMeasured(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind scenario.StartKind
		cats []string
		why  string
	}{
		{scenario.Warm, []string{"view", "gfx"}, "launches 1, 2: no activityStart slice on the app's main thread"},
		{scenario.Cold, []string{"view", "gfx"}, "no bindApplication slice on the app's main thread (atrace category am)"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			simtest.Bubble(t, func(t *testing.T) {
				p := newPhone(t, server, "slow-start", slowBind(false))
				sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()), perftest.WithTrace(perftest.TraceConfig{Categories: tc.cats}))
				sc.Step("launch", scenario.LaunchWith(tc.kind, 2, scenario.StartupOptions{}))
				r := sc.Stop()
				su := r.Step("launch").Startup
				if su == nil || !strings.Contains(su.PhasesNotMeasured, tc.why) {
					t.Fatalf("startup %+v, want phases not measured: %s", su, tc.why)
				}
				truth := p.sim.World().Truth().Startups
				for i, it := range su.Iterations {
					if tc.kind == scenario.Warm {
						if len(it.Phases) != 0 {
							t.Errorf("a warm launch has phases %+v", it.Phases)
						}
						continue
					}
					want := truth[i].Phases[4]
					if len(it.Phases) == 0 || it.Phases[0].Name != want.Name || it.Phases[0].DeviceStartNs != want.StartNs || it.Phases[0].DeviceEndNs != want.EndNs {
						t.Errorf("launch %d: phases %+v, want first the phone's %+v", i, it.Phases, want)
					}
					for _, ph := range it.Phases {
						if ph.Name == "bindApplication" || ph.Name == "process start" {
							t.Errorf("launch %d: a phase the trace cannot show: %+v", i, ph)
						}
					}
				}
			})
		})
	}
}

// checkSpans compares launch i's phases with the phone's, one for one from
// the first: each one's name and span.
func checkSpans(t *testing.T, i int, got []result.StartupPhase, want []simdevice.TruthPhase) {
	t.Helper()
	if len(got) < len(want) {
		t.Fatalf("launch %d: phases %+v, the phone's %+v", i, got, want)
	}
	for k, w := range want {
		if g := got[k]; g.Name != w.Name || g.DeviceStartNs != w.StartNs || g.DeviceEndNs != w.EndNs {
			t.Errorf("launch %d phase %d: %s [%d, %d), the phone's %s [%d, %d)", i, k, g.Name, g.DeviceStartNs, g.DeviceEndNs, w.Name, w.StartNs, w.EndNs)
		}
	}
}

// checkPhases compares each launch's phases with the phone's truth: every
// phase's span, the sections in bindApplication, the first frame and
// reportFullyDrawn.
func checkPhases(t *testing.T, su *result.StartupStats, truth []simdevice.TruthStartup) {
	t.Helper()
	for i, it := range su.Iterations {
		tr := truth[i]
		if len(tr.Phases) != 5 || len(it.Phases) < 6 {
			t.Fatalf("launch %d: phases %+v, the phone's %+v", i, it.Phases, tr.Phases)
		}
		checkSpans(t, i, it.Phases, tr.Phases)
		bind := it.Phases[1]
		// The main thread runs bindApplication but for its file reads.
		if st, want := bind.MainThread, tr.Phases[1]; st == nil || want.IONs == 0 || st.UninterruptibleNs != want.IONs || st.RunningNs != want.EndNs-want.StartNs-want.IONs {
			t.Errorf("launch %d: bindApplication's main thread %+v, the phone's %d ns of I/O in %d ns", i, st, want.IONs, want.EndNs-want.StartNs)
		}
		for k, s := range tr.Phases[1].Sections {
			if k >= len(bind.Slices) || bind.Slices[k].Name != s.Name || math.Abs(bind.Slices[k].DurMs-float64(s.DurNs)/1e6) > 1e-6 {
				t.Errorf("launch %d: bindApplication's slices %+v, the phone's sections %+v", i, bind.Slices, tr.Phases[1].Sections)
			}
		}
		if it.Phases[5].Name != "first frame presented" || it.Compilation != "verify" {
			t.Errorf("launch %d: phase 5 %+v, compilation %q", i, it.Phases[5], it.Compilation)
		}
		if last := it.Phases[len(it.Phases)-1]; last.Name != "reportFullyDrawn" || last.DeviceEndNs != tr.StartNs+int64(tr.FullyDrawn) {
			t.Errorf("launch %d: last phase %+v, the app reported fully drawn at %d", i, last, tr.StartNs+int64(tr.FullyDrawn))
		}
	}
}
