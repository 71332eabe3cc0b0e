package example_test

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/perftest"
)

// Why it janked: the session starts before the app, so the app's main
// Looper logs its slow messages; a failing jank budget then says why. The
// simulated "janky-feed" app binds rows in RecyclerView's layout and
// decodes an image on its main thread.
func TestWhyItJanked(t *testing.T) {
	dev, app := openDevice(t, "janky-feed")
	s := perftest.Start(t, dev, perftest.WithConfig(perftest.Config{Package: app, WaitForApp: true}))
	launch(t, dev, app)
	s.Step("scroll", func() { time.Sleep(3 * time.Second) })
	st := s.Stop().Step("scroll")

	t.Logf("scroll: jank %d; %s", st.Jank(), st.Causes.Line())
	for _, b := range st.Causes.TopBlockers {
		t.Logf("  %d × %d ms (longest %d ms) in %s", b.Count, b.TotalMs, b.MaxMs, b.Where())
	}
	assert.MaxBlock(t, st, 250*time.Millisecond) // the longest main-thread message
	assert.NoANR(t, st)
}
