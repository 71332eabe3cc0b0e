package result

import (
	"fmt"

	"github.com/perfgate/perfgate/metrics"
)

// PowerSample is one read of the energy lane: the battery's current and
// voltage as the phone reports them (current in its own sign, see
// EnergyStats.Convention), its status, and when (host ns since the
// session's start, the middle of the read's round trip of RTTNs).
type PowerSample struct {
	HostNs    int64   `json:"host_ns"`
	RTTNs     int64   `json:"rtt_ns"`
	CurrentMA float64 `json:"current_ma"`
	VoltageMV float64 `json:"voltage_mv"`
	// Status is the battery's: "discharging", "charging", "full", "not
	// charging", "unknown".
	Status string `json:"status"`
	// Plugged is what BatteryService says powers the phone ("usb", "ac",
	// …), "" for its battery or when the lane read sysfs only.
	Plugged string `json:"plugged,omitempty"`
}

// EnergyStats is what the phone drew over a step: the charge and energy
// from its battery, integrated from the energy lane's reads, and the
// energy through each power rail where the phone has power monitors. A
// figure that could not be measured is absent, and the step's
// NotMeasured says why (a charger plugged in, a sign convention that
// cannot be told, no current figure, no reads around the step).
type EnergyStats struct {
	// Source names what the lane read, with units.
	Source string `json:"source"`
	// Convention is the battery current's sign convention and how it was
	// told: "negative = discharging (detected: status discharging,
	// current < 0 in 40 reads)", or "cannot be told: …".
	Convention string `json:"convention"`
	// Rule says how the figures were integrated and what their error
	// bound assumes.
	Rule string `json:"rule,omitempty"`
	// Reads counts the reads the step's figures use, the two that bracket
	// it included.
	Reads int `json:"reads"`
	// ChargeMAh, EnergyMJ and PowerMeanMW are drawn from the battery,
	// positive; present when Measured. ErrorMAh and ErrorMJ bound their
	// sampling error (see Rule).
	Measured    bool    `json:"measured"`
	ChargeMAh   float64 `json:"charge_mah,omitempty"`
	EnergyMJ    float64 `json:"energy_mj,omitempty"`
	PowerMeanMW float64 `json:"power_mean_mw,omitempty"`
	ErrorMAh    float64 `json:"error_mah,omitempty"`
	ErrorMJ     float64 `json:"error_mj,omitempty"`
	// Why is why the battery figures are absent, "" when Measured.
	Why string `json:"why,omitempty"`
	// Charging says the phone was on a charger in the step, which hides
	// the battery's discharge: the figures are then absent.
	Charging string `json:"charging,omitempty"`
	// Rails is the energy through each group of power rails (cpu_big,
	// cpu_mid, cpu_little, gpu, display, modem), mJ; Channels through
	// every channel of the power monitors ("S4M_VDD_CPUCL0"), grouped or
	// not; RailsErrorMJ bounds each group's error. RailsWhy is why there
	// are none.
	Rails        map[string]float64 `json:"rails_mj,omitempty"`
	Channels     map[string]float64 `json:"channels_mj,omitempty"`
	RailsErrorMJ map[string]float64 `json:"rails_error_mj,omitempty"`
	RailsWhy     string             `json:"rails_why,omitempty"`
}

// energyCatalogue adds the energy figures to a step's catalogue.
func (st *Step) energyCatalogue(add func(metrics.Name, string, float64, string)) {
	e := EnergyStats{Why: "energy: not collected", RailsWhy: "energy: not collected"}
	if st.Energy != nil {
		e = *st.Energy
	}
	why := e.Why
	if why == "" && !e.Measured {
		why = "energy: not measured"
	}
	def := func(n metrics.Name, bound float64, unit string) string {
		return fmt.Sprintf("%s, %s; %s; ± %.3g %s", n.Def().Doc, e.Source, e.Rule, bound, unit)
	}
	add(metrics.EnergyMAh, why, e.ChargeMAh, def(metrics.EnergyMAh, e.ErrorMAh, "mAh"))
	add(metrics.EnergyMJ, why, e.EnergyMJ, def(metrics.EnergyMJ, e.ErrorMJ, "mJ"))
	add(metrics.PowerMeanMW, why, e.PowerMeanMW, def(metrics.PowerMeanMW, e.ErrorMJ, "mJ over the step"))
	for _, n := range metrics.RailEnergyNames {
		g := metrics.RailGroup(n)
		v, ok := e.Rails[g]
		rwhy := e.RailsWhy
		if rwhy == "" && !ok {
			rwhy = "energy: the power monitors have no " + g + " rail"
		}
		add(n, rwhy, v, fmt.Sprintf("%s, %s, ± %.3g mJ", n.Def().Doc, "dumpsys android.hardware.power.stats.IPowerStats/default", e.RailsErrorMJ[g]))
	}
}
