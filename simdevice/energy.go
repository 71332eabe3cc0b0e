package simdevice

import (
	"fmt"
	"io"
	"sort"

	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// BatteryQuirks are how phones differ in their battery: the sign of the
// current they report, a charger plugged in, power rails.
type BatteryQuirks struct {
	// PositiveDischarge reports a discharge as a positive current_now (as
	// Samsung's and some MediaTek kernels do); by default it is negative,
	// as on Pixels.
	PositiveDischarge bool
	// Charger is "usb" or "ac" for a phone on a charger: the kernel says
	// Charging and the battery's current is the charger's 1.5 A less what
	// the phone draws, which hides the app's draw. `dumpsys battery
	// unplug` makes BatteryService say unplugged; as on real phones the
	// charger still charges. "" is a phone on its battery.
	Charger string
	// DumpsysCurrent makes dumpsys battery print Samsung's "current now:"
	// line, in mA with current_now's sign.
	DumpsysCurrent bool
	// PowerRails gives the phone on-device power monitors, as Pixel 6 and
	// later have: `dumpsys android.hardware.power.stats.IPowerStats/default`
	// prints each rail's cumulative energy (see TruthEnergy).
	PowerRails bool
}

func (q BatteryQuirks) validate() error {
	switch q.Charger {
	case "", "usb", "ac":
		return nil
	}
	return fmt.Errorf("simdevice: config: Quirks.Battery.Charger: %q is not \"usb\", \"ac\" or \"\"", q.Charger)
}

// chargerUA is what the simulated charger pushes into the phone.
const chargerUA = 1_500_000

// simRails are the simulated phone's power rails, as a Pixel 6's power
// monitors name them ("[S4M_VDD_CPUCL0]:CPU(LITTLE)"): each draws base
// mW, and perLoad mW more per core's worth of the app's CPU use. The
// battery's power is more than their sum, as on a phone (the rails
// monitor only some of its supplies).
var simRails = []struct {
	rail, subsystem string
	base, perLoad   float64
}{
	{"S4M_VDD_CPUCL0", "CPU(LITTLE)", 30, 90},
	{"S3M_VDD_CPUCL1", "CPU(MID)", 20, 160},
	{"S2M_VDD_CPUCL2", "CPU(BIG)", 10, 240},
	{"S2S_VDD_G3D", "GPU", 25, 110},
	{"VSYS_PWR_DISPLAY", "Display", 180, 0},
	{"VSYS_PWR_MODEM", "Modem", 45, 0},
	{"S1M_VDD_MIF", "DDR", 60, 70},
	{"S5M_VDD_INT", "INT", 35, 20},
}

// batteryEnergy is what the battery drew, cumulative, marked at the end
// of every span the world ran: current and voltage are constant inside a
// span, so the draw between two marks is linear in time.
type batteryEnergy struct {
	marks []energyMark
	// unplugged says `dumpsys battery unplug` ran and no reset since.
	unplugged bool
}

// energyMark is the cumulative draw at device time at (ns): charge in
// µAs, energy in µJ, and each rail's energy in µJ since boot.
type energyMark struct {
	at        int64
	chargeUAs float64
	energyUJ  float64
	rails     [8]float64
}

// maxEnergyMarks bounds the marks kept: a phone that runs for days keeps
// the newest.
const maxEnergyMarks = 1 << 18

// settle adds what the battery b drew over [from, to): its current and
// voltage are those drain set for the span.
func (e *batteryEnergy) settle(b *batteryState, from, to int64) {
	if len(e.marks) == 0 {
		m := energyMark{at: from}
		for i, r := range simRails {
			m.rails[i] = r.base * float64(from) / 1e6 // mW × s since boot → µJ
		}
		e.marks = append(e.marks, m)
	}
	if to <= from {
		return
	}
	dt := float64(to-from) / 1e9
	last := e.marks[len(e.marks)-1]
	load := (b.current - 180_000) / 260_000 // drain's model: 180 mA idle, 260 mA a core's worth of the app's work
	m := energyMark{at: to, chargeUAs: last.chargeUAs + b.current*dt, energyUJ: last.energyUJ + b.current*b.voltage/1e6*dt}
	for i, r := range simRails {
		m.rails[i] = last.rails[i] + (r.base+r.perLoad*load)*1000*dt
	}
	if len(e.marks) >= maxEnergyMarks {
		e.marks = append(e.marks[:0], e.marks[len(e.marks)/2:]...)
	}
	e.marks = append(e.marks, m)
}

// at is the cumulative draw at device time t, interpolated between marks;
// ok is false outside the marks kept.
func (e *batteryEnergy) at(t int64) (energyMark, bool) {
	n := len(e.marks)
	if n == 0 || t < e.marks[0].at || t > e.marks[n-1].at {
		return energyMark{}, false
	}
	i := sort.Search(n, func(i int) bool { return e.marks[i].at >= t })
	if e.marks[i].at == t || i == 0 {
		return e.marks[i], true
	}
	a, b := e.marks[i-1], e.marks[i]
	f := float64(t-a.at) / float64(b.at-a.at)
	m := energyMark{at: t, chargeUAs: a.chargeUAs + f*(b.chargeUAs-a.chargeUAs), energyUJ: a.energyUJ + f*(b.energyUJ-a.energyUJ)}
	for k := range m.rails {
		m.rails[k] = a.rails[k] + f*(b.rails[k]-a.rails[k])
	}
	return m, true
}

// TruthEnergy is what the phone drew between two moments of its clock:
// the charge and energy it used (from its battery, or from the charger
// while one is plugged in) and the energy through each power rail, named as the power monitors name it
// ("S4M_VDD_CPUCL0").
type TruthEnergy struct {
	ChargeMAh float64
	EnergyMJ  float64
	RailsMJ   map[string]float64
}

// TruthEnergy returns what the phone drew between device times fromNs and
// toNs; ok is false when that span is not wholly in what the world ran.
func (w *World) TruthEnergy(fromNs, toNs int64) (TruthEnergy, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e := &w.battery.e
	a, ok1 := e.at(fromNs)
	b, ok2 := e.at(toNs)
	if !ok1 || !ok2 {
		return TruthEnergy{}, false
	}
	t := TruthEnergy{ChargeMAh: (b.chargeUAs - a.chargeUAs) / 3600 / 1000, EnergyMJ: (b.energyUJ - a.energyUJ) / 1000, RailsMJ: map[string]float64{}}
	for i, r := range simRails {
		t.RailsMJ[r.rail] = (b.rails[i] - a.rails[i]) / 1000
	}
	return t, true
}

// BatteryUnplugged reports whether `dumpsys battery unplug` is in force
// (no `dumpsys battery reset` since).
func (w *World) BatteryUnplugged() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.battery.e.unplugged
}

