package example_test

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/scenario"
)

// A scroll-jank budget: launch the feed cold, scroll it, and stop it, each
// step driven over uiautomator2 and measured. The scroll may jank at most 3
// times (the default jank: frames that missed their deadline), and every
// step keeps to its budgets in the golden file testdata/scroll.budget.json
// (recorded with -update, reviewed, committed).
func TestScrollJankBudget(t *testing.T) {
	dev, app := openDevice(t, "janky-scroll") // ANDROID_SERIAL and PERFGATE_APP, or a simulated phone
	sc := scenario.Start(t, dev, app)
	sc.Step("launch", scenario.Launch(scenario.Cold))
	sc.Step("scroll", scenario.Swipe(scenario.Up, 1), scenario.Sleep(1500*time.Millisecond))
	perftest.MaxJank(t, 3) // the scroll step; checked when the session stops
	sc.Step("stop", scenario.Tap(scenario.Text("Stop")))
	r := sc.Stop()

	st := r.Step("scroll")
	t.Logf("scroll: %d frames, %.1f fps, jank %d (%s), cpu %.1f%%", st.Frames().Frames, st.FPS(), st.Jank(), st.Frames().JankDefinition, st.CPU().Mean)
	assert.Budget(t, r, "scroll.budget.json")
}
