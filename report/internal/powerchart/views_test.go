package powerchart

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// Each rail group the phone measured is a bar titled with the step's
// figure and its bound; a group the monitors lack is named, not drawn as
// 0; a step without rails says why, with no empty chart.
func TestRails(t *testing.T) {
	st := &result.Step{Energy: &result.EnergyStats{Rails: map[string]float64{"cpu_big": 812.5, "cpu_mid": 301, "cpu_little": 120.25, "display": 640, "modem": 33},
		RailsErrorMJ: map[string]float64{"cpu_big": 4.2, "cpu_mid": 1.5, "cpu_little": 0.6, "display": 3.1, "modem": 0.2}}}
	got := Rails(st)
	for g, v := range st.Energy.Rails {
		if want := fmt.Sprintf("<title>%s: %.1f mJ ± %.3g</title>", g, v, st.Energy.RailsErrorMJ[g]); !strings.Contains(got, want) {
			t.Errorf("no %q", want)
		}
	}
	if !strings.Contains(got, ">no gpu rail</text>") || strings.Contains(got, "gpu: ") || strings.Count(got, `class="rail"`) != 5 {
		t.Errorf("the missing gpu rail:\n%s", got)
	}
	why := "energy: no power monitors (dumpsys android.hardware.power.stats.IPowerStats/default printed none)"
	if got := Rails(&result.Step{Energy: &result.EnergyStats{RailsWhy: why}}); got != `<p class="notes rails-absent">Power rails not measured: `+why+`</p>` {
		t.Errorf("no rails:\n%s", got)
	}
}

// The session's chart has a point a read, drawn positive in the steps'
// convention, and a band a step; a session whose lane read nothing says
// so; one without the lane has no chart.
func TestSession(t *testing.T) {
	r := &result.Result{Power: []result.PowerSample{{HostNs: 0, CurrentMA: -250, VoltageMV: 4000, Status: "discharging"}, {HostNs: 2e9, CurrentMA: -500, VoltageMV: 3900, Status: "discharging"}},
		Steps: []*result.Step{{Name: "scroll", HostStartNs: 0.5e9, HostEndNs: 1.5e9, Energy: &result.EnergyStats{Convention: "negative = discharging (detected: …)"}},
			{Name: "idle", HostStartNs: 1.5e9, HostEndNs: 2e9, Energy: &result.EnergyStats{}}}}
	got := Session(r)
	for _, want := range []string{"<title>0.00 s: 1000 mW (discharging)</title>", "<title>2.00 s: 1950 mW (discharging)</title>", "<title>step scroll</title>", "<title>step idle</title>", "Power drawn from the battery"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if n := strings.Count(got, "<circle"); n != 2 {
		t.Errorf("%d points for 2 reads", n)
	}
	r.Power = nil
	if got := Session(r); !strings.Contains(got, "the energy lane read nothing in the session") {
		t.Errorf("no reads:\n%s", got)
	}
	if got := Session(&result.Result{Steps: []*result.Step{{Name: "scroll"}}}); got != "" {
		t.Errorf("no lane: %s", got)
	}
}
