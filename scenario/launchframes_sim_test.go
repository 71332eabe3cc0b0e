package scenario_test

import (
	"slices"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/simdevice"
)

// A cold launch step measures the frames the app drew in it, every time:
// the new window's first frame, done at Displayed and flagged by hwui (a
// rejected row, no frame of the app's pace), and the first content frames
// after it, which the step waits for. Sixteen identical runs on the fake
// clock each measure exactly the phone's true frames of the step.
func TestLaunchStepMeasuresFirstFrames(t *testing.T) {
	t.Parallel()
	measured := 0
	for run := range 16 {
		simtest.Bubble(t, func(t *testing.T) {
			p := newPhone(t, server, "smooth-scroll", nil)
			sc := scenario.Start(t, p.dev, p.pkg, perftest.WithResultsDir(t.TempDir()))
			sc.Step("launch", scenario.Launch(scenario.Cold))
			sc.Step("after", scenario.Sleep(time.Second))
			r := sc.Stop()
			st := r.Step("launch")
			want, flagged := launchTruth(p.sim, st)
			got := measuredVsyncs(r, st)
			if len(want) == 0 || !slices.Equal(got, want) || st.FramesRejected["flags"] != flagged {
				t.Errorf("run %d: measured frames at %v (%s), %v rejected; the phone drew %v and %d first frame(s)",
					run, got, st.NotMeasured["frames"], st.FramesRejected, want, flagged)
				return
			}
			measured++
		})
	}
	if measured != 16 {
		t.Errorf("the launch step measured its true frames in %d of 16 runs", measured)
	}
}

// launchTruth is the IntendedVsync of every frame the phone drew in st
// whose row is a frame, and how many first frames of a window it drew.
func launchTruth(sim *simdevice.Device, st *result.Step) (vsyncs []int64, first int) {
	for _, f := range sim.World().TruthFrames() {
		if f.IntendedVsync < st.DeviceStartNs || f.IntendedVsync >= st.DeviceEndNs {
			continue
		}
		if f.First {
			first++
			continue
		}
		vsyncs = append(vsyncs, f.IntendedVsync)
	}
	return vsyncs, first
}

// measuredVsyncs is the time of every frame the session measured in st.
func measuredVsyncs(r *result.Result, st *result.Step) []int64 {
	var out []int64
	for _, f := range r.Frames {
		if tm := f.Time(); tm >= st.DeviceStartNs && tm < st.DeviceEndNs {
			out = append(out, tm)
		}
	}
	return out
}
