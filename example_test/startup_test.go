package example_test

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/scenario"
)

// A cold-start budget: the app must show its first frame within one second,
// the median of three cold launches (`am start -W` TotalTime, as
// Macrobenchmark reports time to initial display). The simulated app takes
// 650 ms.
func TestColdStartBudget(t *testing.T) {
	dev, app := openDevice(t, "smooth-scroll")
	sc := scenario.Start(t, dev, app)
	sc.Step("cold start", scenario.LaunchWith(scenario.Cold, 3, scenario.StartupOptions{}))
	r := sc.Stop()

	st := r.Step("cold start")
	if su := st.Startup; su != nil {
		t.Logf("cold start: %.0f ms to initial display (median of %d)", su.InitialDisplayMs, len(su.Iterations))
	}
	assert.MaxStartup(t, st, time.Second)
	assert.NoCrash(t, st)
}
