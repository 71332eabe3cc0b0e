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

// The battery's mean current is a metric, with the phone's sign; a step
// whose reads had no current_now has it absent with the reason, not 0.
func TestBatteryCurrentMetric(t *testing.T) {
	st := &Step{Name: "scroll", BatteryStats: &BatteryStats{Source: "uevent", MaxTemperatureC: 31.2, MeanCurrentMA: -291}}
	i := slices.IndexFunc(st.Metrics(), func(m metrics.Metric) bool { return m.Name == metrics.BatteryCurrentMean })
	if i < 0 || st.Metrics()[i].Value != -291 || st.Metrics()[i].Unit != "mA" {
		t.Fatalf("battery_current_mean of %+v: %+v", st.BatteryStats, st.Metrics())
	}
	st.BatteryStats.MeanCurrentMA = 0
	for _, a := range st.Absent() {
		if a.Name == metrics.BatteryCurrentMean {
			if a.Reason != "battery: no current_now in the step's reads (uevent)" {
				t.Errorf("absent: %q", a.Reason)
			}
			return
		}
	}
	t.Errorf("a step without current has battery_current_mean %+v", st.Metrics())
}
