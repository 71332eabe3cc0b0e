package procfs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/internal/excerpt"
)

// DeviceFacts are what perfgate knows about a device for a whole session:
// who it is, and the constants its metrics depend on (cores for per-core
// metrics.CPU, clock ticks for /proc times, the refresh rate for jank). adbx reads
// them from the device; a Result carries them as its "device" object; gates
// name the device a baseline was recorded on with them.
type DeviceFacts struct {
	Serial       string `json:"serial"`
	Model        string `json:"model,omitempty"`        // ro.product.model
	Manufacturer string `json:"manufacturer,omitempty"` // ro.product.manufacturer
	API          int    `json:"api,omitempty"`          // ro.build.version.sdk
	Release      string `json:"release,omitempty"`      // ro.build.version.release, e.g. "14"
	ABI          string `json:"abi,omitempty"`          // ro.product.cpu.abi
	// Cores is the number of CPUs; 0 when no source answered. CoresSource
	// names where it came from: "nproc", "/sys/devices/system/cpu/possible"
	// or "/proc/stat" (its cpuN lines, online cores only).
	Cores       int    `json:"cores"`
	CoresSource string `json:"cores_source,omitempty"`
	// ClockTicks is USER_HZ, the unit of /proc/<pid>/stat times.
	ClockTicks int `json:"clock_ticks_per_s"`
	// RefreshHz is the display's refresh rate, the rate apps render at; 0
	// when the device did not say.
	RefreshHz float64 `json:"refresh_hz"`
	// Root says whether the shell runs as uid 0.
	Root bool `json:"root,omitempty"`
}

// Name is the device as people name it: "Google Pixel 7" (manufacturer and
// model). Baselines are recorded under it.
func (d DeviceFacts) Name() string {
	return strings.TrimSpace(d.Manufacturer + " " + d.Model)
}

// String names the device and its Android version: "Google Pixel 7,
// Android 14 (API 34)".
func (d DeviceFacts) String() string {
	return fmt.Sprintf("%s, Android %s (API %d)", d.Name(), d.Release, d.API)
}

// CPUListSource names the kernel's metrics.CPU list files in errors.
const CPUListSource = "/sys/devices/system/cpu/possible"

// ParseCPUList counts the CPUs in a kernel metrics.CPU list such as "0-3,6-7", the
// format of /sys/devices/system/cpu/possible, online and present.
func ParseCPUList(b []byte) (int, error) {
	s := strings.TrimSpace(string(devtext.Normalize(b)))
	bad := func(reason string) (int, error) {
		return 0, &devtext.ParseError{Source: CPUListSource, Line: 1, Text: s, Reason: reason}
	}
	if s == "" {
		return bad("empty")
	}
	n := 0
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return bad(fmt.Sprintf("bad CPU number %s", excerpt.Quote(lo)))
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return bad(fmt.Sprintf("bad range %s", excerpt.Quote(part)))
			}
		}
		if b-a >= 1<<16 {
			return bad(fmt.Sprintf("range %s is too long", excerpt.Quote(part)))
		}
		n += b - a + 1
	}
	return n, nil
}

// ParseBuildProp reads the key=value lines of build.prop files (what
// getprop prints, for shells without getprop). Comments and lines without
// '=' are skipped; when several files are read at once the first that sets
// a key wins, as /system/build.prop is read first.
func ParseBuildProp(b []byte) map[string]string {
	props := map[string]string{}
	for _, line := range strings.Split(string(devtext.Normalize(b)), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		if _, seen := props[k]; !seen {
			props[k] = strings.TrimSpace(v)
		}
	}
	return props
}
