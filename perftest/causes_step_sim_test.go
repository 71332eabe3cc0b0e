package perftest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// A 1200 ms frame binding rows, and a step that ends while it draws: its
// Choreographer message is logged after that step ended, and still is the
// frame's block in it; the next step neither lists the message nor counts
// its samples in its stacks.
func TestCausesBlockAcrossStepEnd(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := causeDevice(t, 33, 60, simdevice.Quirks{LogHistory: true}, func(w *simdevice.Workload) {
			w.Phases[0].Janks = []simdevice.Jank{{At: []int{40}, Ms: 1200, Cause: "bind"}}
		})
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true}))
		launchCold(t, s, d, dev)
		w := dev.World()
		// until: waits for the phone's truth to say done, then the phone's
		// time to pass after; a minute at most, for a broken test.
		until := func(what string, done func([]simdevice.TruthFrame) (int64, bool)) {
			deadline := time.Now().Add(time.Minute)
			for {
				if at, ok := done(w.TruthFrames()); ok {
					for int64(w.Uptime()) < at {
						time.Sleep(5 * time.Millisecond)
					}
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("after a minute: %s", what)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		var slow simdevice.TruthFrame
		s.Step("first", func() {
			// 300 ms into the slow frame, which follows 40 of the scroll.
			until("40 scroll frames", func(fs []simdevice.TruthFrame) (int64, bool) {
				n, last := 0, simdevice.TruthFrame{}
				for _, f := range fs {
					if f.Phase == "scroll" && f.Cause == "" {
						n, last = n+1, f
					}
				}
				return last.IntendedVsync + int64(w.RefreshPeriod()) + int64(300*time.Millisecond), n >= 40
			})
		})
		s.Step("next", func() {
			until("the slow frame", func(fs []simdevice.TruthFrame) (int64, bool) {
				for _, f := range fs {
					if f.Cause == "bind" {
						slow = f
						return f.Present + int64(time.Second), true
					}
				}
				return 0, false
			})
		})
		r := s.Stop()
		first, next := r.Step("first"), r.Step("next")
		if first.Causes == nil || next.Causes == nil {
			t.Fatal("no causes")
		}
		if slow.IntendedVsync >= first.DeviceEndNs || slow.Completed <= first.DeviceEndNs {
			t.Fatalf("the slow frame (%d … %d) does not straddle the first step's end %d", slow.IntendedVsync, slow.Completed, first.DeviceEndNs)
		}
		c := first.Causes
		var blocked int64
		for _, f := range c.Frames {
			if f.TimeNs == slow.IntendedVsync && f.Block != nil {
				blocked = c.Blocks[*f.Block].Ms
			}
		}
		if blocked < 1100 || !strings.Contains(c.Line(), "top block ") {
			t.Errorf("first step: the slow frame's block %d ms; line %q; frames %+v", blocked, c.Line(), c.Frames)
		}
		for _, b := range next.Causes.Blocks {
			if b.Ms >= 1100 {
				t.Errorf("next step lists the slow frame's message: %+v", b)
			}
		}
		for _, st := range append(next.Causes.TopStacks, next.Causes.UntiedStacks...) {
			if strings.Contains(st.Stack, "FeedAdapter.onBindViewHolder") {
				t.Errorf("next step counts the slow frame's samples: %d in %s", st.Samples, st.AppFrame)
			}
		}
	})
}
