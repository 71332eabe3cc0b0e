package assert

import (
	"maps"
	"slices"
	"strings"
)

// known lists every metric a budget can name, with its unit and whether it
// is a count (headroom +1 rather than a percentage). The names are those of
// (*perftest.Step).Metrics; a test in perftest keeps the two in step.
var known = map[string]struct {
	unit   string
	count  bool
	min    bool // a floor (higher is better)
	frames bool // derived from frames
	cpu    bool // derived from CPU ticks
}{
	"frames": {"frames", true, true, true, false}, "fps": {"fps", false, true, true, false},
	"jank": {"frames", true, false, true, false}, "jank_deadline_missed": {"frames", true, false, true, false},
	"jank_perfdog": {"frames", true, false, true, false}, "big_jank_perfdog": {"frames", true, false, true, false},
	"stutter_perfdog": {"%", false, false, true, false}, "jank_chromium": {"frames", true, false, true, false},
	"max_frame_delay": {"periods", true, false, true, false},
	"frame_time_p50":  {"ms", false, false, true, false}, "frame_time_p90": {"ms", false, false, true, false},
	"frame_time_p95": {"ms", false, false, true, false}, "frame_time_p99": {"ms", false, false, true, false},
	"slow_frames": {"frames", true, false, true, false}, "frozen_frames": {"frames", true, false, true, false},
	"cpu_intervals": {"intervals", true, true, false, true},
	"cpu":           {"%", false, false, false, true}, "cpu_p90": {"%", false, false, false, true}, "cpu_max": {"%", false, false, false, true},
	"cpu_core": {"%", false, false, false, true}, "cpu_device": {"%", false, false, false, true},
	"pss_max": {"KiB", false, false, false, false}, "pss_growth": {"KiB/min", false, false, false, false}, "rss_max": {"KiB", false, false, false, false},
	"rx": {"B", false, false, false, false}, "tx": {"B", false, false, false, false},
	"battery_temp_max": {"°C", false, false, false, false},
	"startup_initial":  {"ms", false, false, false, false}, "startup_full": {"ms", false, false, false, false},
	"crashes": {"crashes", true, false, false, false},
}

// KnownMetric reports whether name is a metric budgets and gates can name.
func KnownMetric(name string) bool { _, ok := known[name]; return ok }

func knownNames() string { return strings.Join(slices.Sorted(maps.Keys(known)), ", ") }
