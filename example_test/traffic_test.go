package example_test

import (
	"testing"
	"time"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/scenario"
)

// A network-traffic budget: scrolling the feed may download at most 1 MiB
// and upload at most 256 KiB (the app's own traffic where the device counts
// it per UID). The simulated chatty app moves about 200 KB/s down and
// 50 KB/s up while it scrolls.
func TestNetworkBudget(t *testing.T) {
	dev, app := openDevice(t, "chatty-network")
	sc := scenario.Start(t, dev, app)
	sc.Step("launch", scenario.Launch(scenario.Cold))
	sc.Step("scroll feed", scenario.Swipe(scenario.Up, 3), scenario.Sleep(time.Second))
	r := sc.Stop()

	tr := r.Step("scroll feed").Traffic()
	t.Logf("scroll feed: received %d B, sent %d B (%s, scope %s)", tr.RxBytes, tr.TxBytes, tr.Source, tr.Scope)
	assert.MaxTraffic(t, r.Step("scroll feed"), 1<<20, 256<<10)
}
