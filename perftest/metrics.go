package perftest

import (
	"fmt"
	"strconv"

	"github.com/perfgate/perfgate/metrics"
)

// Metrics lists every metric of the step that its Result holds, in a
// fixed order: frames, CPU, memory, traffic, health. A metric nobody
// measured (a source unreadable, the app not running, too few samples) is
// left out rather than shown as zero; Absent says why.
func (st *Step) Metrics() []metrics.Metric {
	var out []metrics.Metric
	for _, e := range st.catalogue() {
		if e.why == "" {
			out = append(out, e.Metric)
		}
	}
	return out
}

// AbsentMetric is a metric of the catalogue the step has no value for.
type AbsentMetric struct {
	Name string
	Unit string
	// Reason says why, naming the source: "traffic: /proc/<pid>/net/dev
	// unreadable on every read in the step (…)".
	Reason string
}

// Absent lists, in the order of Metrics, every metric of the catalogue the
// step has no value for, with the reason (Step.NotMeasured, or what the
// step's figures themselves show: no frames, one meminfo read, no launch).
// "Unmeasured is never zero": each of these is missing from Metrics, and
// gates and reports say "not measured" with the reason.
func (st *Step) Absent() []AbsentMetric {
	var out []AbsentMetric
	for _, e := range st.catalogue() {
		if e.why != "" {
			out = append(out, AbsentMetric{Name: e.Name, Unit: e.Unit, Reason: e.why})
		}
	}
	return out
}

// family groups the metrics one source gives, so a source that could not
// be read takes all of them out at once.
type family int

const (
	famFrames family = iota
	famAppCPU
	famDeviceCPU
	famCPUTicks // absent only when both app and device CPU are
	famPSS
	famRSS
	famTraffic
	famBattery
	famStartup
	famCrashes
)

// entry is one metric of a step's catalogue and why the step has no value
// for it ("" when it has one).
type entry struct {
	metrics.Metric
	fam family
	why string
}

