package perftest_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
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
			simtest.Bubble(t, func(t *testing.T) {
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
		})
	}
}

// missingTruth counts the true frames of the step (by vsync) and those of
// them the Result does not hold exactly once.
func missingTruth(r *result.Result, st *result.Step, truth []simdevice.TruthFrame) (in, missing int) {
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

// A frame still drawing when Stop stops waiting for it (Config.Settle) is
// in none of its step's frame figures, but the step counts it, says how
// long it had drawn, and a note names it: on the simulated phone a swipe
// starts a frame whose RenderThread work takes 1.2 s, and Stop, with the
// default 250 ms Settle, ends while it draws. (A host that stalled so long
// in Stop that the frame was done before its last poll read it as any
// other frame; on the bubble's clock no host stalls.)
func TestStopCountsFramesStillDrawing(t *testing.T) {
	t.Parallel()
	const slowMs = 1200
	edit := func(wl *simdevice.Workload) {
		wl.FrameQuirks.InFlight = true
		wl.Causes = append(wl.Causes, simdevice.Cause{Name: "gpu", Phase: "commands"})
		heavy := wl.Phases[0]
		heavy.Name, heavy.Next = "heavy", "heavy"
		heavy.Janks = []simdevice.Jank{{At: []int{0}, Ms: slowMs, Cause: "gpu"}}
		wl.Phases = append(wl.Phases, heavy)
		for i := range wl.Actions {
			if wl.Actions[i].On == "swipe" {
				wl.Actions[i].Phase = "heavy"
			}
		}
	}
	simtest.FakeClock(t, func(t *testing.T) (problems []string, busy bool) {
		d, dev, tk, cfg := framesOnly(t, "smooth-scroll", 60, edit, simdevice.Quirks{})
		cfg.Settle = 0 // the default
		s := perftest.Start(t, d, perftest.WithConfig(cfg))
		s.Step("swipe", func() {
			tk.wait(t, 2)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := d.Shell(ctx, "input swipe 500 1500 500 500 100"); err != nil {
				t.Fatal(err)
			}
			tk.wait(t, 1) // past the frame's vsync, the next after the swipe
		})
		r := s.Stop()
		st := r.Step("swipe")

		// The slow frame, once the phone presented it.
		var slow simdevice.TruthFrame
		for deadline := time.Now().Add(time.Minute); slow.Index == 0; {
			for _, f := range dev.World().TruthFrames() {
				if f.Phase == "heavy" && f.Cause == "gpu" {
					slow = f
					break
				}
			}
			if slow.Index == 0 {
				if time.Now().After(deadline) {
					t.Fatal("the phone presented no slow frame in a minute")
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		if slow.IntendedVsync < st.DeviceStartNs || slow.IntendedVsync >= st.DeviceEndNs {
			t.Fatalf("the slow frame's vsync %d is outside the step [%d, %d)", slow.IntendedVsync, st.DeviceStartNs, st.DeviceEndNs)
		}
		for _, f := range r.Frames {
			if f.IntendedVsync == slow.IntendedVsync {
				return []string{fmt.Sprintf("the slow frame was read (%d frames in flight)", st.FramesInFlight)}, true
			}
		}
		t.Logf("frames in flight at Stop: %d, the longest for %.1f ms; %.1f ms from its vsync to the step's end", st.FramesInFlight, st.InFlightMs, float64(st.DeviceEndNs-slow.IntendedVsync)/1e6)
		if st.FramesInFlight != 1 {
			problems = append(problems, fmt.Sprintf("%d frames in flight, want the slow one", st.FramesInFlight))
		}
		// Stop's last poll read the phone's clock after the step ended:
		// the frame had drawn for at least the time from its vsync to the
		// step's end (placed on the phone's clock within the clock map's
		// uncertainty), and for less than it took.
		least := float64(st.DeviceEndNs-slow.IntendedVsync)/1e6 - r.Clock.UncertaintyMs
		if st.InFlightMs < least || st.InFlightMs >= float64(slow.Duration)/1e6 {
			problems = append(problems, fmt.Sprintf("in flight for %.1f ms; at least %.1f ms from its vsync to the step's end, and the frame took %.1f ms", st.InFlightMs, least, float64(slow.Duration)/1e6))
		}
		if !slices.ContainsFunc(r.Notes, func(n string) bool {
			return strings.Contains(n, `1 frame(s) of step "swipe" still drawing when Stop's last poll ran`)
		}) {
			problems = append(problems, fmt.Sprintf("no note of the frame in flight: %q", r.Notes))
		}
		if r.Whole.FramesInFlight != 1 {
			problems = append(problems, fmt.Sprintf("the session has %d frames in flight", r.Whole.FramesInFlight))
		}
		return problems, false
	})
}
