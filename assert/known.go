package assert

import (
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
}{
	"frames": {"frames", true, true, true}, "fps": {"fps", false, true, true},
	"jank": {"frames", true, false, true}, "jank_deadline_missed": {"frames", true, false, true},
	"jank_perfdog": {"frames", true, false, true}, "big_jank_perfdog": {"frames", true, false, true},
	"stutter_perfdog": {"%", false, false, true}, "jank_chromium": {"frames", true, false, true},
	"max_frame_delay": {"periods", true, false, true},
	"frame_time_p50":  {"ms", false, false, true}, "frame_time_p90": {"ms", false, false, true},
	"frame_time_p95": {"ms", false, false, true}, "frame_time_p99": {"ms", false, false, true},
	"slow_frames": {"frames", true, false, true}, "frozen_frames": {"frames", true, false, true},
	"cpu": {"%", false, false, false}, "cpu_p90": {"%", false, false, false}, "cpu_max": {"%", false, false, false},
	"cpu_core": {"%", false, false, false}, "cpu_device": {"%", false, false, false},
	"pss_max": {"KiB", false, false, false}, "pss_growth": {"KiB/min", false, false, false}, "rss_max": {"KiB", false, false, false},
	"rx": {"B", false, false, false}, "tx": {"B", false, false, false},
	"battery_temp_max": {"°C", false, false, false},
	"startup_initial":  {"ms", false, false, false}, "startup_full": {"ms", false, false, false},
	"crashes": {"crashes", true, false, false},
}

// KnownMetric reports whether name is a metric budgets and gates can name.
func KnownMetric(name string) bool { _, ok := known[name]; return ok }

func knownNames() string {
	var n []string
	for k := range known {
		n = append(n, k)
	}
	slices.Sort(n)
	return strings.Join(n, ", ")
}
