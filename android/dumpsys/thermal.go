package dumpsys

import (
	"github.com/perfgate/perfgate/android/devtext"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ThermalZonesCommand prints every thermal zone's type and temperature in one
// round trip: grep prefixes each value with its file name, and zones whose
// temp cannot be read (permission, sensor off) simply lack that line.
const ThermalZonesCommand = "grep . /sys/class/thermal/thermal_zone*/type /sys/class/thermal/thermal_zone*/temp"

// ThermalZone is one /sys/class/thermal/thermal_zoneN.
type ThermalZone struct {
	ID       int     // N
	Type     string  // "cpu-0-0-usr", "battery", "skin-therm", ...
	Celsius  float64 // valid when HasTemp
	HasTemp  bool
	RawValue int64 // temp as printed
}

// ThermalZonesSource names the sysfs thermal zones in errors.
const ThermalZonesSource = "/sys/class/thermal/thermal_zone*"

// ParseThermalZones parses the output of ThermalZonesCommand
// ("/sys/class/thermal/thermal_zone3/temp:45000"), zones sorted by N.
//
// temp is millidegrees Celsius by kernel ABI; a few old drivers print whole
// degrees, so a magnitude of 200 or less is read as °C (no phone sensor
// reports 0.2 °C in millidegrees, nor 200 °C in degrees).
func ParseThermalZones(b []byte) ([]ThermalZone, error) {
	zones := map[int]*ThermalZone{}
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		if t == "" {
			continue
		}
		bad := func(reason string) ([]ThermalZone, error) {
			return nil, &devtext.ParseError{Source: ThermalZonesSource, Line: i + 1, Text: ln, Reason: reason}
		}
		j := strings.Index(t, "thermal_zone")
		if j < 0 {
			return bad("no thermal_zoneN path")
		}
		rest := t[j+len("thermal_zone"):]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			return bad("no /type or /temp")
		}
		id, err := strconv.Atoi(rest[:slash])
		if err != nil {
			return bad("bad zone number")
		}
		file, val, ok := strings.Cut(rest[slash+1:], ":")
		if !ok {
			return bad("no ':' after the file name")
		}
		z := zones[id]
		if z == nil {
			z = &ThermalZone{ID: id}
			zones[id] = z
		}
		switch file {
		case "type":
			z.Type = val
		case "temp":
			v, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if err != nil {
				return bad("bad temp")
			}
			z.RawValue, z.HasTemp = v, true
			z.Celsius = thermalCelsius(v)
		default:
			return bad("want type or temp")
		}
	}
	if len(zones) == 0 {
		return nil, &devtext.ParseError{Source: ThermalZonesSource, Reason: "no zones"}
	}
	out := make([]ThermalZone, 0, len(zones))
	for _, z := range zones {
		out = append(out, *z)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func thermalCelsius(v int64) float64 {
	if math.Abs(float64(v)) <= 200 {
		return float64(v)
	}
	return float64(v) / 1000
}

// ThermalTemperature is one Temperature{...} record of `dumpsys thermalservice`.
type ThermalTemperature struct {
	Name    string
	Type    int // android.os.Temperature TYPE_*: 0 metrics.CPU, 1 GPU, 2 battery, 3 skin, ...
	Celsius float64
	Status  int // THROTTLING_* 0 none … 6 shutdown
}

// ThermalService is `dumpsys thermalservice`.
type ThermalService struct {
	Status int // "Thermal Status:", the device-wide throttling level
	// Temperatures holds "Current temperatures from HAL:" when printed, else
	// "Cached temperatures:".
	Temperatures []ThermalTemperature
}

// ThermalServiceSource names `dumpsys thermalservice` in errors.
const ThermalServiceSource = "dumpsys thermalservice"

// ParseThermalService parses `dumpsys thermalservice` (Android 10+), whose
// records read "Temperature{mValue=38.1, mType=0, mName=AP, mStatus=0}".
func ParseThermalService(b []byte) (ThermalService, error) {
	var (
		ts                 ThermalService
		cached, hal        []ThermalTemperature
		section            string
		sawStatus, sawTemp bool
	)
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		switch {
		case strings.HasPrefix(t, "Thermal Status:"):
			v, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(t, "Thermal Status:")))
			if err != nil {
				return ThermalService{}, &devtext.ParseError{Source: ThermalServiceSource, Line: i + 1, Text: ln, Reason: "bad status"}
			}
			ts.Status, sawStatus = v, true
		case strings.HasPrefix(t, "Temperature{") && strings.HasSuffix(t, "}"):
			body := strings.TrimSuffix(strings.TrimPrefix(t, "Temperature{"), "}")
			var rec ThermalTemperature
			var err error
			for _, kv := range strings.Split(body, ", ") {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "mValue":
					rec.Celsius, err = strconv.ParseFloat(v, 64)
				case "mType":
					rec.Type, err = strconv.Atoi(v)
				case "mName":
					rec.Name = v
				case "mStatus":
					rec.Status, err = strconv.Atoi(v)
				}
				if err != nil {
					return ThermalService{}, &devtext.ParseError{Source: ThermalServiceSource, Line: i + 1, Text: ln, Reason: "bad " + k}
				}
			}
			sawTemp = true
			switch section {
			case "Cached temperatures:":
				cached = append(cached, rec)
			case "Current temperatures from HAL:":
				hal = append(hal, rec)
			}
		case strings.HasSuffix(t, ":") && !strings.HasPrefix(ln, " ") && !strings.HasPrefix(ln, "\t"):
			section = t
		}
	}
	if !sawStatus && !sawTemp {
		return ThermalService{}, &devtext.ParseError{Source: ThermalServiceSource, Reason: "no Thermal Status or Temperature lines"}
	}
	ts.Temperatures = hal
	if len(hal) == 0 {
		ts.Temperatures = cached
	}
	return ts, nil
}