// dumpsysPowerStats is `dumpsys android.hardware.power.stats.IPowerStats/default`
// on a phone with power rails.
func (w *World) dumpsysPowerStats(stdout, stderr io.Writer) int {
	if !w.cfg.Quirks.Battery.PowerRails {
		fmt.Fprintln(stderr, "Can't find service: android.hardware.power.stats.IPowerStats/default")
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	e := &w.battery.e
	if len(e.marks) == 0 {
		e.settle(&w.battery, w.now, w.now)
	}
	last := e.marks[len(e.marks)-1]
	var chans []format.RailEnergy
	for i, r := range simRails {
		chans = append(chans, format.RailEnergy{Rail: r.rail, Subsystem: r.subsystem, EnergyUWs: int64(last.rails[i])})
	}
	format.WritePowerStats(stdout, chans)
	return 0
}

// dumpsysBatteryCmd is `dumpsys battery unplug` and `dumpsys battery
// reset`; other arguments print the state.
func (w *World) dumpsysBatteryCmd(args []string, stdout io.Writer) int {
	if len(args) == 1 && (args[0] == "unplug" || args[0] == "reset") {
		w.mu.Lock()
		w.battery.e.unplugged = args[0] == "unplug"
		w.mu.Unlock()
		return 0
	}
	return w.dumpsysBattery(stdout)
}
