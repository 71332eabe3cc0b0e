package dumpsys

import (
	"fmt"
	"github.com/perfgate/perfgate/android/devtext"
	"math"
	"strconv"
	"strings"
)

// BatteryState is the battery in perfgate's units, whatever the source.
//
// Normalisation rules (inferred from AOSP, kernel ABI docs and real captures):
//   - Voltage is mV. `dumpsys battery` prints mV; the kernel's
//     POWER_SUPPLY_VOLTAGE_NOW is µV by ABI but some vendor drivers print mV,
//     so a value above 100000 is read as µV and anything else as mV (a
//     phone cell is 2.5–5 V, so the two ranges cannot overlap). MediaTek's
//     POWER_SUPPLY_BATT_VOL is mV.
//   - Temperature is °C. dumpsys and the uevent keys POWER_SUPPLY_TEMP and
//     (MediaTek) POWER_SUPPLY_BATT_TEMP are tenths of a degree (358 → 35.8).
//   - Current is mA with the device's sign (most report discharge as
//     negative; Samsung's dumpsys "current now" is positive while charging).
//     POWER_SUPPLY_CURRENT_NOW and sysfs current_now are µA by ABI and
//     divided by 1000; Samsung's dumpsys "current now" is already mA.
type BatteryState struct {
	LevelPct     float64 // level/scale × 100, or POWER_SUPPLY_CAPACITY
	Level, Scale int     // as printed; Scale 100 when the source has none

	Status     string // "charging", "discharging", "not charging", "full", "unknown"
	Plugged    string // "ac", "usb", "wireless", "dock", or "" when unplugged
	Health     string // "good", "overheat", ... (lower case)
	Technology string // "Li-ion", "Li-poly"
	Present    bool

	VoltageMV    float64
	HasVoltage   bool
	TemperatureC float64
	HasTemp      bool
	CurrentMA    float64
	HasCurrent   bool
}

// batteryStatusNames maps BatteryManager.BATTERY_STATUS_* codes.
var batteryStatusNames = map[int]string{1: "unknown", 2: "charging", 3: "discharging", 4: "not charging", 5: "full"}

// batteryHealthNames maps BatteryManager.BATTERY_HEALTH_* codes.
var batteryHealthNames = map[int]string{1: "unknown", 2: "good", 3: "overheat", 4: "dead", 5: "over voltage", 6: "unspecified failure", 7: "cold"}

// BatterySource names `dumpsys battery` in errors.
const BatterySource = "dumpsys battery"

// ParseBattery parses `dumpsys battery` (AOSP, Samsung and Xiaomi
// variants). Parsing stops at the first "[...]" log-buffer header (Samsung),
// whose lines repeat older values. Output without a level line is an error.
func ParseBattery(b []byte) (BatteryState, error) {
	bs := BatteryState{Scale: 100}
	sawLevel := false
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		if strings.HasPrefix(t, "[") {
			break
		}
		key, val, ok := strings.Cut(t, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		num := func() (int64, error) {
			v, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return 0, &devtext.ParseError{Source: BatterySource, Line: i + 1, Text: ln, Reason: "bad " + key}
			}
			return v, nil
		}
		switch key {
		case "AC powered", "USB powered", "Wireless powered", "Dock powered":
			if val == "true" {
				bs.Plugged = strings.ToLower(strings.TrimSuffix(key, " powered"))
			}
		case "status", "health", "level", "scale", "voltage", "temperature", "current now":
			v, err := num()
			if err != nil {
				return BatteryState{}, err
			}
			switch key {
			case "status":
				bs.Status = batteryStatusNames[int(v)]
				if bs.Status == "" {
					bs.Status = "unknown"
				}
			case "health":
				bs.Health = batteryHealthNames[int(v)]
			case "level":
				bs.Level, sawLevel = int(v), true
			case "scale":
				bs.Scale = int(v)
			case "voltage":
				bs.VoltageMV, bs.HasVoltage = float64(v), true
			case "temperature":
				bs.TemperatureC, bs.HasTemp = float64(v)/10, true
			case "current now":
				bs.CurrentMA, bs.HasCurrent = float64(v), true
			}
		case "present":
			bs.Present = val == "true"
		case "technology":
			bs.Technology = val
		}
	}
	if !sawLevel {
		return BatteryState{}, &devtext.ParseError{Source: BatterySource, Reason: "no level line"}
	}
	if bs.Scale <= 0 {
		return BatteryState{}, &devtext.ParseError{Source: BatterySource, Reason: fmt.Sprintf("scale %d", bs.Scale)}
	}
	bs.LevelPct = float64(bs.Level) / float64(bs.Scale) * 100
	return bs, nil
}

