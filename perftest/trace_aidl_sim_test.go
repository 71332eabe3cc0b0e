package perftest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/simdevice"
)

// A janky frame whose main thread waits on a binder call has the call's
// AIDL slice (the aidl atrace category) among its longest slices in a
// trace recorded with the default categories, as the phone's truth lists
// them.
func TestTraceAIDLSliceByDefault(t *testing.T) {
	t.Parallel()
	simtest.Bubble(t, func(t *testing.T) {
		// Binder calls long enough to be among a frame's longest slices.
		janks := []simdevice.Jank{{Every: 20, Ms: 90, Wait: simdevice.WaitBinder}, {Every: 33, Vsyncs: 6, Wait: simdevice.WaitBinder}}
		dev, _, st := traceSessionOf(t, janks, 33, simdevice.Quirks{}, 40, perftest.TraceConfig{})
		if st.Trace == nil {
			t.Fatal("no trace in the step")
		}
		truth := map[int64]simdevice.TruthFrame{}
		for _, f := range traceTruth(dev) {
			truth[f.VsyncID] = f
		}
		binder, aidl := 0, 0
		for _, jf := range st.Trace.JankyFrames {
			f, ok := truth[jf.Token]
			if !ok || f.Wait != simdevice.WaitBinder {
				continue
			}
			binder++
			var got, want []string
			for _, s := range jf.Slices {
				got = append(got, s.Name)
			}
			for _, s := range f.Trace().Slices {
				want = append(want, s.Name)
				if strings.HasPrefix(s.Name, "AIDL::") {
					aidl++
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("frame %d waits on binder: slices %q, truth %q", jf.Token, got, want)
			}
		}
		if aidl == 0 {
			t.Fatalf("none of the %d janky frames waiting on binder has an AIDL slice among its longest in truth", binder)
		}
		t.Logf("%d janky frames waiting on binder, %d with an AIDL slice among their longest", binder, aidl)
	})
}
