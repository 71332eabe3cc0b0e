package perftest_test

import (
	"testing"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/simdevice"
)

// Sections are measured whichever way the app writes them: atrace
// markers, TrackEvent slices (the Perfetto SDK's: names interned per
// thread, interning cleared every few events) or Android 14's markers on
// named tracks (on no thread: never the main thread's). Each section of
// the workload is written each way in turn, so that every spec meets
// every way; every step's figures of every spec equal the phone's truth.
func TestTraceSectionsEveryEmitMatchTruth(t *testing.T) {
	t.Parallel()
	emits := []string{simdevice.EmitAtrace, simdevice.EmitTrackEvent, simdevice.EmitNamedTrack}
	for k := range emits {
		t.Run("from_"+emits[k], func(t *testing.T) {
			simtest.Bubble(t, func(t *testing.T) {
				wl := sectionWorkload(t)
				for i := range wl.Phases[0].Sections {
					wl.Phases[0].Sections[i].Emit = emits[(i+k)%len(emits)]
				}
				dev, r := sectionSession(t, wl, 34)
				ways := map[string]int{}
				for _, st := range r.Steps {
					for i, spec := range sectionSpecs {
						if got, want := st.Sections[i], sectionWant(dev, spec, st); got != want {
							t.Errorf("emits from %s: %s: %s: perfgate %+v, truth %+v", emits[k], st.Name, spec.Name, got, want)
						}
					}
				}
				for _, f := range traceTruth(dev) {
					for _, s := range f.Sections {
						ways[s.Emit]++
					}
				}
				if len(ways) != len(emits) || r.Step("scroll").Sections[0].Count == 0 {
					t.Errorf("emits from %s: the phone wrote sections %v ways; feed:bind %+v", emits[k], ways, r.Step("scroll").Sections[0])
				}
			})
		})
	}
}
