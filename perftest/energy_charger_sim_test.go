package perftest_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/internal/simtest"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/simdevice"
)

var energyNames = []metrics.Name{metrics.EnergyMAh, metrics.EnergyMJ, metrics.PowerMeanMW}

func hasNote(r *result.Result, part string) bool {
	return slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, part) })
}

// TestEnergyOnCharger: a phone on USB power reports the charger's current
// into its battery, which hides what the phone drew: each step says so,
// its energy figures are absent with that reason (not 0), and the sign
// convention is still told, from the status beside the current.
func TestEnergyOnCharger(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		r, _ := energyRun(t, simdevice.Quirks{Battery: simdevice.BatteryQuirks{Charger: "usb"}}, nil, nil)
		for _, st := range r.Steps {
			absent(t, st, energyNames, "on a charger", "(status charging in ")
			if e := st.Energy; e == nil || e.Charging == "" || !strings.HasPrefix(e.Convention, "negative = discharging (detected: status charging, current > 0") {
				t.Errorf("%s: energy %+v; want the charger named and the convention told", st.Name, e)
			}
		}
		if !hasNote(r, "USB power hides the battery's discharge") {
			t.Errorf("no note of the charger: %q", r.Notes)
		}
	})
}

// TestUnplugBattery: the unplug option tells BatteryService the phone is
// unplugged for the session and resets it at Stop, leaving no mark; the
// kernel still says charging, so the figures stay absent.
func TestUnplugBattery(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		r, dev := energyRun(t, simdevice.Quirks{Battery: simdevice.BatteryQuirks{Charger: "usb"}}, func(c *perftest.Config) { c.Energy.UnplugBattery = true },
			func(dev *simdevice.Device) {
				if !dev.World().BatteryUnplugged() {
					t.Error("the battery is not unplugged during the session")
				}
				if out := simSh(t, dev, "dumpsys battery", ""); !strings.Contains(out, "USB powered: false") {
					t.Errorf("dumpsys battery during the session says\n%s\nwant USB powered: false", out)
				}
			})
		if dev.World().BatteryUnplugged() {
			t.Error("the battery is still unplugged after Stop")
		}
		if !hasNote(r, "unplugged for the session") || !hasNote(r, "reset at Stop") {
			t.Errorf("notes %q; want the unplug and the reset", r.Notes)
		}
		if out := simSh(t, dev, "ls /data/local/tmp", ""); strings.Contains(out, "perfgate-unplug-") {
			t.Errorf("the unplug mark is left on the phone: %s", out)
		}
		absent(t, r.Step("first"), energyNames, "on a charger")
	})
}

// TestUnplugLeftByDeadSession: a session killed outright leaves the
// battery unplugged and its mark on the phone; once the mark is ten
// minutes untouched, the next session resets the battery, removes the
// mark and says so, while a mark a live session touches is left alone.
func TestUnplugLeftByDeadSession(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := simWorkload(t, pulsingWorkload(t), 34, simdevice.Quirks{Battery: simdevice.BatteryQuirks{Charger: "usb"}})
		const dead = "/data/local/tmp/perfgate-unplug-0123456789abcdef"
		simSh(t, dev, "touch "+dead+" && dumpsys battery unplug", "")
		time.Sleep(5 * time.Minute)
		r := energyRunOn(t, dev, d, nil, nil)
		if !dev.World().BatteryUnplugged() || hasNote(r, "a session that died") {
			t.Fatalf("a mark 5 minutes old was taken for a dead session's: unplugged %v, notes %q", dev.World().BatteryUnplugged(), r.Notes)
		}
		time.Sleep(6 * time.Minute)
		r = energyRunOn(t, dev, d, nil, nil)
		if dev.World().BatteryUnplugged() || !hasNote(r, "a session that died left the battery unplugged ("+dead) {
			t.Errorf("after 11 minutes: unplugged %v, notes %q; want the battery reset, with a note", dev.World().BatteryUnplugged(), r.Notes)
		}
		if out := simSh(t, dev, "ls /data/local/tmp", ""); strings.Contains(out, "perfgate-unplug-") {
			t.Errorf("the dead session's mark is still on the phone: %s", out)
		}
	})
}

// TestEnergyWithoutCurrent: a phone whose kernel hides current_now and
// whose dumpsys battery prints no current (AOSP's) has no battery energy
// figures, each absent with the reason, never 0; its power monitors are
// still read, and each rail group's energy is the truth's within its
// bound.
func TestEnergyWithoutCurrent(t *testing.T) {
	simtest.Bubble(t, func(t *testing.T) {
		dev, d := simWorkload(t, pulsingWorkload(t), 34, simdevice.Quirks{MissingFiles: []string{"/sys/class/power_supply/battery/current_now"},
			Battery: simdevice.BatteryQuirks{PowerRails: true}})
		r := energyRunOn(t, dev, d, nil, nil)
		for _, st := range r.Steps {
			absent(t, st, energyNames, "no battery current to read", "dumpsys battery: no current figure")
			u := int64(r.Clock.UncertaintyMs*1e6) + 1
			inner, _ := dev.World().TruthEnergy(st.DeviceStartNs+u, st.DeviceEndNs-u)
			outer, _ := dev.World().TruthEnergy(st.DeviceStartNs-u, st.DeviceEndNs+u)
			got, bound := metric(t, st, metrics.EnergyRailCPUBigMJ), st.Energy.RailsErrorMJ["cpu_big"]
			if lo, hi := inner.RailsMJ["S2M_VDD_CPUCL2"], outer.RailsMJ["S2M_VDD_CPUCL2"]; got < lo-bound || got > hi+bound || lo <= 0 {
				t.Errorf("%s: cpu_big %.3f mJ ± %.3f, truth %.3f to %.3f", st.Name, got, bound, lo, hi)
			}
		}
	})
}
