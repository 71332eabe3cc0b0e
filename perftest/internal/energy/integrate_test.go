package energy

import (
	"math"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/result"
)

// A current that jumps once between two reads: the trapezoid is off by
// at most half the jump times the interval, which is the bound, and
// reaches it when the jump falls at an end of the interval.
func TestIntegrateStepCurrent(t *testing.T) {
	const ms = int64(1e6)
	for _, jumpAt := range []int64{250 * ms, 300 * ms, 375 * ms, 499 * ms} {
		// Reads every 250 ms at 0 … 1000 ms; the current is −200 mA
		// before jumpAt and −700 mA after, at 4000 mV (negative =
		// discharging). The sample at t reports the current at t.
		var ps []result.PowerSample
		for tm := int64(0); tm <= 1000*ms; tm += 250 * ms {
			ma := -200.0
			if tm >= jumpAt {
				ma = -700
			}
			ps = append(ps, result.PowerSample{HostNs: tm, CurrentMA: ma, VoltageMV: 4000, Status: "discharging"})
		}
		w, ok := integrate(ps, -1, 0, 1000*ms, resolution{})
		if !ok {
			t.Fatal("not ok")
		}
		truthMJ := (200*float64(jumpAt)/1e9 + 700*float64(1000*ms-jumpAt)/1e9) * 4000 / 1000
		if d := math.Abs(w.energyMJ - truthMJ); d > w.errMJ+1e-9 {
			t.Errorf("jump at %d ms: %.2f mJ, truth %.2f, off by %.2f > bound %.2f", jumpAt/ms, w.energyMJ, truthMJ, d, w.errMJ)
		}
		if want := 0.5 * 500 * 4000 / 1000 * 0.25; math.Abs(w.errMJ-want) > 1e-9 {
			t.Errorf("jump at %d ms: bound %.2f mJ, want ½·2000 mW·0.25 s = %.2f", jumpAt/ms, w.errMJ, want)
		}
		if w.reads != 5 {
			t.Errorf("reads %d, want 5", w.reads)
		}
	}
	// A window cut inside the intervals and past the last read.
	ps := []result.PowerSample{{HostNs: 0, CurrentMA: -100, VoltageMV: 4000, Status: "discharging"}, {HostNs: 1000 * ms, CurrentMA: -100, VoltageMV: 4000, Status: "discharging"}}
	w, _ := integrate(ps, -1, 500*ms, 1500*ms, resolution{})
	if math.Abs(w.energyMJ-400) > 1e-9 || math.Abs(w.chargeMAh-100.0/3600) > 1e-12 || math.Abs(w.errMJ-200) > 1e-9 {
		t.Errorf("flat 100 mA, 4 V over 1 s, half held past the last read: %+v; want 400 mJ ± 200", w)
	}
	ps[1].Status = "charging"
	if w, _ := integrate(ps, -1, 0, 1000*ms, resolution{}); w.onPower != 1 {
		t.Errorf("a charging read is not counted: %+v", w)
	}
}

func FuzzParseSysfs(f *testing.F) {
	f.Add([]byte("-11718\n4446015\nNot charging\n"))
	f.Add([]byte("559\n3908\nCharging\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseSysfs(adbxResult(string(b)))
		if err == nil && (math.IsNaN(s.CurrentMA) || math.IsInf(s.VoltageMV, 0) || s.Status != strings.ToLower(s.Status)) {
			t.Fatalf("%q read as %+v", b, s)
		}
	})
}
