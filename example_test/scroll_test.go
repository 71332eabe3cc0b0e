package example_test

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/perftest"
)

// A scroll-jank budget: the feed must scroll with at most 3 janky frames
// (the default jank definition: frames that missed their deadline) and at
// least 50 FPS. The simulated "janky-scroll" app misses 3 deadlines every 3 s of scrolling.
func TestScrollJankBudget(t *testing.T) {
	dev, app := openDevice(t, "janky-scroll")
	launch(t, dev, app)

	s := perftest.Start(t, dev, perftest.App(app))
	s.Step("scroll", func() { time.Sleep(2 * time.Second) })
	r := s.Stop()

	st := r.Step("scroll")
	t.Logf("scroll: %d frames, %.1f fps, jank %d (%s), cpu %.1f%%, pss max %d KiB",
		st.Frames().Frames, st.FPS(), st.Jank(), st.Frames().JankDefinition, st.CPU().Mean, st.Memory().PSSMaxKB)
	assert.MaxJank(t, st, 3)
	assert.MinFPS(t, st, 50)
}
