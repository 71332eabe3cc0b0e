package perftest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// TestStopWaitsOnlyForFramesInFlight: Stop polls until the frames of the
// last step's vsyncs are in and no longer. With Settle an hour, a Stop
// that slept it would never return; one that stopped too early would miss
// true frames of the step. (TestFramesPending has the idle app.)
func TestStopWaitsOnlyForFramesInFlight(t *testing.T) {
	for _, hz := range []float64{60, 144} {
		t.Run(fmt.Sprintf("%gHz", hz), func(t *testing.T) {
			t.Parallel()
			d, dev, tk, cfg := framesOnly(t, "janky-scroll", hz, nil, simdevice.Quirks{})
			w := dev.World()
			cfg.Settle = time.Hour
			s := perftest.Start(t, d, perftest.WithConfig(cfg))
			s.Step("scroll", func() { tk.wait(t, 5) })
			r := s.Stop()
			if r.Error != "" || len(r.Gaps) > 0 {
				t.Fatalf("error %q, gaps %+v", r.Error, r.Gaps)
			}
			// Stop waits for every frame of the step: none is late. One
			// shown before the session cleared the app's history at Start
			// cannot have been read (at most two, where a busy host
			// widened the clock map around the step's start).
			st := r.Step("scroll")
			shown, early, late := truthInStep(r, st, w.TruthFrames(), false)
			in, missing := missingTruth(r, st, shown)
			if missing > 0 || late > 0 || early > 2 {
				t.Errorf("%d of the step's %d readable true frames missing after Stop, %d shown after the last poll, %d before the history was cleared", missing, in, late, early)
			}
			if in < 10 {
				t.Errorf("only %d true frames in the step", in)
			}
		})
	}
}

// missingTruth counts the true frames of the step (by vsync) and those of
// them the Result does not hold exactly once.
func missingTruth(r *perftest.Result, st *perftest.Step, truth []simdevice.TruthFrame) (in, missing int) {
	got := map[int64]int{}
	for _, f := range r.Frames {
		got[f.IntendedVsync]++
	}
	for _, f := range truth {
		if f.IntendedVsync < st.DeviceStartNs || f.IntendedVsync >= st.DeviceEndNs {
			continue
		}
		in++
		if got[f.IntendedVsync] != 1 {
			missing++
		}
	}
	return in, missing
}

// framesOnly launches preset at hz (API 33, as edit changes it, with
// quirks on) behind the host-protocol server, and returns a frames-only,
// causes-off session config that counts ticks on tk.
func framesOnly(t *testing.T, preset string, hz float64, edit func(*simdevice.Workload), q simdevice.Quirks) (*adbx.Device, *simdevice.Device, ticker, perftest.Config) {
	t.Helper()
	wl, err := simdevice.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(wl)
	}
	dev := simConfig(t, simdevice.Config{API: 33, RefreshHz: hz, Workload: wl, Quirks: q})
	d, _ := openHost(t, dev, nil)
	launch(t, d, dev)
	tk := newTicker()
	cfg := quirkConfig(t, tk)
	cfg.Collectors = []perftest.Collector{perftest.CollectFrames}
	cfg.Causes.Off = true
	return d, dev, tk, cfg
}
