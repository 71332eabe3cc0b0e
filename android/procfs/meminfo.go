package procfs

import (
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/android/devtext"
)

// ProcMeminfo holds the /proc/meminfo fields a report needs, in KiB. Fields
// has every line, keyed by its name ("MemTotal", "Cached", "SwapFree", ...).
type Meminfo struct {
	MemTotalKB, MemFreeKB, MemAvailableKB, BuffersKB, CachedKB, SwapTotalKB, SwapFreeKB int64
	Fields                                                                              map[string]int64
}

// ParseProcMeminfo parses /proc/meminfo ("MemTotal:        3844960 kB").
// Lines without a unit (HugePages_Total) are kept as plain numbers.
func ParseMeminfo(b []byte) (Meminfo, error) {
	const src = "/proc/meminfo"
	pm := Meminfo{Fields: map[string]int64{}}
	for i, ln := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(ln)
		if t == "" {
			continue
		}
		key, val, ok := strings.Cut(t, ":")
		if !ok {
			return Meminfo{}, &devtext.ParseError{Source: src, Line: i + 1, Text: ln, Reason: "no ':'"}
		}
		f := strings.Fields(val)
		if len(f) == 0 || len(f) > 2 || (len(f) == 2 && f[1] != "kB") {
			return Meminfo{}, &devtext.ParseError{Source: src, Line: i + 1, Text: ln, Reason: "want '<number> kB'"}
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return Meminfo{}, &devtext.ParseError{Source: src, Line: i + 1, Text: ln, Reason: "bad number"}
		}
		pm.Fields[key] = v
	}
	if len(pm.Fields) == 0 {
		return Meminfo{}, &devtext.ParseError{Source: src, Reason: "empty"}
	}
	if _, ok := pm.Fields["MemTotal"]; !ok {
		return Meminfo{}, &devtext.ParseError{Source: src, Reason: "no MemTotal line"}
	}
	pm.MemTotalKB = pm.Fields["MemTotal"]
	pm.MemFreeKB = pm.Fields["MemFree"]
	pm.MemAvailableKB = pm.Fields["MemAvailable"]
	pm.BuffersKB = pm.Fields["Buffers"]
	pm.CachedKB = pm.Fields["Cached"]
	pm.SwapTotalKB = pm.Fields["SwapTotal"]
	pm.SwapFreeKB = pm.Fields["SwapFree"]
	return pm, nil
}