// catalogue is every metric a step can have, each with its value or the
// reason it has none: Step.NotMeasured first (what the collector knew),
// then what the figures show.
func (st *Step) catalogue() []entry {
	var out []entry
	add := func(f family, why string, m metrics.Metric) {
		if r := st.NotMeasured[m.Name]; r != "" {
			why = r
		}
		out = append(out, entry{m, f, why})
	}
	fs := st.FrameStats
	src := fs.Source
	// A frame source read with no frame in the step measured 0 frames;
	// every other frame figure needs frames to exist.
	var noSource, none, fewer, durations string
	if src == "" && fs.Frames == 0 {
		noSource = "frames: no frame source"
	}
	switch {
	case noSource != "":
		none, fewer, durations = noSource, noSource, noSource
	case fs.Frames == 0:
		none = "frames: no frame in the step"
		fewer, durations = none, none
	case fs.Frames == 1:
		fewer = "frames: needs two frames (intervals between frames); the step had 1"
	}
	if durations == "" {
		durations = "frames: needs frame durations (gfxinfo); the frames came from " + src
	}
	add(famFrames, noSource, metrics.Metric{Name: "frames", Value: float64(fs.Frames), Unit: "frames", Definition: src, BenchUnit: "frames", BenchScale: 1})
	add(famFrames, fewer, metrics.Metric{Name: "fps", Value: fs.FPS, Unit: "fps", Definition: "(n−1)/(t[n−1]−t[0]), " + src, Better: metrics.Higher, BenchUnit: "fps", BenchScale: 1})
	add(famFrames, none, metrics.Metric{Name: "jank", Value: float64(fs.Jank), Unit: "frames", Definition: jankName(fs.JankDefinition), Better: metrics.Lower, BenchUnit: "jank", BenchScale: 1})
	dm, whyDM := 0, durations
	if fs.DeadlineMissed != nil {
		dm, whyDM = *fs.DeadlineMissed, none
	}
	add(famFrames, whyDM, metrics.Metric{Name: "jank_deadline_missed", Value: float64(dm), Unit: "frames", Definition: "deadline missed", Better: metrics.Lower, BenchUnit: "deadline-missed", BenchScale: 1})
	add(famFrames, none, metrics.Metric{Name: "jank_perfdog", Value: float64(fs.PerfDog.Jank), Unit: "frames", Definition: "PerfDog Jank", Better: metrics.Lower, BenchUnit: "perfdog-jank", BenchScale: 1})
	add(famFrames, none, metrics.Metric{Name: "big_jank_perfdog", Value: float64(fs.PerfDog.BigJank), Unit: "frames", Definition: "PerfDog BigJank", Better: metrics.Lower, BenchUnit: "perfdog-bigjank", BenchScale: 1})
	add(famFrames, fewer, metrics.Metric{Name: "stutter_perfdog", Value: fs.PerfDog.Stutter * 100, Unit: "%", Definition: "PerfDog stutter", Better: metrics.Lower, BenchUnit: "perfdog-stutter-%", BenchScale: 1})
	add(famFrames, fewer, metrics.Metric{Name: "jank_chromium", Value: float64(fs.Chromium.JankCount), Unit: "frames", Definition: "Chromium jank_count", Better: metrics.Lower, BenchUnit: "chromium-jank", BenchScale: 1})
	add(famFrames, fewer, metrics.Metric{Name: "max_frame_delay", Value: float64(fs.Chromium.MaxFrameDelay), Unit: "periods", Definition: "Chromium max_frame_delay", Better: metrics.Lower, BenchUnit: "max-frame-delay-periods", BenchScale: 1})
	// Frame durations exist for one frame; SurfaceFlinger frame times are
	// differences of present times, so they need two.
	ft, whyFT := "frame time, nearest rank", fewer
	if src == metrics.FrameSourceGfxInfo {
		ft, whyFT = "frame duration, nearest rank", none
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"50", fs.FrameTimeMS.P50}, {"90", fs.FrameTimeMS.P90}, {"95", fs.FrameTimeMS.P95}, {"99", fs.FrameTimeMS.P99}} {
		add(famFrames, whyFT, metrics.Metric{Name: "frame_time_p" + p.name, Value: p.v, Unit: "ms", Definition: ft, Better: metrics.Lower, BenchUnit: "p" + p.name + "-frame-ns", BenchScale: 1e6})
	}
	var vit metrics.FrameVitals
	whyVit := durations
	if fs.Vitals != nil {
		vit, whyVit = *fs.Vitals, none
	}
	add(famFrames, whyVit, metrics.Metric{Name: "slow_frames", Value: float64(vit.Slow), Unit: "frames", Definition: "Android vitals slow (>16 ms)", Better: metrics.Lower, BenchUnit: "slow-frames", BenchScale: 1})
	add(famFrames, whyVit, metrics.Metric{Name: "frozen_frames", Value: float64(vit.Frozen), Unit: "frames", Definition: "Android vitals frozen (>700 ms)", Better: metrics.Lower, BenchUnit: "frozen-frames", BenchScale: 1})

	c := st.CPUStats
	whyCPU := ""
	if c.Intervals == 0 {
		whyCPU = "cpu: no tick interval in the step"
	}
	add(famCPUTicks, whyCPU, metrics.Metric{Name: "cpu_intervals", Value: float64(c.Intervals), Unit: "intervals", Definition: "tick intervals the CPU figures span, " + c.Source})
	add(famAppCPU, whyCPU, metrics.Metric{Name: "cpu", Value: c.Mean, Unit: "%", Definition: "app share of device, " + c.Source, Better: metrics.Lower, BenchUnit: "app-cpu-%", BenchScale: 1})
	add(famAppCPU, whyCPU, metrics.Metric{Name: "cpu_p90", Value: c.P90, Unit: "%", Definition: "app share of device, nearest-rank p90 of ticks, " + c.Source, Better: metrics.Lower, BenchUnit: "app-cpu-p90-%", BenchScale: 1})
	add(famAppCPU, whyCPU, metrics.Metric{Name: "cpu_max", Value: c.Max, Unit: "%", Definition: "app share of device, highest tick, " + c.Source, Better: metrics.Lower, BenchUnit: "app-cpu-max-%", BenchScale: 1})
	add(famAppCPU, whyCPU, metrics.Metric{Name: "cpu_core", Value: c.MeanPerCore, Unit: "%", Definition: "app, top-style per core, " + c.Source, Better: metrics.Lower, BenchUnit: "app-core-cpu-%", BenchScale: 1})
	add(famDeviceCPU, whyCPU, metrics.Metric{Name: "cpu_device", Value: c.DeviceMean, Unit: "%", Definition: "device busy, " + c.Source, Better: metrics.Lower, BenchUnit: "device-cpu-%", BenchScale: 1})

	m := st.MemoryStats
	whyPSS, whyGrowth, whyRSS := "", "", ""
	switch m.PSSSamples {
	case 0:
		whyPSS = "memory: no dumpsys meminfo read in the step"
		whyGrowth = whyPSS
	case 1:
		whyGrowth = "memory: growth needs two dumpsys meminfo reads in the step; it had 1"
	}
	if m.RSSSamples == 0 {
		whyRSS = "memory: no /proc/<pid>/status read in the step"
	}
	add(famPSS, whyPSS, metrics.Metric{Name: "pss_max", Value: float64(m.PSSMaxKB), Unit: "KiB", Definition: "dumpsys meminfo TOTAL PSS", Better: metrics.Lower, BenchUnit: "pss-max-B", BenchScale: 1024})
	add(famPSS, whyGrowth, metrics.Metric{Name: "pss_growth", Value: m.PSSGrowthKBPerMin, Unit: "KiB/min", Definition: "least-squares slope of PSS", Better: metrics.Lower, BenchUnit: "pss-growth-B/min", BenchScale: 1024})
	add(famRSS, whyRSS, metrics.Metric{Name: "rss_max", Value: float64(m.RSSMaxKB), Unit: "KiB", Definition: "/proc/<pid>/status VmRSS", Better: metrics.Lower, BenchUnit: "rss-max-B", BenchScale: 1024})

	var tr TrafficStats
	whyTr := "traffic: not collected"
	if st.TrafficStats != nil {
		tr, whyTr = *st.TrafficStats, ""
	}
	def := tr.Source + ", scope " + tr.Scope
	add(famTraffic, whyTr, metrics.Metric{Name: "rx", Value: float64(tr.RxBytes), Unit: "B", Definition: def, Better: metrics.Lower, BenchUnit: "rx-B", BenchScale: 1})
	add(famTraffic, whyTr, metrics.Metric{Name: "tx", Value: float64(tr.TxBytes), Unit: "B", Definition: def, Better: metrics.Lower, BenchUnit: "tx-B", BenchScale: 1})

	var b BatteryStats
	whyB := "battery: not read"
	if st.BatteryStats != nil {
		b, whyB = *st.BatteryStats, ""
	}
	add(famBattery, whyB, metrics.Metric{Name: "battery_temp_max", Value: b.MaxTemperatureC, Unit: "°C", Definition: b.Source, Better: metrics.Lower, BenchUnit: "battery-max-C", BenchScale: 1})

	var su StartupStats
	whySU, whyFull := "startup: the step launched nothing", ""
	if st.Startup != nil && len(st.Startup.Iterations) > 0 {
		su, whySU = *st.Startup, ""
	}
	whyFull = whySU
	if whyFull == "" && su.FullDisplayMs <= 0 {
		drawn := 0
		for _, it := range su.Iterations {
			if it.FullyDrawnMs > 0 {
				drawn++
			}
		}
		whyFull = fmt.Sprintf("startup: time to full display needs every launch to log \"Fully drawn\" (the app calls reportFullyDrawn); %d of %d did", drawn, len(su.Iterations))
	}
	sdef := su.Kind + " start, " + su.Source + ", median of " + strconv.Itoa(len(su.Iterations))
	add(famStartup, whySU, metrics.Metric{Name: "startup_initial", Value: su.InitialDisplayMs, Unit: "ms", Definition: "time to initial display, " + sdef, Better: metrics.Lower, BenchUnit: "startup-initial-ns", BenchScale: 1e6})
	add(famStartup, whyFull, metrics.Metric{Name: "startup_full", Value: su.FullDisplayMs, Unit: "ms", Definition: "time to full display (Fully drawn), " + sdef, Better: metrics.Lower, BenchUnit: "startup-full-ns", BenchScale: 1e6})

	add(famCrashes, "", metrics.Metric{Name: "crashes", Value: float64(len(st.Crashes)), Unit: "crashes", Definition: "app process crashed (Java, native or ANR, by its logcat)", Better: metrics.Lower, BenchUnit: "crashes", BenchScale: 1})
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