// BatteryUeventSource names the power_supply uevent file in errors.
const BatteryUeventSource = "/sys/class/power_supply/battery/uevent"

// ParseBatteryUevent parses /sys/class/power_supply/battery/uevent
// (KEY=value lines), AOSP keys and MediaTek's (BATT_VOL, BATT_TEMP). Units
// follow the BatteryState rules. Text with no POWER_SUPPLY_CAPACITY is an
// error.
func ParseBatteryUevent(b []byte) (BatteryState, error) {
	bs := BatteryState{Scale: 100}
	sawCapacity := false
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		if t == "" {
			continue
		}
		key, val, ok := strings.Cut(t, "=")
		if !ok {
			return BatteryState{}, &devtext.ParseError{Source: BatteryUeventSource, Line: i + 1, Text: ln, Reason: "want KEY=value"}
		}
		key = strings.TrimPrefix(key, "POWER_SUPPLY_")
		num := func() (float64, error) {
			v, err := strconv.ParseInt(val, 10, 64)
			if err != nil {
				return 0, &devtext.ParseError{Source: BatteryUeventSource, Line: i + 1, Text: ln, Reason: "bad " + key}
			}
			return float64(v), nil
		}
		switch key {
		case "STATUS":
			bs.Status = strings.ToLower(val)
		case "HEALTH":
			bs.Health = strings.ToLower(val)
		case "PRESENT":
			bs.Present = val == "1"
		case "TECHNOLOGY":
			bs.Technology = val
		case "CAPACITY", "VOLTAGE_NOW", "BATT_VOL", "TEMP", "BATT_TEMP", "CURRENT_NOW":
			v, err := num()
			if err != nil {
				return BatteryState{}, err
			}
			switch key {
			case "CAPACITY":
				bs.Level, bs.LevelPct, sawCapacity = int(v), v, true
			case "VOLTAGE_NOW", "BATT_VOL":
				if key == "VOLTAGE_NOW" || !bs.HasVoltage {
					bs.VoltageMV, bs.HasVoltage = batteryVoltageMV(v), true
				}
			case "TEMP", "BATT_TEMP":
				if key == "TEMP" || !bs.HasTemp {
					bs.TemperatureC, bs.HasTemp = v/10, true
				}
			case "CURRENT_NOW":
				bs.CurrentMA, bs.HasCurrent = v/1000, true
			}
		}
	}
	if !sawCapacity {
		return BatteryState{}, &devtext.ParseError{Source: BatteryUeventSource, Reason: "no POWER_SUPPLY_CAPACITY line"}
	}
	return bs, nil
}

// batteryVoltageMV applies the voltage rule of BatteryState.
func batteryVoltageMV(v float64) float64 {
	if math.Abs(v) > 100000 {
		return v / 1000
	}
	return v
}

// ParseBatteryCurrentNow parses /sys/class/power_supply/battery/current_now
// (µA by kernel ABI) into mA, keeping the device's sign.
func ParseBatteryCurrentNow(b []byte) (float64, error) {
	v, err := batterySysfsInt(b, "/sys/class/power_supply/battery/current_now")
	return float64(v) / 1000, err
}

// ParseBatteryVoltageNow parses /sys/class/power_supply/battery/voltage_now
// into mV (µV by ABI; see BatteryState for drivers that print mV).
func ParseBatteryVoltageNow(b []byte) (float64, error) {
	v, err := batterySysfsInt(b, "/sys/class/power_supply/battery/voltage_now")
	return batteryVoltageMV(float64(v)), err
}

func batterySysfsInt(b []byte, src string) (int64, error) {
	t := strings.TrimSpace(string(devtext.Normalize(b)))
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		return 0, &devtext.ParseError{Source: src, Line: 1, Text: t, Reason: "want one integer"}
	}
	return v, nil
}
