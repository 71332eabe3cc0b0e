package perftest_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// GT SM against the phone's truth: the simulated app stalls its main thread
// for 750 ms every 60th frame of its scroll, and Choreographer logs each
// stall ("Skipped 44 frames!") as a phone does. The step counts the frames
// the true stalls skipped, and its lowest second is the refresh rate less
// one stall's: the stalls lie more than a second apart.
func TestSmoothnessMatchesTruth(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev := simConfig(t, simdevice.Config{API: 33, RefreshHz: 60, Workload: stallingScroll(t)})
		d, _ := openHost(t, dev, nil)
		launch(t, d, dev)
		tk := newTicker()
		s := perftest.Start(t, d, perftest.WithConfig(quirkConfig(t, tk)))
		s.Step("scroll", func() { tk.wait(t, 45) })
		r := s.Stop()
		st := r.Step("scroll")
		sm := st.Smoothness
		if sm == nil {
			t.Fatalf("no SM: %s", st.NotMeasured[metrics.SMGT])
		}

		// The true stalls: frames of at least 30 periods, each logged when it
		// completes. Those within the clocks' slack of the step's edges may
		// fall on either side.
		period := int64(math.Round(1e9 / 60))
		slack := int64(r.Clock.UncertaintyMs*1e6) + int64(20*time.Millisecond)
		must, may, stalls := 0, 0, 0
		for _, f := range dev.World().TruthFrames() {
			skipped := int((f.Completed - f.IntendedVsync) / period)
			if skipped < 30 {
				continue
			}
			switch at := f.Completed; {
			case at >= st.DeviceStartNs+slack && at < st.DeviceEndNs-slack:
				must += skipped
				stalls++
			case at >= st.DeviceStartNs-slack && at < st.DeviceEndNs+slack:
				may += skipped
			}
		}
		t.Logf("sm %+v; truth: %d stalls, %d skipped (+%d at the edges)", *sm, stalls, must, may)
		if stalls < 2 {
			t.Fatalf("the step holds %d true stalls; the test wants two or more", stalls)
		}
		if sm.Skipped < must || sm.Skipped > must+may {
			t.Errorf("skipped %d, truth %d (+%d at the edges)", sm.Skipped, must, may)
		}
		if sm.RefreshHz != 60 || sm.MinSM != 60-44 {
			t.Errorf("SM %+v, want a lowest second of 60 − 44 = 16", sm)
		}
		var got metrics.Metric
		for _, m := range st.Metrics() {
			if m.Name == metrics.SMGT {
				got = m
			}
		}
		if got.Value != 16 || got.Unit != "fps" || !strings.Contains(got.Definition, "Choreographer") {
			t.Errorf("sm_gt in the catalogue: %+v", got)
		}
	})
}

// stallingScroll is smooth-scroll whose main thread stalls for 750 ms
// every 60th frame, which Choreographer logs ("Skipped 44 frames!" at
// 60 Hz).
func stallingScroll(t *testing.T) *simdevice.Workload {
	t.Helper()
	wl, err := simdevice.Preset("smooth-scroll")
	if err != nil {
		t.Fatal(err)
	}
	wl.Phases[0].Janks = []simdevice.Jank{{Every: 60, Ms: 750}}
	return wl
}

// A phone whose shell has no logcat gives no SM, and says why.
func TestSmoothnessWithoutLogcat(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		_, st, _, _ := scrollWith(t, "smooth-scroll", 33, simdevice.Quirks{MissingCommands: []string{"logcat"}}, 5, nil)
		absent(t, st, []metrics.Name{metrics.SMGT}, "gt sm: ", "logcat")
		if st.Smoothness != nil {
			t.Errorf("smoothness %+v without a log", st.Smoothness)
		}
	})
}
