package dumpsys

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/fixtures"
)

func batteryNear(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func batteryEqual(a, b BatteryState) bool {
	return batteryNear(a.LevelPct, b.LevelPct) && a.Level == b.Level && a.Scale == b.Scale &&
		a.Status == b.Status && a.Plugged == b.Plugged && a.Health == b.Health && a.Technology == b.Technology &&
		a.Present == b.Present && batteryNear(a.VoltageMV, b.VoltageMV) && a.HasVoltage == b.HasVoltage &&
		batteryNear(a.TemperatureC, b.TemperatureC) && a.HasTemp == b.HasTemp &&
		batteryNear(a.CurrentMA, b.CurrentMA) && a.HasCurrent == b.HasCurrent
}

// Values read by hand; temperatures are the printed tenths of a degree / 10.
func TestParseBatteryDumpsysFixtures(t *testing.T) {
	tests := []struct {
		file string
		want BatteryState
	}{
		{"battery/frameprobe_pixel11pro_sysfs_current_voltage_plus_dumpsys_battery.txt", BatteryState{
			LevelPct: 100, Level: 100, Scale: 100, Status: "not charging", Plugged: "ac", Health: "good", Technology: "Li-ion",
			Present: true, VoltageMV: 4446, HasVoltage: true, TemperatureC: 35.8, HasTemp: true}},
		{"battery/frameprobe_samsung_s23_api34_dumpsys_battery.txt", BatteryState{
			LevelPct: 44, Level: 44, Scale: 100, Status: "charging", Plugged: "usb", Health: "good", Technology: "Li-ion",
			Present: true, VoltageMV: 3908, HasVoltage: true, TemperatureC: 42.2, HasTemp: true, CurrentMA: 559, HasCurrent: true}},
		{"battery/xiaomi_pad6_api34_dumpsys_battery.txt", BatteryState{
			LevelPct: 22, Level: 22, Scale: 100, Status: "charging", Plugged: "ac", Health: "good", Technology: "Li-poly",
			Present: true, VoltageMV: 3826, HasVoltage: true, TemperatureC: 33.7, HasTemp: true}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			got, err := ParseBattery(fixtures.Read(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if !batteryEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseBatterySysfsPixel(t *testing.T) {
	// The capture's "#sysfs" part holds current_now then voltage_now.
	b := fixtures.Read(t, "battery/frameprobe_pixel11pro_sysfs_current_voltage_plus_dumpsys_battery.txt")
	lines := bytes.Split(devtext.Normalize(b), []byte("\n"))
	if string(lines[0]) != "#sysfs" {
		t.Fatalf("unexpected capture layout: %q", lines[0])
	}
	cur, err := ParseBatteryCurrentNow(lines[1])
	if err != nil || !batteryNear(cur, -11.718) {
		t.Errorf("current = %v mA, %v; want -11.718", cur, err)
	}
	volt, err := ParseBatteryVoltageNow(lines[2])
	if err != nil || !batteryNear(volt, 4446.015) {
		t.Errorf("voltage = %v mV, %v; want 4446.015", volt, err)
	}
	if _, err := ParseBatteryCurrentNow([]byte("n/a")); err == nil {
		t.Error("bad current: no error")
	}
	// A driver that prints mV in voltage_now.
	if v, err := ParseBatteryVoltageNow([]byte("3964\n")); err != nil || v != 3964 {
		t.Errorf("mV voltage_now = %v, %v", v, err)
	}
}

func TestParseBatteryUevent(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want BatteryState
	}{
		{"MTK keys (capture)", fixtures.Read(t, "battery/mtk_battery_uevent_from_perl_comment.txt"), BatteryState{
			LevelPct: 64, Level: 64, Scale: 100, Status: "not charging", Health: "good", Technology: "Li-ion", Present: true,
			VoltageMV: 3964, HasVoltage: true, TemperatureC: 27, HasTemp: true}},
		// AOSP keys in kernel ABI units (µV, µA, 0.1 °C); no AOSP capture exists in the corpus.
		{"AOSP keys", []byte("POWER_SUPPLY_NAME=battery\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_HEALTH=Good\nPOWER_SUPPLY_PRESENT=1\n" +
			"POWER_SUPPLY_TECHNOLOGY=Li-ion\nPOWER_SUPPLY_CAPACITY=87\nPOWER_SUPPLY_VOLTAGE_NOW=4123000\nPOWER_SUPPLY_CURRENT_NOW=-350000\nPOWER_SUPPLY_TEMP=305\n"),
			BatteryState{LevelPct: 87, Level: 87, Scale: 100, Status: "discharging", Health: "good", Technology: "Li-ion", Present: true,
				VoltageMV: 4123, HasVoltage: true, CurrentMA: -350, HasCurrent: true, TemperatureC: 30.5, HasTemp: true}},
		// VOLTAGE_NOW wins over BATT_VOL whatever the order.
		{"both voltage keys", []byte("POWER_SUPPLY_CAPACITY=5\nPOWER_SUPPLY_VOLTAGE_NOW=3700000\nPOWER_SUPPLY_BATT_VOL=3650\nPOWER_SUPPLY_BATT_TEMP=250\nPOWER_SUPPLY_TEMP=260\n"),
			BatteryState{LevelPct: 5, Level: 5, Scale: 100, VoltageMV: 3700, HasVoltage: true, TemperatureC: 26, HasTemp: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseBatteryUevent(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !batteryEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	for name, in := range map[string]string{
		"empty":       "",
		"no capacity": "POWER_SUPPLY_STATUS=Full\n",
		"no =":        "POWER_SUPPLY_CAPACITY 5\n",
		"bad number":  "POWER_SUPPLY_CAPACITY=five\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParseBatteryUevent([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func TestParseBatteryDumpsysErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":      "",
		"no level":   "Current Battery Service state:\n  status: 2\n",
		"bad level":  "  level: high\n",
		"zero scale": "  level: 5\n  scale: 0\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParseBattery([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
	// Scale other than 100.
	bs, err := ParseBattery([]byte("  level: 50\n  scale: 200\n  status: 9\n"))
	if err != nil || bs.LevelPct != 25 || bs.Status != "unknown" {
		t.Errorf("got %+v, %v", bs, err)
	}
}

func FuzzParseBattery(f *testing.F) {
	memFuzzAddFixtures(f,
		"battery/frameprobe_samsung_s23_api34_dumpsys_battery.txt", "battery/mtk_battery_uevent_from_perl_comment.txt",
		"battery/xiaomi_pad6_api34_dumpsys_battery.txt")
	f.Fuzz(func(t *testing.T, b []byte) {
		if bs, err := ParseBattery(b); err == nil && (math.IsNaN(bs.LevelPct) || math.IsInf(bs.LevelPct, 0)) {
			t.Fatalf("level %v", bs.LevelPct)
		}
		_, _ = ParseBatteryUevent(b)
		_, _ = ParseBatteryCurrentNow(b)
		_, _ = ParseBatteryVoltageNow(b)
	})
}
