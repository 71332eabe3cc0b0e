package perftest

import (
	"github.com/perfgate/perfgate/android/dumpsys"
)

func parseBatteryUevent(b []byte) (BatteryReading, bool) {
	st, err := dumpsys.ParseBatteryUevent(b)
	if err != nil {
		return BatteryReading{}, false
	}
	br := BatteryReading{LevelPct: st.LevelPct}
	if st.HasTemp {
		br.TemperatureC = st.TemperatureC
	} else {
		br.NoTemperature = true
	}
	if st.HasVoltage {
		br.VoltageMV = st.VoltageMV
	}
	if st.HasCurrent {
		br.CurrentMA = st.CurrentMA
	}
	return br, true
}
