package perftest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// TestFramePollingLosesNothing: frames polled only as often as the
// device's ring needs, and filtered on the device, still give every true
// frame once: after an idle pause a burst longer than the ring, at the
// lowest and highest refresh rates, and on a phone without grep, where the
// session polls whole dumps.
func TestFramePollingLosesNothing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		hz     float64
		quirks simdevice.Quirks
	}{
		{"idle-then-burst/60Hz", 60, simdevice.Quirks{}},
		{"idle-then-burst/144Hz", 144, simdevice.Quirks{}},
		{"no-grep/120Hz", 120, simdevice.Quirks{MissingCommands: []string{"grep"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// On the bubble's clock no host stalls for half the ring's
			// time: a wrap fails at once.
			simtest.FakeClock(t, func(t *testing.T) ([]string, bool) { return lossRun(t, tc.hz, tc.quirks) })
		})
	}
}

// lossRun is one run of TestFramePollingLosesNothing: its problems, and
// whether frames were lost while the host stalled for over half the
// phone's frame ring.
func lossRun(t *testing.T, hz float64, quirks simdevice.Quirks) (problems []string, stalled bool) {
	// Draw for a moment (the launch waits for frames), pause for 1.2 s,
	// then scroll for good.
	d, dev, tk, cfg := framesOnly(t, "janky-scroll", hz, func(wl *simdevice.Workload) {
		scroll := wl.Phases[0]
		warm := scroll
		warm.Name, warm.DurationMs, warm.Next = "warm", 300, "pause"
		wl.Phases = append([]simdevice.Phase{warm, {Name: "pause", DurationMs: 1200, Next: scroll.Name}}, wl.Phases...)
	}, quirks)
	s := perftest.Start(t, d, perftest.WithConfig(cfg))
	s.Step("scroll", func() { tk.wait(t, 30) })
	r := s.Stop()
	if r.Error != "" {
		t.Fatalf("session ended: %s", r.Error)
	}
	if len(r.Gaps) > 0 {
		ringMs := frameBufferLen / hz * 1000
		return []string{fmt.Sprintf("gaps %+v; the longest time between two ticks %.0f ms, the ring %.0f ms", r.Gaps, r.Whole.Ticks.MaxSpacingMs, ringMs)},
			r.Whole.Ticks.MaxSpacingMs > ringMs/2
	}
	// A frame shown before the history was cleared, or still drawing at
	// the last poll, cannot have been read, as in the ground-truth tests:
	// up to two at each edge, when a busy host widened the clock map or
	// stretched Stop past its settle.
	st := r.Step("scroll")
	shown, early, late := truthInStep(r, st, dev.World().TruthFrames(), false)
	in, missing := missingTruth(r, st, shown)
	if missing > 0 || early > 2 || late > 2 || in+early+late < frameBufferLen {
		problems = append(problems, fmt.Sprintf("%d of the step's %d readable true frames missing, %d shown before the history was cleared, %d after the last poll (want none missing, at most 2 at each edge, a burst past the %d-frame ring)", missing, in, early, late, frameBufferLen))
	}
	// The session as a whole has a frame count too: at least the step's,
	// at most what the phone drew in the session's span.
	all, _, _ := truthInStep(r, r.Whole, dev.World().TruthFrames(), false)
	if got := metric(t, r.Whole, "frames"); got < float64(st.Frames().Frames) || got > float64(len(all)) {
		problems = append(problems, fmt.Sprintf("the session: %v frames; its step %d, the phone drew %d in its span", got, st.Frames().Frames, len(all)))
	}
	fellBack := strings.Contains(strings.Join(r.Notes, "\n"), "polling whole framestats dumps")
	if want := len(quirks.MissingCommands) > 0; fellBack != want {
		problems = append(problems, fmt.Sprintf("fell back to whole dumps: %v, want %v (notes %q)", fellBack, want, r.Notes))
	}
	return problems, false
}

// frameBufferLen is the device's gfxinfo ring (hwui keeps 120 frames).
const frameBufferLen = 120
