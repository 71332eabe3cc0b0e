package example_test

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/scenario"
)

// A memory-leak gate with iterations: five rounds of scrolling, each
// round's PSS growth (least-squares slope, KiB/min) compared with the
// baseline in testdata/memory.budget.json. The gate fails only on a
// significant growth past 10 %; `go test -run TestMemoryLeakGate -update`
// records a new baseline when a change is intended.
func TestMemoryLeakGate(t *testing.T) {
	dev, app := openDevice(t, "memory-leak")
	sc := scenario.Start(t, dev, app, perftest.WithSlowInterval(200*time.Millisecond))
	sc.Step("launch", scenario.Launch(scenario.Cold))
	for range 5 {
		sc.Step("scroll", scenario.Swipe(scenario.Up, 1), scenario.Sleep(time.Second))
	}
	r := sc.Stop()

	t.Logf("scroll: PSS grew %.0f KiB/min in the first round", r.Step("scroll").Memory().PSSGrowthKBPerMin)
	assert.NoRegression(t, r, "memory.budget.json", assert.Gate{Steps: []string{"scroll"}, Metrics: []metrics.Name{metrics.PSSGrowth}})
}
