package perftest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

// pulsingWorkload alternates 700 ms of heavy scrolling (three threads,
// 210 % of a core) with 500 ms of idling: the battery's current jumps
// between two levels inside every step, so the integral has edges to
// get right.
func pulsingWorkload(t *testing.T) *simdevice.Workload {
	t.Helper()
	wl, err := simdevice.Preset("smooth-scroll")
	if err != nil {
		t.Fatal(err)
	}
	busy := simdevice.Phase{Name: "scroll", DurationMs: 700, Next: "rest", EveryVsyncs: 1,
		CPU: []simdevice.ThreadLoad{{Thread: "main", Percent: 90}, {Thread: "RenderThread", Percent: 70}, {Thread: "worker", Percent: 50}}}
	rest := simdevice.Phase{Name: "rest", DurationMs: 500, Next: "scroll", EveryVsyncs: 1,
		CPU: []simdevice.ThreadLoad{{Thread: "main", Percent: 2}}}
	wl.Phases = []simdevice.Phase{busy, rest, {Name: "idle", CPU: []simdevice.ThreadLoad{{Thread: "main", Percent: 1}}}}
	wl.Launch = "scroll"
	return wl
}

// energyRun measures two steps on a phone with the battery quirks q and
// returns the Result and the phone; during, when set, runs in the second
// step.
func energyRun(t *testing.T, q simdevice.Quirks, cfg func(*perftest.Config), during func(*simdevice.Device)) (*result.Result, *simdevice.Device) {
	t.Helper()
	dev, d := simWorkload(t, pulsingWorkload(t), 34, q)
	return energyRunOn(t, dev, d, cfg, during), dev
}

// energyRunOn is energyRun on the phone dev, reached through d.
func energyRunOn(t *testing.T, dev *simdevice.Device, d *adbx.Device, cfg func(*perftest.Config), during func(*simdevice.Device)) *result.Result {
	t.Helper()
	tk := newTicker()
	c := quirkConfig(t, tk)
	c.Collectors = []perftest.Collector{perftest.CollectBattery, perftest.CollectCPU}
	if cfg != nil {
		cfg(&c)
	}
	s := perftest.Start(t, d, perftest.WithConfig(c))
	s.Step("first", func() { tk.wait(t, 23) })
	time.Sleep(130 * time.Millisecond)
	s.Step("second", func() {
		tk.wait(t, 37)
		if during != nil {
			during(dev)
		}
	})
	return s.Stop()
}

// TestEnergyMatchesTruth: the charge and energy each step drew, as the
// energy lane integrates them from current_now and voltage_now, are the
// phone's truth within the error bound the step states, in both sign
// conventions; the bound is a small share of the figure (the current
// changes at most once between two reads of the 250 ms lane, so the
// trapezoid is off by at most half a jump times an interval); and each
// rail group's energy is the truth of its rails within its bound.
func TestEnergyMatchesTruth(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    simdevice.Quirks
		conv string
	}{
		{"negative", simdevice.Quirks{Battery: simdevice.BatteryQuirks{PowerRails: true}}, "negative = discharging (detected: status discharging, current < 0"},
		{"positive", simdevice.Quirks{Battery: simdevice.BatteryQuirks{PositiveDischarge: true}}, "positive = discharging (detected: status discharging, current > 0"},
		// No current_now: Samsung's dumpsys battery "current now" (mA)
		// and "voltage" (mV), whose resolution the bound counts.
		{"dumpsys", simdevice.Quirks{MissingFiles: []string{"/sys/class/power_supply/battery/current_now"}, Battery: simdevice.BatteryQuirks{DumpsysCurrent: true}},
			"negative = discharging (detected: status discharging, current < 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			simtest.Bubble(t, func(t *testing.T) {
				r, dev := energyRun(t, tc.q, nil, nil)
				if r.Error != "" {
					t.Fatal(r.Error)
				}
				for _, st := range r.Steps {
					checkEnergyStep(t, dev, r, st, tc.conv, tc.q.Battery.PowerRails)
				}
				checkEnergyBudget(t, r)
				if src := r.Steps[0].Energy.Source; strings.HasPrefix(src, "dumpsys battery") != (tc.name == "dumpsys") {
					t.Errorf("energy read from %q", src)
				}
			})
		})
	}
}

