package dumpsys

import (
	"errors"
	"math"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
)

// powerStatsPixel is the layout of Pixel's PowerStatsAidl.cpp dump (format
// strings "  %32s   %18s" and "  %32s   %14.2f mWs"), with the delta
// column its "delta" argument adds on one line.
const powerStatsPixel = `
============= PowerStats HAL 2.0 state residencies ==============
            Entity                State         Total time     Total entries   Last entry tstamp
              CPU0                 DOWN          512340 ms             20931           873112 ms
========== End of PowerStats HAL 2.0 state residencies ==========

============= PowerStats HAL 2.0 energy consumers ==============
CPU_CLUSTER  :       41230.50 mWs
========== End of PowerStats HAL 2.0 energy consumers ==========

============= PowerStats HAL 2.0 energy meter ==============
                           Channel    Cumulative Energy
      [S4M_VDD_CPUCL0]:CPU(LITTLE)        123456.78 mWs
         [S3M_VDD_CPUCL1]:CPU(MID)          9876.50 mWs
         [S2M_VDD_CPUCL2]:CPU(BIG)          4321.00 mWs (         12.25)
              [S2S_VDD_G3D]:GPU               0.00 mWs
========== End of PowerStats HAL 2.0 energy meter ==========
`

func TestParsePowerStats(t *testing.T) {
	got, err := ParsePowerStats([]byte(powerStatsPixel))
	if err != nil {
		t.Fatal(err)
	}
	want := []RailEnergy{{"S4M_VDD_CPUCL0", "CPU(LITTLE)", 123456.78}, {"S3M_VDD_CPUCL1", "CPU(MID)", 9876.5},
		{"S2M_VDD_CPUCL2", "CPU(BIG)", 4321}, {"S2S_VDD_G3D", "GPU", 0}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].Rail != want[i].Rail || got[i].Subsystem != want[i].Subsystem || math.Abs(got[i].EnergyMWs-want[i].EnergyMWs) > 1e-9 {
			t.Errorf("channel %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	for name, in := range map[string]string{
		"no service": "Can't find service: android.hardware.power.stats.IPowerStats/default\n",
		"no channel": "============= PowerStats HAL 2.0 energy meter ==============\n  Channel   Cumulative Energy\n========== End of PowerStats HAL 2.0 energy meter ==========\n",
		"bad energy": "============= PowerStats HAL 2.0 energy meter ==============\n  [A]:B   lots mWs\n",
		"no unit":    "============= PowerStats HAL 2.0 energy meter ==============\n  [A]:B   12.5\n",
		"negative":   "============= PowerStats HAL 2.0 energy meter ==============\n  [A]:B   -1.00 mWs\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParsePowerStats([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func FuzzParsePowerStats(f *testing.F) {
	f.Add([]byte(powerStatsPixel))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := ParsePowerStats(b)
		if err != nil {
			return
		}
		for _, r := range rs {
			if r.EnergyMWs < 0 || math.IsNaN(r.EnergyMWs) || math.IsInf(r.EnergyMWs, 0) {
				t.Fatalf("rail %+v", r)
			}
		}
	})
}
