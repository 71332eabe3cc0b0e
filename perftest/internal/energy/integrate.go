package energy

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/result"
)

// Rule is how a step's battery figures are integrated, as the Result
// states it.
const Rule = "trapezoid over the lane's reads, current and voltage interpolated linearly to the step's edges (held flat past the first or last read); " +
	"error bound ½·|ΔP|·Δt for each interval between two reads inside the step, |ΔP|·Δt for one an edge cuts, |P|·Δt for a span held flat, " +
	"|ΔP|·RTT for when each read ran, and half the source's resolution (1 mA, 1 mV for dumpsys battery) over the step: it holds while the power changes at most once between two reads"

// window is what the battery gave over a step.
type window struct {
	chargeMAh, energyMJ float64
	errMAh, errMJ       float64
	reads               int
	// charging counts the reads of the step on external power, by status.
	charging map[string]int
	onPower  int
}

// integrate integrates the drawn current and power (discharge sign d)
// over host ns [a, b] from samples sorted by time, whose current and
// voltage are printed to res (mA, mV): each read may be off by half of
// it, which the bound adds over the window. ok is false without samples.
func integrate(ps []result.PowerSample, d int, a, b int64, res resolution) (w window, ok bool) {
	if len(ps) == 0 || b < a {
		return w, false
	}
	cur := func(p result.PowerSample) float64 { return float64(d) * p.CurrentMA }
	pow := func(p result.PowerSample) float64 { return float64(d) * p.CurrentMA * p.VoltageMV / 1000 }
	w.charging = map[string]int{}
	// Reads from the last at or before a to the first at or after b.
	i0 := sort.Search(len(ps), func(i int) bool { return ps[i].HostNs > a }) - 1
	i1 := sort.Search(len(ps), func(i int) bool { return ps[i].HostNs >= b })
	lo, hi := max(i0, 0), min(i1, len(ps)-1)
	if hi < lo { // reads at the same instant as a window of none
		lo, hi = hi, lo
	}
	for _, p := range ps[lo : hi+1] {
		w.reads++
		if onExternalPower(p.Status) {
			w.onPower++
			w.charging[p.Status+plugged(p.Plugged)]++
		}
	}
	var q, e, dq, de float64 // mAs, mJ and their bounds
	var maxMA, maxMV float64
	for _, p := range ps[lo : hi+1] {
		maxMA, maxMV = max(maxMA, math.Abs(p.CurrentMA)), max(maxMV, math.Abs(p.VoltageMV))
	}
	s := float64(b-a) / 1e9
	dq, de = res.mA/2*s, (res.mA/2*maxMV+res.mV/2*maxMA)/1000*s
	hold := func(p result.PowerSample, from, to int64) {
		s := float64(to-from) / 1e9
		q, e = q+cur(p)*s, e+pow(p)*s
		dq, de = dq+math.Abs(cur(p))*s, de+math.Abs(pow(p))*s
	}
	if i0 < 0 {
		hold(ps[0], a, min(b, ps[0].HostNs))
	}
	if i1 >= len(ps) {
		hold(ps[len(ps)-1], max(a, ps[len(ps)-1].HostNs), b)
	}
	for k := lo; k < hi; k++ {
		p0, p1 := ps[k], ps[k+1]
		from, to := max(a, p0.HostNs), min(b, p1.HostNs)
		if to <= from {
			continue
		}
		span := float64(p1.HostNs - p0.HostNs)
		at := func(f func(result.PowerSample) float64, t int64) float64 {
			return f(p0) + (f(p1)-f(p0))*float64(t-p0.HostNs)/span
		}
		s := float64(to-from) / 1e9
		q += (at(cur, from) + at(cur, to)) / 2 * s
		e += (at(pow, from) + at(pow, to)) / 2 * s
		share := 0.5
		if from > p0.HostNs || to < p1.HostNs {
			share = 1
		}
		rtt := float64(p0.RTTNs+p1.RTTNs) / 2 / 1e9
		dq += math.Abs(cur(p1)-cur(p0)) * (share*s + rtt)
		de += math.Abs(pow(p1)-pow(p0)) * (share*s + rtt)
	}
	w.chargeMAh, w.energyMJ = q/3600, e
	w.errMAh, w.errMJ = dq/3600, de
	return w, true
}

// resolution is the step of a source's current (mA) and voltage (mV).
type resolution struct{ mA, mV float64 }

var (
	sysfsResolution   = resolution{0.001, 0.001} // µA, µV
	dumpsysResolution = resolution{1, 1}         // mA, mV
)

// onExternalPower reports whether a battery status says a charger powers
// the phone: charging, full, or "not charging" (plugged in, held).
func onExternalPower(status string) bool {
	switch status {
	case "charging", "full", "not charging":
		return true
	}
	return false
}

func plugged(p string) string {
	if p == "" {
		return ""
	}
	return " (" + p + ")"
}

// chargingWhy is why a step on external power has no battery figures.
func (w window) chargingWhy() string {
	var parts []string
	for s, n := range w.charging {
		parts = append(parts, fmt.Sprintf("%s in %d", s, n))
	}
	sort.Strings(parts)
	return fmt.Sprintf("energy: the phone was on a charger in %d of the step's %d reads (status %s): its battery current hides what the phone drew",
		w.onPower, w.reads, strings.Join(parts, ", "))
}
