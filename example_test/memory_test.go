package example_test

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/scenario"
)

// A memory-leak gate: five rounds of scrolling, each a step of its own
// (scroll, scroll#2, …), and in none of them may PSS grow faster than
// 2 MiB a minute (pss_growth, the least-squares slope of dumpsys meminfo's
// TOTAL PSS over the round, read every 200 ms). An app that leaks fails
// it: PERFGATE_SIM_WORKLOAD=memory-leak, whose feed keeps 768 KiB a second.
func TestMemoryLeakGate(t *testing.T) {
	dev, app := openDevice(t, "smooth-scroll")
	sc := scenario.Start(t, dev, app, perftest.WithSlowInterval(200*time.Millisecond))
	sc.Step("launch", scenario.Launch(scenario.Cold))
	for range 5 {
		sc.Step("scroll", scenario.Swipe(scenario.Up, 1), scenario.Sleep(time.Second))
	}
	r := sc.Stop()

	t.Logf("scroll: PSS grew %.0f KiB/min in the first round", r.Step("scroll").Memory().PSSGrowthKBPerMin)
	assert.Check(t, r, budget.Limit{Step: "scroll", Metric: metrics.PSSGrowth, Value: 2048})
}
