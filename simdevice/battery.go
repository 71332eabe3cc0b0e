package simdevice

import (
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/simdevice/internal/format"
)

// batteryCapacityUAh is the simulated battery's capacity.
const batteryCapacityUAh = 4_355_000

// levelNow is the charge level in percent.
func (b *batteryState) levelNow() int {
	used := int(b.charge * 100 / batteryCapacityUAh)
	return max(b.level-used, 1)
}

var thermalZones = []struct {
	name string
	base int // millidegrees Celsius
}{
	{"battery", 31200}, {"skin-therm", 33400}, {"cpu-0-0-usr", 41800}, {"cpu-1-0-usr", 44100}, {"gpuss-0-usr", 39700},
}

// report is the battery as the kernel and BatteryService report it: the
// current in the quirks' sign convention, a charger's current less the
// phone's draw while one is plugged in (which BatteryService hides after
// `dumpsys battery unplug`, and the kernel does not).
func (b *batteryState) report(q BatteryQuirks) format.Battery {
	r := format.Battery{
		Level: b.levelNow(), CurrentUA: -int64(b.current), VoltageUV: int64(b.voltage),
		TempDeci: b.tempDeci, FullUAh: batteryCapacityUAh, Status: "Discharging", CurrentNow: q.DumpsysCurrent,
	}
	if q.Charger != "" {
		r.CurrentUA += chargerUA
		r.Status = "Charging"
		if !b.e.unplugged {
			r.Plugged = q.Charger
		}
	}
	if q.PositiveDischarge {
		r.CurrentUA = -r.CurrentUA
	}
	return r
}

// sysFileLocked serves /sys files; ok is false when path is not under a
// simulated /sys directory.
func (w *World) sysFileLocked(path string) (s string, ok bool, err error) {
	bat := &w.battery
	if rest, found := strings.CutPrefix(path, "/sys/class/power_supply/battery/"); found {
		if s, ok := format.BatteryFile(rest, bat.report(w.cfg.Quirks.Battery)); ok {
			return s, true, nil
		}
		return "", true, fs.ErrNotExist
	}
	if rest, found := strings.CutPrefix(path, "/sys/class/thermal/thermal_zone"); found {
		num, file, _ := strings.Cut(rest, "/")
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 || n >= len(thermalZones) {
			return "", true, fs.ErrNotExist
		}
		z := thermalZones[n]
		switch file {
		case "type":
			return z.name + "\n", true, nil
		case "temp":
			// Zones warm with the app's load (battery current tracks it).
			return strconv.Itoa(z.base+int((bat.current-180_000)/100)) + "\n", true, nil
		}
		return "", true, fs.ErrNotExist
	}
	if strings.HasPrefix(path, "/sys/") {
		return "", true, fs.ErrNotExist
	}
	return "", false, nil
}

// dumpsysBattery is `dumpsys battery`.
func (w *World) dumpsysBattery(stdout io.Writer) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	format.WriteBattery(stdout, w.battery.report(w.cfg.Quirks.Battery))
	return 0
}
