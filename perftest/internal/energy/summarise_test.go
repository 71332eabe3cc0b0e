package energy

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// A phone held full on its charger reports a current of either sign or
// none: its step is unmeasured because of the charger, and says so, not
// because the convention cannot be told.
func TestSummariseFullOnCharger(t *testing.T) {
	l := &Lane{cmd: sysfsCmd, railsWhy: "energy: no power monitors"}
	for i := range 5 {
		l.samples = append(l.samples, result.PowerSample{HostNs: int64(i) * 250e6, CurrentMA: float64(i%2*2 - 1), VoltageMV: 4400, Status: "full"})
	}
	st := &result.Step{Name: "scroll", HostStartNs: 100e6, HostEndNs: 900e6}
	var notes []string
	l.Summarise(st, &result.Result{}, func(f string, a ...any) { notes = append(notes, f) })
	if e := st.Energy; e.Measured || !strings.Contains(e.Why, "on a charger") || !strings.Contains(e.Why, "status full in 5") {
		t.Errorf("energy %+v; want it unmeasured for the charger", e)
	}
}
