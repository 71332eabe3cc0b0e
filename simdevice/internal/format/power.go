package format

import (
	"fmt"
	"io"
	"strconv"
)

// Battery is a discharging battery as the kernel and BatteryService
// report it.
type Battery struct {
	Level     int   // percent
	CurrentUA int64 // current_now: negative while discharging, as on Pixels
	VoltageUV int64
	TempDeci  int    // tenths of a degree Celsius
	FullUAh   int64  // charge when full
	Status    string // the kernel's: "Discharging", "Charging"
	Plugged   string // what BatteryService says powers it: "", "usb", "ac"
	// CurrentNow adds Samsung's "current now: <mA>" line to dumpsys
	// battery (frameprobe_samsung_s23 capture), with CurrentUA's sign.
	CurrentNow bool
}

// BatteryFile is the content of /sys/class/power_supply/battery/<name>; ok
// is false for a file the battery folder does not have.
func BatteryFile(name string, b Battery) (s string, ok bool) {
	switch name {
	case "uevent":
		return fmt.Sprintf(`POWER_SUPPLY_NAME=battery
POWER_SUPPLY_TYPE=Battery
POWER_SUPPLY_STATUS=%s
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
`, b.status(), b.VoltageUV, b.CurrentUA, b.CurrentUA, b.chargeCounter(), b.FullUAh, b.Level, b.TempDeci), true
	case "current_now", "current_avg":
		return strconv.FormatInt(b.CurrentUA, 10) + "\n", true
	case "voltage_now":
		return strconv.FormatInt(b.VoltageUV, 10) + "\n", true
	case "capacity":
		return strconv.Itoa(b.Level) + "\n", true
	case "temp":
		return strconv.Itoa(b.TempDeci) + "\n", true
	case "status":
		return b.status() + "\n", true
	}
	return "", false
}

func (b Battery) status() string {
	if b.Status == "" {
		return "Discharging"
	}
	return b.Status
}

// chargeCounter is the charge left, µAh.
func (b Battery) chargeCounter() int64 { return b.FullUAh * int64(b.Level) / 100 }

// statusCode is BatteryManager.BATTERY_STATUS_* of a kernel status.
var statusCode = map[string]int{"Charging": 2, "Discharging": 3}

// WriteBattery writes `dumpsys battery` in AOSP's layout (xiaomi_pad6 API
// 34 capture): voltage in mV, temperature in tenths of a degree.
func WriteBattery(w io.Writer, b Battery) {
	fmt.Fprintf(w, `Current Battery Service state:
  AC powered: %t
  USB powered: %t
  Wireless powered: false
  Dock powered: false
  Max charging current: 0
  Max charging voltage: 0
  Charge counter: %d
  status: %d
  health: 2
  present: true
  level: %d
  scale: 100
  voltage: %d
  temperature: %d
  technology: Li-ion
`, b.Plugged == "ac", b.Plugged == "usb", b.chargeCounter(), statusCode[b.status()], b.Level, b.VoltageUV/1000, b.TempDeci)
	if b.CurrentNow {
		fmt.Fprintf(w, "  current now: %d\n", b.CurrentUA/1000)
	}
}
