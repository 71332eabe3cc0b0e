package result

import (
	"slices"
	"testing"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
)

// A step lists exactly the catalogue's metrics, in its order, each with
// the catalogue's unit and direction: adding a metric is one catalogue
// entry and the value a step gives it.
func TestStepListsTheCatalogue(t *testing.T) {
	st := &Step{Name: "scroll", FrameStats: frames.Summary{Source: "gfxinfo", Frames: 3}}
	var got []metrics.Name
	for _, e := range st.catalogue() {
		got = append(got, e.Name)
		if d := e.Name.Def(); e.Unit != d.Unit || e.Better != d.Better || e.BenchUnit != d.BenchUnit {
			t.Errorf("%s: %+v differs from its catalogue entry %+v", e.Name, e.Def, d)
		}
	}
	var want []metrics.Name
	for _, d := range metrics.Catalogue() {
		want = append(want, d.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("step lists\n%v\nthe catalogue is\n%v", got, want)
	}
}
