package scenario_test

import (
	"testing"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/scenario"
)

// A process the app starts while the trace records is found in it as
// traced_probes finds it on a phone (an on-demand dump of a pid ftrace
// saw), even when it is killed before it draws a frame a layer could
// name: each cold start of a step gets its phases, the phone's.
func TestColdStartPhasesOfEveryProcess(t *testing.T) {
	t.Parallel()
	for _, preset := range []string{"smooth-scroll", "slow-start"} {
		t.Run(preset, func(t *testing.T) {
			simtest.Bubble(t, func(t *testing.T) {
				p := newPhone(t, server, preset, nil)
				sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()), perftest.WithTrace(perftest.TraceConfig{}))
				sc.Step("launch", scenario.LaunchWith(scenario.Cold, 2, scenario.StartupOptions{}))
				r := sc.Stop()
				su := r.Step("launch").Startup
				truth := p.sim.World().Truth().Startups
				if su == nil || len(su.Iterations) != 2 || len(truth) != 2 {
					t.Fatalf("startup %+v; the phone launched %d times", su, len(truth))
				}
				if su.PhasesNotMeasured != "" {
					t.Fatalf("phases not measured: %s", su.PhasesNotMeasured)
				}
				for i, it := range su.Iterations {
					checkSpans(t, i, it.Phases, truth[i].Phases)
				}
			})
		})
	}
}
