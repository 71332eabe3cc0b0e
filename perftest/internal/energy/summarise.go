package energy

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/result"
)

// Summarise gives the step its energy figures (st.Energy, and the sign
// convention in st.BatteryStats), keeps the lane's reads in r.Power and
// its source in r.Config.Sources, and passes the lane's notes on. It runs
// under the session's lock.
func (l *Lane) Summarise(st *result.Step, r *result.Result, note devcmd.Note) {
	if l == nil {
		return
	}
	l.mu.Lock()
	ps := append([]result.PowerSample(nil), l.samples...)
	rails := append([]railRead(nil), l.rails...)
	notes := append([]string(nil), l.notes...)
	failed, reads := l.failed, l.reads
	l.mu.Unlock()
	for _, n := range notes {
		note("%s", n)
	}
	if failed > 0 {
		note("energy: %d of the lane's %d reads failed; the figures span the reads that did not, with a wider error bound", failed, reads)
	}
	r.Power = ps
	src := sysfsSource
	if l.cmd == dumpsysCmd {
		src = dumpsysSrc
	}
	if v := fmt.Sprintf("%s, every %v", src, l.opt.Interval); r.Config.Sources != nil && l.cmd != "" && r.Config.Sources["energy"] != v {
		// A new map: the checkpoints written before share the old one,
		// and may be encoding it now.
		srcs := maps.Clone(r.Config.Sources)
		srcs["energy"] = v
		r.Config.Sources = srcs
	}
	conv := Detect(readings(ps))
	e := &result.EnergyStats{Source: src, Convention: conv.Text, Rule: Rule, Why: l.why}
	if st.BatteryStats != nil {
		st.BatteryStats.Convention = conv.Text
	}
	st.Energy = e
	l.summariseRails(st, e, rails)
	if e.Why != "" {
		return
	}
	res := sysfsResolution
	if l.cmd == dumpsysCmd {
		res = dumpsysResolution
	}
	// A charger is the reason first: a phone held full on one has a
	// convention nobody can tell, and would be measured on none.
	w, ok := integrate(ps, conv.Discharge, st.HostStartNs, st.HostEndNs, res)
	e.Reads = w.reads
	switch {
	case !ok:
		e.Why = "energy: no read of the battery"
	case w.onPower == 0 && conv.Discharge == 0:
		e.Why = "energy: the current's sign convention " + conv.Text
	case w.onPower > 0:
		e.Why = w.chargingWhy()
		e.Charging = strings.TrimPrefix(e.Why, "energy: ")
		note("energy: the phone was on a charger during step %q: USB power hides the battery's discharge, so the step has no energy figures (unplug the cable; perfgate's unplug option tells only BatteryService)", st.Name)
	default:
		e.Measured = true
		e.ChargeMAh, e.EnergyMJ, e.ErrorMAh, e.ErrorMJ = w.chargeMAh, w.energyMJ, w.errMAh, w.errMJ
		if d := float64(st.HostEndNs-st.HostStartNs) / 1e9; d > 0 {
			e.PowerMeanMW = w.energyMJ / d
		}
	}
}

// summariseRails gives the step its energy per rail group.
func (l *Lane) summariseRails(st *result.Step, e *result.EnergyStats, rails []railRead) {
	if l.railsWhy != "" {
		e.RailsWhy = l.railsWhy
		return
	}
	mj, bound, ok := railWindow(rails, st.HostStartNs, st.HostEndNs)
	if !ok {
		e.RailsWhy = "energy: no read of the power monitors on both sides of the step"
		return
	}
	e.Rails, e.Channels, e.RailsErrorMJ = map[string]float64{}, map[string]float64{}, map[string]float64{}
	for _, k := range sortedKeys(mj) {
		rail, sub, _ := strings.Cut(k, "\x00")
		name := rail
		if sub != "" {
			name += ":" + sub
		}
		e.Channels[name] = mj[k]
		if g := RailGroup(rail, sub); g != "" {
			e.Rails[g] += mj[k]
			e.RailsErrorMJ[g] += bound[k]
		}
	}
}

func sortedKeys(m map[string]float64) []string { return slices.Sorted(maps.Keys(m)) }
