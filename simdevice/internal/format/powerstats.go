package format

import (
	"fmt"
	"io"
)

// RailEnergy is one channel of a phone's power monitors: the rail, the
// subsystem it feeds and the energy through it since boot, µWs.
type RailEnergy struct {
	Rail, Subsystem string
	EnergyUWs       int64
}

// WritePowerStats writes `dumpsys android.hardware.power.stats.IPowerStats/default`
// as Pixel's PowerStats HAL prints it (hardware/google/pixel
// powerstats/PowerStatsAidl.cpp, dumpStateResidency, dumpEnergyConsumer,
// dumpEnergyMeter): the state residencies and energy consumers, then the
// energy meter, one channel a line as "  %32s   %14.2f mWs" of
// "[rail]:subsystem" and the µWs counter divided by 1000 as a C float,
// whose 24-bit mantissa rounds a large counter.
func WritePowerStats(w io.Writer, chans []RailEnergy) {
	fmt.Fprint(w, "\n============= PowerStats HAL 2.0 state residencies ==============\n")
	fmt.Fprintf(w, "  %16s   %18s   %16s   %15s   %17s\n", "Entity", "State", "Total time", "Total entries", "Last entry tstamp")
	fmt.Fprintf(w, "  %16s   %18s   %13d ms   %15d   %14d ms\n", "CPU0", "DOWN", 512340, 20931, 873112)
	fmt.Fprint(w, "========== End of PowerStats HAL 2.0 state residencies ==========\n")
	fmt.Fprint(w, "\n============= PowerStats HAL 2.0 energy consumers ==============\n")
	fmt.Fprint(w, "========== End of PowerStats HAL 2.0 energy consumers ==========\n")
	fmt.Fprint(w, "\n============= PowerStats HAL 2.0 energy meter ==============\n")
	fmt.Fprintf(w, "  %32s   %18s\n", "Channel", "Cumulative Energy")
	for _, c := range chans {
		fmt.Fprintf(w, "  %32s   %14.2f mWs\n", "["+c.Rail+"]:"+c.Subsystem, float64(float32(c.EnergyUWs))/1000)
	}
	fmt.Fprint(w, "========== End of PowerStats HAL 2.0 energy meter ==========\n")
}
