package report

import (
	"regexp"
	"strings"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
)

// Better says which way a metric improves.
type Better int

const (
	// Neither: the metric is context (frame count, duration) and never
	// regresses.
	Neither Better = iota
	// Lower is better: jank, frame time, CPU, memory, traffic.
	Lower
	// Higher is better: FPS.
	Higher
)

// Metric is one number of a step, with its unit and where it came from.
type Metric struct {
	// Name is the metric's name in budgets, comparisons and benchmark
	// output, e.g. "frame_time_p95".
	Name  string
	Value float64
	// Unit is how Value is shown: "ms", "fps", "frames", "%", "KiB", "B".
	Unit string
	// Definition names the metric definition (DESIGN.md) or the device
	// command the value follows.
	Definition string
	Better     Better
	// bench is the benchstat unit and the factor from Value to it.
	benchUnit  string
	benchScale float64
}

// StepMetrics lists every metric of a step that its Result holds, in a
// fixed order: frames, CPU, memory, traffic, health. Metrics a collector did
// not produce (no frames, no traffic source) are left out rather than shown
// as zero.
func StepMetrics(st *perftest.Step) []Metric {
	var out []Metric
	add := func(m Metric) { out = append(out, m) }
	fs := st.FrameStats
	if fs.Frames > 0 {
		src := fs.Source
		add(Metric{Name: "frames", Value: float64(fs.Frames), Unit: "frames", Definition: src, benchUnit: "frames", benchScale: 1})
		add(Metric{Name: "fps", Value: fs.FPS, Unit: "fps", Definition: "(n−1)/(t[n−1]−t[0]), " + src, Better: Higher, benchUnit: "fps", benchScale: 1})
		add(Metric{Name: "jank", Value: float64(fs.Jank), Unit: "frames", Definition: jankName(fs.JankDefinition), Better: Lower, benchUnit: "jank", benchScale: 1})
		if fs.DeadlineMissed != nil {
			add(Metric{Name: "jank_deadline_missed", Value: float64(*fs.DeadlineMissed), Unit: "frames", Definition: "deadline missed", Better: Lower, benchUnit: "deadline-missed", benchScale: 1})
		}
		add(Metric{Name: "jank_perfdog", Value: float64(fs.PerfDog.Jank), Unit: "frames", Definition: "PerfDog Jank", Better: Lower, benchUnit: "perfdog-jank", benchScale: 1})
		add(Metric{Name: "big_jank_perfdog", Value: float64(fs.PerfDog.BigJank), Unit: "frames", Definition: "PerfDog BigJank", Better: Lower, benchUnit: "perfdog-bigjank", benchScale: 1})
		add(Metric{Name: "stutter_perfdog", Value: fs.PerfDog.Stutter * 100, Unit: "%", Definition: "PerfDog stutter", Better: Lower, benchUnit: "perfdog-stutter-%", benchScale: 1})
		add(Metric{Name: "jank_chromium", Value: float64(fs.Chromium.JankCount), Unit: "frames", Definition: "Chromium jank_count", Better: Lower, benchUnit: "chromium-jank", benchScale: 1})
		add(Metric{Name: "max_frame_delay", Value: float64(fs.Chromium.MaxFrameDelay), Unit: "periods", Definition: "Chromium max_frame_delay", Better: Lower, benchUnit: "max-frame-delay-periods", benchScale: 1})
		ft := "frame time, nearest rank"
		if fs.Source == "gfxinfo" {
			ft = "frame duration, nearest rank"
		}
		for _, p := range []struct {
			name string
			v    float64
		}{{"50", fs.FrameTimeMS.P50}, {"90", fs.FrameTimeMS.P90}, {"95", fs.FrameTimeMS.P95}, {"99", fs.FrameTimeMS.P99}} {
			add(Metric{Name: "frame_time_p" + p.name, Value: p.v, Unit: "ms", Definition: ft, Better: Lower, benchUnit: "p" + p.name + "-frame-ns", benchScale: 1e6})
		}
		if fs.Vitals != nil {
			add(Metric{Name: "slow_frames", Value: float64(fs.Vitals.Slow), Unit: "frames", Definition: "Android vitals slow (>16 ms)", Better: Lower, benchUnit: "slow-frames", benchScale: 1})
			add(Metric{Name: "frozen_frames", Value: float64(fs.Vitals.Frozen), Unit: "frames", Definition: "Android vitals frozen (>700 ms)", Better: Lower, benchUnit: "frozen-frames", benchScale: 1})
		}
	}
	if c := st.CPUStats; c.Intervals > 0 {
		src := c.Source
		add(Metric{Name: "cpu", Value: c.Mean, Unit: "%", Definition: "app share of device, " + src, Better: Lower, benchUnit: "app-cpu-%", benchScale: 1})
		add(Metric{Name: "cpu_max", Value: c.Max, Unit: "%", Definition: "app share of device, highest tick, " + src, Better: Lower, benchUnit: "app-cpu-max-%", benchScale: 1})
		add(Metric{Name: "cpu_core", Value: c.MeanPerCore, Unit: "%", Definition: "app, top-style per core, " + src, Better: Lower, benchUnit: "app-core-cpu-%", benchScale: 1})
		add(Metric{Name: "cpu_device", Value: c.DeviceMean, Unit: "%", Definition: "device busy, " + src, Better: Lower, benchUnit: "device-cpu-%", benchScale: 1})
	}
	if m := st.MemoryStats; m.PSSSamples > 0 || m.RSSSamples > 0 {
		if m.PSSSamples > 0 {
			add(Metric{Name: "pss_max", Value: float64(m.PSSMaxKB), Unit: "KiB", Definition: "dumpsys meminfo TOTAL PSS", Better: Lower, benchUnit: "pss-max-B", benchScale: 1024})
			add(Metric{Name: "pss_growth", Value: m.PSSGrowthKBPerMin, Unit: "KiB/min", Definition: "least-squares slope of PSS", Better: Lower, benchUnit: "pss-growth-B/min", benchScale: 1024})
		}
		if m.RSSSamples > 0 {
			add(Metric{Name: "rss_max", Value: float64(m.RSSMaxKB), Unit: "KiB", Definition: "/proc/<pid>/status VmRSS", Better: Lower, benchUnit: "rss-max-B", benchScale: 1024})
		}
	}
	if tr := st.TrafficStats; tr != nil {
		def := tr.Source + ", scope " + tr.Scope
		add(Metric{Name: "rx", Value: float64(tr.RxBytes), Unit: "B", Definition: def, Better: Lower, benchUnit: "rx-B", benchScale: 1})
		add(Metric{Name: "tx", Value: float64(tr.TxBytes), Unit: "B", Definition: def, Better: Lower, benchUnit: "tx-B", benchScale: 1})
	}
	if b := st.BatteryStats; b != nil {
		add(Metric{Name: "battery_temp_max", Value: b.MaxTemperatureC, Unit: "°C", Definition: b.Source, Better: Lower, benchUnit: "battery-max-C", benchScale: 1})
	}
	add(Metric{Name: "crashes", Value: float64(len(st.Crashes)), Unit: "crashes", Definition: "app process gone or replaced", Better: Lower, benchUnit: "crashes", benchScale: 1})
	return out
}

// jankName turns a FrameSummary.JankDefinition into the words a reader
// knows.
func jankName(def string) string {
	switch def {
	case metrics.JankDefinitionDeadlineMissed:
		return "deadline missed"
	case metrics.JankDefinitionPerfDog:
		return "PerfDog Jank"
	}
	return def
}

// find returns the named metric of ms.
func find(ms []Metric, name string) (Metric, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// iterationSuffix is what perftest appends to a step name used again
// ("scroll#2"); a step run N times is N iterations of one step.
var iterationSuffix = regexp.MustCompile(`#[0-9]+$`)

// baseStepName strips an iteration suffix.
func baseStepName(name string) string {
	return iterationSuffix.ReplaceAllString(name, "")
}

// benchName turns a free-form name into a benchmark name token: no spaces,
// and no "/" or "=" that would split it into more sub-names.
func benchName(s string) string {
	if s == "" {
		return "unnamed"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '\t' || r == '\n' || r == '/' || r == '=':
			return '_'
		}
		return r
	}, s)
}
