package dumpsys

import (
	"math"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/devtext"
)

// PowerStatsCommand prints the cumulative energy of a phone's power rails
// (the on-device power monitors of Pixel 6 and later).
const PowerStatsCommand = "dumpsys android.hardware.power.stats.IPowerStats/default"

// RailEnergy is one channel of the PowerStats HAL's energy meter: the
// rail ("S4M_VDD_CPUCL0"), the subsystem it feeds ("CPU(LITTLE)"), and
// the energy through it since boot in mWs (= mJ).
type RailEnergy struct {
	Rail, Subsystem string
	EnergyMWs       float64
}

// ParsePowerStats reads the energy meter section of PowerStatsCommand's
// output, as Pixel's PowerStats HAL prints it (hardware/google/pixel
// powerstats/PowerStatsAidl.cpp, dumpEnergyMeter): between
// "============= PowerStats HAL 2.0 energy meter ==============" and its
// "========== End of …" line, a "Channel  Cumulative Energy" header, then
// one "  [S4M_VDD_CPUCL0]:CPU(LITTLE)      123456.78 mWs" line a channel,
// with "(delta)" after it when dumped with the "delta" argument. The HAL
// prints the counter (µWs) through a C float, so a counter above 2^24 µWs
// (16.8 J) is rounded to its 24-bit mantissa: 1 mWs steps from 16.8 kJ.
// Output without the section ("Can't find service" on phones without
// power monitors), or whose section lists no channel, is an error.
func ParsePowerStats(b []byte) ([]RailEnergy, error) {
	var out []RailEnergy
	in := false
	seen := false
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		switch {
		case strings.HasPrefix(t, "=") && strings.Contains(t, "PowerStats HAL 2.0 energy meter"):
			in = !strings.Contains(t, "End of")
			seen = seen || in
			continue
		case !in || t == "" || strings.HasPrefix(t, "Channel") || strings.HasPrefix(t, "Elapsed time"):
			continue
		}
		head, _, ok := strings.Cut(t, " mWs")
		f := strings.Fields(head)
		if !ok || len(f) < 2 {
			return nil, &devtext.ParseError{Source: PowerStatsCommand, Line: i + 1, Text: ln, Reason: "want \"<channel> <energy> mWs\""}
		}
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return nil, &devtext.ParseError{Source: PowerStatsCommand, Line: i + 1, Text: ln, Reason: "bad energy"}
		}
		r := RailEnergy{Rail: strings.Join(f[:len(f)-1], " "), EnergyMWs: v}
		if rail, sub, ok := strings.Cut(r.Rail, "]:"); ok && strings.HasPrefix(rail, "[") {
			r.Rail, r.Subsystem = rail[1:], sub
		}
		out = append(out, r)
	}
	if !seen {
		return nil, &devtext.ParseError{Source: PowerStatsCommand, Reason: "no \"PowerStats HAL 2.0 energy meter\" section"}
	}
	if len(out) == 0 {
		return nil, &devtext.ParseError{Source: PowerStatsCommand, Reason: "the energy meter lists no channel"}
	}
	return out, nil
}
