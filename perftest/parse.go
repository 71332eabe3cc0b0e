package perftest

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/metrics"
)

// parseProcUptime reads the first field of /proc/uptime ("12345.67 ...",
// seconds with two decimals) as ns.
func parseProcUptime(b []byte) (int64, bool) {
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	whole, frac, _ := strings.Cut(f[0], ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	// An uptime past 292 years would overflow int64 ns: not a clock.
	if err != nil || sec < 0 || sec > math.MaxInt64/int64(time.Second)-1 {
		return 0, false
	}
	ns := sec * int64(time.Second)
	if frac != "" {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		n, err := strconv.ParseInt(frac, 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		for i := len(frac); i < 9; i++ {
			n *= 10
		}
		ns += n
	}
	return ns, true
}

func parseBatteryUevent(b []byte) (BatteryReading, bool) {
	st, err := metrics.ParseBatteryUevent(b)
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
