package powerchart

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// The reads a step's figures use are drawn, power positive in the step's
// convention; a step without figures says why instead of a mean.
func TestPoints(t *testing.T) {
	r := &result.Result{Power: []result.PowerSample{
		{HostNs: 0, CurrentMA: -100, VoltageMV: 4000}, {HostNs: 1e9, CurrentMA: -300, VoltageMV: 4000},
		{HostNs: 2e9, CurrentMA: -500, VoltageMV: 3900}, {HostNs: 3e9, CurrentMA: -100, VoltageMV: 4000}, {HostNs: 4e9, CurrentMA: -1, VoltageMV: 4000},
	}}
	st := &result.Step{Name: "scroll", HostStartNs: 1.5e9, HostEndNs: 2.5e9,
		Energy: &result.EnergyStats{Convention: "negative = discharging (detected: …)", Measured: true, PowerMeanMW: 1500, EnergyMJ: 1500}}
	pts, sign := Points(r, st)
	want := []Point{{0, 1200}, {0.5, 1950}, {1, 400}}
	if sign != 1 || len(pts) != len(want) {
		t.Fatalf("points %v sign %d, want %v", pts, sign, want)
	}
	for i := range want {
		if pts[i] != want[i] {
			t.Errorf("point %d: %v, want %v", i, pts[i], want[i])
		}
	}
	svg := Step(r, st)
	if !strings.Contains(svg, "mean 1500 mW") || !strings.Contains(svg, "Power drawn from the battery") {
		t.Errorf("chart lacks its mean or title: %s", svg)
	}
	st.Energy = &result.EnergyStats{Convention: "cannot be told: …", Why: "energy: the current's sign convention cannot be told: …"}
	if svg := Step(r, st); !strings.Contains(svg, "with the sign the phone reports") || !strings.Contains(svg, "cannot be told") {
		t.Errorf("a step without a convention: %s", svg)
	}
}
