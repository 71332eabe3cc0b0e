package simdevice

import (
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
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

// sysFileLocked serves /sys files; ok is false when path is not under a
// simulated /sys directory.
func (w *World) sysFileLocked(path string) (s string, ok bool, err error) {
	bat := &w.battery
	if rest, found := strings.CutPrefix(path, "/sys/class/power_supply/battery/"); found {
		cur := -int64(bat.current) // the kernel reports discharge as negative µA on Pixels
		switch rest {
		case "uevent":
			return fmt.Sprintf(`POWER_SUPPLY_NAME=battery
POWER_SUPPLY_TYPE=Battery
POWER_SUPPLY_STATUS=Discharging
POWER_SUPPLY_HEALTH=Good
POWER_SUPPLY_PRESENT=1
POWER_SUPPLY_ONLINE=1
POWER_SUPPLY_TECHNOLOGY=Li-ion
POWER_SUPPLY_CYCLE_COUNT=212
POWER_SUPPLY_VOLTAGE_NOW=%d
POWER_SUPPLY_CURRENT_NOW=%d
POWER_SUPPLY_CURRENT_AVG=%d
POWER_SUPPLY_CHARGE_COUNTER=%d
POWER_SUPPLY_CHARGE_FULL=%d
POWER_SUPPLY_CHARGE_FULL_DESIGN=4500000
POWER_SUPPLY_CAPACITY=%d
POWER_SUPPLY_TEMP=%d
`, int64(bat.voltage), cur, cur, int64(batteryCapacityUAh*bat.levelNow()/100), batteryCapacityUAh, bat.levelNow(), bat.tempDeci), true, nil
		case "current_now", "current_avg":
			return strconv.FormatInt(cur, 10) + "\n", true, nil
		case "voltage_now":
			return strconv.FormatInt(int64(bat.voltage), 10) + "\n", true, nil
		case "capacity":
			return strconv.Itoa(bat.levelNow()) + "\n", true, nil
		case "temp":
			return strconv.Itoa(bat.tempDeci) + "\n", true, nil
		case "status":
			return "Discharging\n", true, nil
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

// dumpsysBattery is `dumpsys battery` in AOSP's layout (xiaomi_pad6 API 34
// capture): voltage in mV, temperature in tenths of a degree.
func (w *World) dumpsysBattery(stdout io.Writer) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.advanceLocked()
	b := &w.battery
	fmt.Fprintf(stdout, `Current Battery Service state:
  AC powered: false
  USB powered: false
  Wireless powered: false
  Dock powered: false
  Max charging current: 0
  Max charging voltage: 0
  Charge counter: %d
  status: 3
  health: 2
  present: true
  level: %d
  scale: 100
  voltage: %d
  temperature: %d
  technology: Li-ion
`, batteryCapacityUAh*b.levelNow()/100, b.levelNow(), int64(b.voltage)/1000, b.tempDeci)
	return 0
}
