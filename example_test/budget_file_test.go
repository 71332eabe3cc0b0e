package example_test

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/scenario"
)

// A full budget file: every budget of every step in
// testdata/feed.budget.json (startup, jank, FPS, frame time, CPU, memory,
// crashes). Record it from a run with
// `go test -run TestFeedBudgets -update`, review the diff and commit it.
func TestFeedBudgets(t *testing.T) {
	dev, app := openDevice(t, "janky-scroll")
	sc := scenario.Start(t, dev, app)
	sc.Step("launch", scenario.Launch(scenario.Cold))
	sc.Step("scroll", scenario.Swipe(scenario.Up, 1), scenario.Sleep(500*time.Millisecond))
	sc.Step("leave", scenario.Back(), scenario.Sleep(500*time.Millisecond))
	r := sc.Stop()

	assert.BudgetWith(t, r, "feed.budget.json", budget.Headroom{Pct: 30, Count: 2})
}
