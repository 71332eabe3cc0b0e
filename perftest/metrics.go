package perftest

import (
	"strconv"

	"github.com/perfgate/perfgate/metrics"
)

// Metrics lists every metric of the step that its Result holds, in a
// fixed order: frames, CPU, memory, traffic, health. Metrics a collector did
// not produce (no frames, no traffic source) are left out rather than shown
// as zero.
func (st *Step) Metrics() []metrics.Metric {
	var out []metrics.Metric
	add := func(m metrics.Metric) { out = append(out, m) }
	fs := st.FrameStats
	if fs.Frames > 0 {
		src := fs.Source
		add(metrics.Metric{Name: "frames", Value: float64(fs.Frames), Unit: "frames", Definition: src, BenchUnit: "frames", BenchScale: 1})
		add(metrics.Metric{Name: "fps", Value: fs.FPS, Unit: "fps", Definition: "(n−1)/(t[n−1]−t[0]), " + src, Better: metrics.Higher, BenchUnit: "fps", BenchScale: 1})
		add(metrics.Metric{Name: "jank", Value: float64(fs.Jank), Unit: "frames", Definition: jankName(fs.JankDefinition), Better: metrics.Lower, BenchUnit: "jank", BenchScale: 1})
		if fs.DeadlineMissed != nil {
			add(metrics.Metric{Name: "jank_deadline_missed", Value: float64(*fs.DeadlineMissed), Unit: "frames", Definition: "deadline missed", Better: metrics.Lower, BenchUnit: "deadline-missed", BenchScale: 1})
		}
		add(metrics.Metric{Name: "jank_perfdog", Value: float64(fs.PerfDog.Jank), Unit: "frames", Definition: "PerfDog Jank", Better: metrics.Lower, BenchUnit: "perfdog-jank", BenchScale: 1})
		add(metrics.Metric{Name: "big_jank_perfdog", Value: float64(fs.PerfDog.BigJank), Unit: "frames", Definition: "PerfDog BigJank", Better: metrics.Lower, BenchUnit: "perfdog-bigjank", BenchScale: 1})
		add(metrics.Metric{Name: "stutter_perfdog", Value: fs.PerfDog.Stutter * 100, Unit: "%", Definition: "PerfDog stutter", Better: metrics.Lower, BenchUnit: "perfdog-stutter-%", BenchScale: 1})
		add(metrics.Metric{Name: "jank_chromium", Value: float64(fs.Chromium.JankCount), Unit: "frames", Definition: "Chromium jank_count", Better: metrics.Lower, BenchUnit: "chromium-jank", BenchScale: 1})
		add(metrics.Metric{Name: "max_frame_delay", Value: float64(fs.Chromium.MaxFrameDelay), Unit: "periods", Definition: "Chromium max_frame_delay", Better: metrics.Lower, BenchUnit: "max-frame-delay-periods", BenchScale: 1})
		ft := "frame time, nearest rank"
		if fs.Source == "gfxinfo" {
			ft = "frame duration, nearest rank"
		}
		for _, p := range []struct {
			name string
			v    float64
		}{{"50", fs.FrameTimeMS.P50}, {"90", fs.FrameTimeMS.P90}, {"95", fs.FrameTimeMS.P95}, {"99", fs.FrameTimeMS.P99}} {
			add(metrics.Metric{Name: "frame_time_p" + p.name, Value: p.v, Unit: "ms", Definition: ft, Better: metrics.Lower, BenchUnit: "p" + p.name + "-frame-ns", BenchScale: 1e6})
		}
		if fs.Vitals != nil {
			add(metrics.Metric{Name: "slow_frames", Value: float64(fs.Vitals.Slow), Unit: "frames", Definition: "Android vitals slow (>16 ms)", Better: metrics.Lower, BenchUnit: "slow-frames", BenchScale: 1})
			add(metrics.Metric{Name: "frozen_frames", Value: float64(fs.Vitals.Frozen), Unit: "frames", Definition: "Android vitals frozen (>700 ms)", Better: metrics.Lower, BenchUnit: "frozen-frames", BenchScale: 1})
		}
	}
	if c := st.CPUStats; c.Intervals > 0 {
		src := c.Source
		add(metrics.Metric{Name: "cpu_intervals", Value: float64(c.Intervals), Unit: "intervals", Definition: "tick intervals the CPU figures span, " + src})
		add(metrics.Metric{Name: "cpu", Value: c.Mean, Unit: "%", Definition: "app share of device, " + src, Better: metrics.Lower, BenchUnit: "app-cpu-%", BenchScale: 1})
		add(metrics.Metric{Name: "cpu_p90", Value: c.P90, Unit: "%", Definition: "app share of device, nearest-rank p90 of ticks, " + src, Better: metrics.Lower, BenchUnit: "app-cpu-p90-%", BenchScale: 1})
		add(metrics.Metric{Name: "cpu_max", Value: c.Max, Unit: "%", Definition: "app share of device, highest tick, " + src, Better: metrics.Lower, BenchUnit: "app-cpu-max-%", BenchScale: 1})
		add(metrics.Metric{Name: "cpu_core", Value: c.MeanPerCore, Unit: "%", Definition: "app, top-style per core, " + src, Better: metrics.Lower, BenchUnit: "app-core-cpu-%", BenchScale: 1})
		add(metrics.Metric{Name: "cpu_device", Value: c.DeviceMean, Unit: "%", Definition: "device busy, " + src, Better: metrics.Lower, BenchUnit: "device-cpu-%", BenchScale: 1})
	}
	if m := st.MemoryStats; m.PSSSamples > 0 || m.RSSSamples > 0 {
		if m.PSSSamples > 0 {
			add(metrics.Metric{Name: "pss_max", Value: float64(m.PSSMaxKB), Unit: "KiB", Definition: "dumpsys meminfo TOTAL PSS", Better: metrics.Lower, BenchUnit: "pss-max-B", BenchScale: 1024})
			add(metrics.Metric{Name: "pss_growth", Value: m.PSSGrowthKBPerMin, Unit: "KiB/min", Definition: "least-squares slope of PSS", Better: metrics.Lower, BenchUnit: "pss-growth-B/min", BenchScale: 1024})
		}
		if m.RSSSamples > 0 {
			add(metrics.Metric{Name: "rss_max", Value: float64(m.RSSMaxKB), Unit: "KiB", Definition: "/proc/<pid>/status VmRSS", Better: metrics.Lower, BenchUnit: "rss-max-B", BenchScale: 1024})
		}
	}
	if tr := st.TrafficStats; tr != nil {
		def := tr.Source + ", scope " + tr.Scope
		add(metrics.Metric{Name: "rx", Value: float64(tr.RxBytes), Unit: "B", Definition: def, Better: metrics.Lower, BenchUnit: "rx-B", BenchScale: 1})
		add(metrics.Metric{Name: "tx", Value: float64(tr.TxBytes), Unit: "B", Definition: def, Better: metrics.Lower, BenchUnit: "tx-B", BenchScale: 1})
	}
	if b := st.BatteryStats; b != nil {
		add(metrics.Metric{Name: "battery_temp_max", Value: b.MaxTemperatureC, Unit: "°C", Definition: b.Source, Better: metrics.Lower, BenchUnit: "battery-max-C", BenchScale: 1})
	}
	if su := st.Startup; su != nil && len(su.Iterations) > 0 {
		def := su.Kind + " start, " + su.Source + ", median of " + strconv.Itoa(len(su.Iterations))
		add(metrics.Metric{Name: "startup_initial", Value: su.InitialDisplayMs, Unit: "ms", Definition: "time to initial display, " + def, Better: metrics.Lower, BenchUnit: "startup-initial-ns", BenchScale: 1e6})
		if su.FullDisplayMs > 0 {
			add(metrics.Metric{Name: "startup_full", Value: su.FullDisplayMs, Unit: "ms", Definition: "time to full display (Fully drawn), " + def, Better: metrics.Lower, BenchUnit: "startup-full-ns", BenchScale: 1e6})
		}
	}
	add(metrics.Metric{Name: "crashes", Value: float64(len(st.Crashes)), Unit: "crashes", Definition: "app process crashed (Java, native or ANR, by its logcat)", Better: metrics.Lower, BenchUnit: "crashes", BenchScale: 1})
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
