package perftest_test

import (
	"testing"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
	"github.com/perfgate/perfgate/trace"
)

// A frame late behind an image decoded in a Handler message of its own:
// the main thread ran the message (the phone's truth), so the trace's
// main-thread states of the frame say running for as long as the message
// overlapped it, not runnable, as the causes' block says.
func TestTraceStatesOfWaitMessage(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := causeDevice(t, 33, 60, simdevice.Quirks{LogHistory: true}, nil)
		s := perftest.Start(t, d, perftest.WithConfig(perftest.Config{Package: pkg, Name: t.Name(), ResultsDir: t.TempDir(), WaitForApp: true,
			Trace: &perftest.TraceConfig{}}))
		launchCold(t, s, d, dev)
		s.Step("scroll", func() { waitCauseFrames(t, dev, map[string]int{"decode": 1}) })
		st := s.Stop().Step("scroll")
		if st.Trace == nil || st.Causes == nil {
			t.Fatalf("trace %+v, causes %+v", st.Trace, st.Causes)
		}
		checked := 0
		for _, b := range dev.World().TruthBlocks() {
			if b.Cause != "decode" {
				continue
			}
			for _, jf := range st.Trace.JankyFrames {
				if jf.DeviceStartNs != b.FrameVsync || jf.MainThread == nil {
					continue
				}
				checked++
				over := min(b.EndNs, jf.DeviceEndNs) - max(b.StartNs, jf.DeviceStartNs)
				run, ready := jf.MainThread.Get(trace.StateRunning), jf.MainThread.Get(trace.StateRunnable)
				if run < over || ready > over/10 {
					t.Errorf("frame at %d: running %.1f ms, runnable %.1f ms; the truth's message ran %.1f ms of it", jf.DeviceStartNs, float64(run)/1e6, float64(ready)/1e6, float64(over)/1e6)
				}
			}
		}
		if checked == 0 {
			t.Fatal("no decode frame in the trace")
		}
	})
}
