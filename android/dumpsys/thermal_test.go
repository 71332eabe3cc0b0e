package dumpsys

import (
	"errors"
	"github.com/perfgate/perfgate/android/devtext"
	"reflect"
	"testing"
)

// The corpus holds no thermal capture; these follow the sysfs layout that
// ThermalZonesCommand prints and the record format of AOSP's
// ThermalManagerService dump, with values chosen by hand.
const thermalZonesSample = `/sys/class/thermal/thermal_zone0/type:aoss0-usr
/sys/class/thermal/thermal_zone1/type:cpu-0-0-usr
/sys/class/thermal/thermal_zone10/type:battery
/sys/class/thermal/thermal_zone11/type:gpu-usr
/sys/class/thermal/thermal_zone0/temp:34500
/sys/class/thermal/thermal_zone1/temp:41200
/sys/class/thermal/thermal_zone10/temp:31
`

const thermalServiceSample = "IsStatusOverride: false\nThermalEventListeners:\n\tcallbacks: 2\n\tkilled: false\n\tbroadcasts count: -1\n" +
	"Thermal Status: 1\nCached temperatures:\n\tTemperature{mValue=38.1, mType=0, mName=AP, mStatus=0}\n" +
	"\tTemperature{mValue=32.2, mType=2, mName=BAT, mStatus=0}\nHAL Ready: true\nHAL connection:\n\tThermalHAL AIDL 1  connected: yes\n" +
	"Current temperatures from HAL:\n\tTemperature{mValue=44.8, mType=0, mName=AP, mStatus=0}\n" +
	"\tTemperature{mValue=32.3, mType=2, mName=BAT, mStatus=0}\n\tTemperature{mValue=38.0, mType=3, mName=SKIN, mStatus=1}\n" +
	"Current cooling devices from HAL:\n\tCoolingDevice{mValue=0, mType=2, mName=cpu0}\n"

func TestParseThermalZones(t *testing.T) {
	got, err := ParseThermalZones([]byte(thermalZonesSample))
	if err != nil {
		t.Fatal(err)
	}
	want := []ThermalZone{
		{ID: 0, Type: "aoss0-usr", Celsius: 34.5, HasTemp: true, RawValue: 34500},
		{ID: 1, Type: "cpu-0-0-usr", Celsius: 41.2, HasTemp: true, RawValue: 41200},
		{ID: 10, Type: "battery", Celsius: 31, HasTemp: true, RawValue: 31}, // whole degrees (old driver)
		{ID: 11, Type: "gpu-usr"}, // temp unreadable
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	for name, in := range map[string]string{
		"empty":     "",
		"no zone":   "/sys/class/power_supply/temp:1\n",
		"no file":   "/sys/class/thermal/thermal_zone1\n",
		"bad id":    "/sys/class/thermal/thermal_zoneX/temp:1\n",
		"no colon":  "/sys/class/thermal/thermal_zone1/temp 1\n",
		"bad temp":  "/sys/class/thermal/thermal_zone1/temp:hot\n",
		"bad field": "/sys/class/thermal/thermal_zone1/mode:enabled\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParseThermalZones([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func TestParseThermalService(t *testing.T) {
	got, err := ParseThermalService([]byte(thermalServiceSample))
	if err != nil {
		t.Fatal(err)
	}
	want := ThermalService{Status: 1, Temperatures: []ThermalTemperature{
		{Name: "AP", Type: 0, Celsius: 44.8}, {Name: "BAT", Type: 2, Celsius: 32.3}, {Name: "SKIN", Type: 3, Celsius: 38, Status: 1},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// Without the HAL section the cached values are used.
	cachedOnly := "Thermal Status: 0\nCached temperatures:\n\tTemperature{mValue=38.1, mType=0, mName=AP, mStatus=0}\n"
	got, err = ParseThermalService([]byte(cachedOnly))
	if err != nil || len(got.Temperatures) != 1 || got.Temperatures[0].Celsius != 38.1 {
		t.Errorf("cached only: %+v, %v", got, err)
	}
	for name, in := range map[string]string{
		"empty":      "",
		"bad status": "Thermal Status: hot\n",
		"bad value":  "Cached temperatures:\n\tTemperature{mValue=x, mType=0, mName=AP, mStatus=0}\n",
	} {
		var pe *devtext.ParseError
		if _, err := ParseThermalService([]byte(in)); !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want *ParseError", name, err)
		}
	}
}

func FuzzParseThermal(f *testing.F) {
	f.Add([]byte(thermalZonesSample))
	f.Add([]byte(thermalServiceSample))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = ParseThermalZones(b)
		_, _ = ParseThermalService(b)
	})
}