func checkEnergyStep(t *testing.T, dev *simdevice.Device, r *result.Result, st *result.Step, conv string, rails bool) {
	t.Helper()
	e := st.Energy
	if e == nil || !e.Measured {
		t.Fatalf("%s: energy %+v, want measured", st.Name, e)
	}
	if !strings.HasPrefix(e.Convention, conv) || st.BatteryStats == nil || st.BatteryStats.Convention != e.Convention {
		t.Errorf("%s: convention %q (battery %+v), want %q…", st.Name, e.Convention, st.BatteryStats, conv)
	}
	// The step's device window is known within the clock map's
	// uncertainty: the truth lies between that of the window shrunk by it
	// and that of the window grown by it.
	u := int64(r.Clock.UncertaintyMs*1e6) + 1
	inner, ok1 := dev.World().TruthEnergy(st.DeviceStartNs+u, st.DeviceEndNs-u)
	outer, ok2 := dev.World().TruthEnergy(st.DeviceStartNs-u, st.DeviceEndNs+u)
	truth, ok3 := dev.World().TruthEnergy(st.DeviceStartNs, st.DeviceEndNs)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("%s: no truth for [%d, %d] ± %d ns", st.Name, st.DeviceStartNs, st.DeviceEndNs, u)
	}
	for _, c := range []struct {
		what               string
		got, lo, hi, bound float64
	}{
		{"charge mAh", e.ChargeMAh, inner.ChargeMAh, outer.ChargeMAh, e.ErrorMAh},
		{"energy mJ", e.EnergyMJ, inner.EnergyMJ, outer.EnergyMJ, e.ErrorMJ},
	} {
		if c.got < c.lo-c.bound || c.got > c.hi+c.bound || c.bound > 0.25*c.lo || c.lo <= 0 {
			t.Errorf("%s: %s %.4f, truth %.4f to %.4f, bound ± %.4f", st.Name, c.what, c.got, c.lo, c.hi, c.bound)
		}
	}
	t.Logf("%s: %.4f mAh ± %.4f, %.1f mJ ± %.1f over %d reads; truth %.4f mAh, %.1f mJ (clock ± %v ms)", st.Name, e.ChargeMAh, e.ErrorMAh, e.EnergyMJ, e.ErrorMJ, e.Reads, truth.ChargeMAh, truth.EnergyMJ, r.Clock.UncertaintyMs)
	if got := metric(t, st, metrics.EnergyMJ); got != e.EnergyMJ {
		t.Errorf("%s: energy_mj %v, step says %v", st.Name, got, e.EnergyMJ)
	}
	if !rails {
		absent(t, st, metrics.RailEnergyNames, "no power monitors")
		return
	}
	groups := map[string]float64{"cpu_little": truth.RailsMJ["S4M_VDD_CPUCL0"], "cpu_mid": truth.RailsMJ["S3M_VDD_CPUCL1"],
		"cpu_big": truth.RailsMJ["S2M_VDD_CPUCL2"], "gpu": truth.RailsMJ["S2S_VDD_G3D"], "display": truth.RailsMJ["VSYS_PWR_DISPLAY"], "modem": truth.RailsMJ["VSYS_PWR_MODEM"]}
	in := map[string]float64{"cpu_little": inner.RailsMJ["S4M_VDD_CPUCL0"], "cpu_mid": inner.RailsMJ["S3M_VDD_CPUCL1"],
		"cpu_big": inner.RailsMJ["S2M_VDD_CPUCL2"], "gpu": inner.RailsMJ["S2S_VDD_G3D"], "display": inner.RailsMJ["VSYS_PWR_DISPLAY"], "modem": inner.RailsMJ["VSYS_PWR_MODEM"]}
	out := map[string]float64{"cpu_little": outer.RailsMJ["S4M_VDD_CPUCL0"], "cpu_mid": outer.RailsMJ["S3M_VDD_CPUCL1"],
		"cpu_big": outer.RailsMJ["S2M_VDD_CPUCL2"], "gpu": outer.RailsMJ["S2S_VDD_G3D"], "display": outer.RailsMJ["VSYS_PWR_DISPLAY"], "modem": outer.RailsMJ["VSYS_PWR_MODEM"]}
	for g, want := range groups {
		got, bound := e.Rails[g], e.RailsErrorMJ[g]
		if got < in[g]-bound || got > out[g]+bound || bound > 0.05*want+0.05 {
			t.Errorf("%s: rail group %s %.3f mJ, truth %.3f to %.3f, bound ± %.3f", st.Name, g, got, in[g], out[g], bound)
		}
	}
	if _, ok := e.Channels["S1M_VDD_MIF:DDR"]; !ok {
		t.Errorf("%s: the ungrouped DDR rail is not kept: %v", st.Name, e.Channels)
	}
}

// checkEnergyBudget: a budget on energy_mj below the second step's figure
// fails, naming the figure and its definition; one above passes.
func checkEnergyBudget(t *testing.T, r *result.Result) {
	t.Helper()
	var m budget.Measurement
	for _, x := range r.Measurements() {
		if x.Step == "second" {
			m = x
		}
	}
	e := r.Step("second").Energy
	low := budget.Judge(m, budget.Limit{Step: "second", Metric: metrics.EnergyMJ, Value: e.EnergyMJ / 2}, "test")
	high := budget.Judge(m, budget.Limit{Step: "second", Metric: metrics.EnergyMJ, Value: e.EnergyMJ * 2}, "test")
	if low.Status != budget.Fail || !strings.Contains(low.Line, "second: energy_mj") || high.Status != budget.Pass {
		t.Errorf("budgets on energy_mj %.0f: at half %s %q, at twice %s", e.EnergyMJ, low.Status, low.Line, high.Status)
	}
}
