package energy

import (
	"math"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/android/dumpsys"
)

// RailGroup is the group a power-monitor channel belongs to: cpu_big,
// cpu_mid, cpu_little, gpu, display, modem, or "" for none. The
// subsystem the HAL names decides ("CPU(BIG)", "CPU(MID)",
// "CPU(LITTLE)", "GPU", "Display", "Modem", as Pixel 6 and later name
// them); a channel whose subsystem is none of those is grouped by its
// rail's name: CPUCL2 big, CPUCL1 mid, CPUCL0 little (the clusters of
// Tensor's S2M/S3M/S4M bucks), G3D the GPU, DISPLAY, MODEM.
func RailGroup(rail, subsystem string) string {
	switch strings.ToUpper(strings.TrimSpace(subsystem)) {
	case "CPU(BIG)":
		return "cpu_big"
	case "CPU(MID)":
		return "cpu_mid"
	case "CPU(LITTLE)":
		return "cpu_little"
	case "GPU":
		return "gpu"
	case "DISPLAY":
		return "display"
	case "MODEM":
		return "modem"
	}
	r := strings.ToUpper(rail)
	for _, m := range []struct{ sub, group string }{
		{"CPUCL2", "cpu_big"}, {"CPUCL1", "cpu_mid"}, {"CPUCL0", "cpu_little"},
		{"G3D", "gpu"}, {"DISPLAY", "display"}, {"MODEM", "modem"},
	} {
		if strings.Contains(r, m.sub) {
			return m.group
		}
	}
	return ""
}

// railRead is one read of the power monitors: when (host ns, the middle
// of a round trip of rtt ns) and each channel's counter, mWs.
type railRead struct {
	hostNs, rtt int64
	chans       []dumpsys.RailEnergy
}

// railWindow is the energy through each channel over host ns [a, b], mJ,
// and the bound on each: the counters are interpolated linearly to the
// step's edges, so an edge inside an interval of ΔE may be off by
// ΔE·max(f, 1−f) (f its place in the interval), and each counter read by
// the float the HAL prints it through (dumpsys.ParsePowerStats). ok is
// false without reads on both sides of the window.
func railWindow(rs []railRead, a, b int64) (mj, bound map[string]float64, ok bool) {
	ea, ba, ok1 := railsAt(rs, a)
	eb, bb, ok2 := railsAt(rs, b)
	if !ok1 || !ok2 {
		return nil, nil, false
	}
	mj, bound = map[string]float64{}, map[string]float64{}
	for ch, v := range eb {
		if u, ok := ea[ch]; ok {
			mj[ch] = max(0, v-u)
			bound[ch] = ba[ch] + bb[ch]
		}
	}
	return mj, bound, true
}

// railsAt interpolates every channel's counter at host ns t.
func railsAt(rs []railRead, t int64) (v, bound map[string]float64, ok bool) {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].hostNs >= t })
	if i >= len(rs) || i == 0 && rs[0].hostNs > t {
		return nil, nil, false
	}
	v, bound = map[string]float64{}, map[string]float64{}
	r1 := rs[i]
	if r1.hostNs == t || i == 0 {
		for _, c := range r1.chans {
			v[chanName(c)], bound[chanName(c)] = c.EnergyMWs, printError(c.EnergyMWs)
		}
		return v, bound, true
	}
	r0 := rs[i-1]
	f := float64(t-r0.hostNs) / float64(r1.hostNs-r0.hostNs)
	prev := map[string]float64{}
	for _, c := range r0.chans {
		prev[chanName(c)] = c.EnergyMWs
	}
	for _, c := range r1.chans {
		n := chanName(c)
		p, found := prev[n]
		if !found {
			continue
		}
		v[n] = p + f*(c.EnergyMWs-p)
		bound[n] = math.Abs(c.EnergyMWs-p)*max(f, 1-f) + printError(p) + printError(c.EnergyMWs)
	}
	return v, bound, true
}

func chanName(c dumpsys.RailEnergy) string { return c.Rail + "\x00" + c.Subsystem }

// printError is how far a printed counter (mWs) may be from the HAL's:
// its float's step at that size, and the two decimals it is printed with.
func printError(mws float64) float64 {
	f := float32(mws * 1000)
	return float64(math.Nextafter32(f, float32(math.Inf(1)))-f)/1000 + 0.005
}
