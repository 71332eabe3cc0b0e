package assert

import (
	"slices"
	"strings"
)

// known lists every metric a budget can name, with its unit and whether it
// is a count (headroom +1 rather than a percentage). The names are those of
// (*perftest.Step).Metrics; a test in perftest keeps the two in step.
var known = map[string]struct {
	unit  string
	count bool
	min   bool // a floor (higher is better)
}{
	"frames": {"frames", true, true}, "fps": {"fps", false, true},
	"jank": {"frames", true, false}, "jank_deadline_missed": {"frames", true, false},
	"jank_perfdog": {"frames", true, false}, "big_jank_perfdog": {"frames", true, false},
	"stutter_perfdog": {"%", false, false}, "jank_chromium": {"frames", true, false},
	"max_frame_delay": {"periods", true, false},
	"frame_time_p50":  {"ms", false, false}, "frame_time_p90": {"ms", false, false},
	"frame_time_p95": {"ms", false, false}, "frame_time_p99": {"ms", false, false},
	"slow_frames": {"frames", true, false}, "frozen_frames": {"frames", true, false},
	"cpu": {"%", false, false}, "cpu_p90": {"%", false, false}, "cpu_max": {"%", false, false},
	"cpu_core": {"%", false, false}, "cpu_device": {"%", false, false},
	"pss_max": {"KiB", false, false}, "pss_growth": {"KiB/min", false, false}, "rss_max": {"KiB", false, false},
	"rx": {"B", false, false}, "tx": {"B", false, false},
	"battery_temp_max": {"°C", false, false},
	"startup_initial":  {"ms", false, false}, "startup_full": {"ms", false, false},
	"crashes": {"crashes", true, false},
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
