package perftest

import (
	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/result"
)

func parseBatteryUevent(b []byte) (result.BatteryReading, bool) {
	st, err := dumpsys.ParseBatteryUevent(b)
	if err != nil {
		return result.BatteryReading{}, false
	}
	br := result.BatteryReading{LevelPct: st.LevelPct}
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
