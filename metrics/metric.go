package metrics

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Better says which way a metric improves.
type Better int

const (
	// Neither: the metric is context (frame count) and never regresses.
	Neither Better = iota
	// Lower is better: jank, frame time, CPU, memory, traffic, startup.
	Lower
	// Higher is better: FPS.
	Higher
)

// Name is a metric's name in budgets, comparisons, reports and the Result's
// not_measured; the constants below are the catalogue's.
type Name string

// The catalogue's metrics (README "Metric definitions").
const (
	Frames             Name = "frames"
	FPS                Name = "fps"
	Jank               Name = "jank"
	JankDeadlineMissed Name = "jank_deadline_missed"
	JankPerfDog        Name = "jank_perfdog"
	BigJankPerfDog     Name = "big_jank_perfdog"
	StutterPerfDog     Name = "stutter_perfdog"
	JankChromium       Name = "jank_chromium"
	JankFrameTimeline  Name = "jank_frametimeline"
	// Macrobenchmark's FrameTimingMetric, from a Perfetto trace.
	FrameOverrunP50 Name = "frame_overrun_p50"
	FrameOverrunP90 Name = "frame_overrun_p90"
	FrameOverrunP95 Name = "frame_overrun_p95"
	FrameOverrunP99 Name = "frame_overrun_p99"
	FrameCPUP50     Name = "frame_cpu_p50"
	FrameCPUP90     Name = "frame_cpu_p90"
	FrameCPUP95     Name = "frame_cpu_p95"
	FrameCPUP99     Name = "frame_cpu_p99"
	MaxFrameDelay   Name = "max_frame_delay"
	FrameTimeP50    Name = "frame_time_p50"
	FrameTimeP90    Name = "frame_time_p90"
	FrameTimeP95    Name = "frame_time_p95"
	FrameTimeP99    Name = "frame_time_p99"
	SlowFrames      Name = "slow_frames"
	FrozenFrames    Name = "frozen_frames"
	SMGT            Name = "sm_gt"
	CPUIntervals    Name = "cpu_intervals"
	CPU             Name = "cpu"
	CPUP90          Name = "cpu_p90"
	CPUMax          Name = "cpu_max"
	CPUCore         Name = "cpu_core"
	CPUDevice       Name = "cpu_device"
	PSSMax          Name = "pss_max"
	PSSGrowth       Name = "pss_growth"
	RSSMax          Name = "rss_max"
	// The App Summary of dumpsys meminfo, row by row: each the highest
	// read in the step.
	MemJavaHeapMax     Name = "mem_java_heap_max"
	MemNativeHeapMax   Name = "mem_native_heap_max"
	MemCodeMax         Name = "mem_code_max"
	MemStackMax        Name = "mem_stack_max"
	MemGraphicsMax     Name = "mem_graphics_max"
	MemPrivateOtherMax Name = "mem_private_other_max"
	MemGPUMax          Name = "mem_gpu_max"
	TrafficIntervals   Name = "traffic_intervals"
	Rx                 Name = "rx"
	Tx                 Name = "tx"
	BatteryTempMax     Name = "battery_temp_max"
	BatteryCurrentMean Name = "battery_current_mean"
	StartupInitial     Name = "startup_initial"
	StartupFull        Name = "startup_full"
	Crashes            Name = "crashes"
	MaxBlock           Name = "max_block"
	ANRs               Name = "anrs"
)

// Family groups the metrics one source gives, so that a source nobody could
// read takes all of them out at once, and budgets know which figures hang
// on frames or on CPU ticks.
type Family int

// The families of the catalogue.
const (
	FamilyFrames Family = iota + 1
	// FamilyChoreographer is the app's log of the frames its main thread
	// skipped (logcat "Choreographer: Skipped N frames!").
	FamilyChoreographer
	FamilyAppCPU
	FamilyDeviceCPU
	// FamilyCPUTicks is the tick count the CPU figures span: absent only
	// when both app and device CPU are.
	FamilyCPUTicks
	FamilyPSS
	FamilyRSS
	FamilyTraffic
	FamilyBattery
	FamilyStartup
	FamilyCrashes
	// FamilyBlocks is the app's main-thread Looper log of slow messages
	// (logcat "Looper: Slow dispatch took …").
	FamilyBlocks
	// FamilyANR is the system's log of the app not responding (logcat
	// "ActivityManager: logcat.ANR in …").
	FamilyANR
	// FamilyTrace is a Perfetto trace recorded around the steps (Android's
	// own FrameTimeline classification of the app's frames).
	FamilyTrace
	// FamilySections is the app's own trace sections (Trace.beginSection)
	// in that trace, named by the user (see SectionName).
	FamilySections
	// FamilyEnergy is the energy lane's battery current and voltage;
	// FamilyRails the phone's power monitors (PowerStats HAL).
	FamilyEnergy
	FamilyRails
)

// Def is one metric of the catalogue: everything budgets, gates, reports
// and benchmark output know of it besides its value.
type Def struct {
	Name Name
	// Unit is how values are shown: "ms", "fps", "frames", "%", "KiB", "B".
	Unit   string
	Better Better
	// Count marks metrics that count things (frames, crashes): a recorded
	// budget's headroom is +1 rather than a percentage.
	Count  bool
	Family Family
	// Doc says what the metric is, in a few words; a step's Metric names
	// the definition and source it followed in Metric.Definition.
	Doc string
	// BenchUnit is the benchstat unit token (no spaces; "ns" and "B" for
	// times and sizes), empty for context that is no benchmark figure, and
	// BenchScale the factor from a value to it.
	BenchUnit  string
	BenchScale float64
	// Summary marks what a pull-request summary shows for every step.
	Summary bool
	// Budget marks what a step new to a budget file gets a budget for, and
	// Gate what a regression gate records a baseline of by default.
	Budget, Gate bool
	// Signed marks a figure below zero as a measurement, not an error (a
	// frame overrun: done before its deadline), so that its budgets may
	// be negative too.
	Signed bool
	// Span names the context metric counting the read intervals a figure
	// spans, for a figure taken between the reads that bracket a step
	// (CPU shares, byte counts): the reads at its two edges hold time
	// outside it, so the figure sways with where they fall.
	Span Name
}

// Floor reports whether a budget on the metric is a floor (fps ≥ 50, and
// the context counts: frames, CPU intervals) rather than a ceiling.
func (d Def) Floor() bool { return d.Better != Lower }

// FromFrames reports whether the metric is figured from frames, so that a
// step of a handful of frames gives it no budget.
func (d Def) FromFrames() bool { return d.Family == FamilyFrames }

// Never reports whether the metric counts events that should never happen
// (crashes, ANRs, frozen frames): a budget suggested from past runs is
// ≤ 0 however many of them the runs saw, as none is the only level to hold.
func (d Def) Never() bool {
	return d.Family == FamilyCrashes || d.Family == FamilyANR || d.Name == FrozenFrames
}

// Measure is the metric's value v, measured as definition says (the
// definition it followed and its source).
func (d Def) Measure(v float64, definition string) Metric {
	return Metric{Def: d, Value: v, Definition: definition}
}

// catalogue is every metric, in the order steps list them: frames, CPU,
// memory, traffic, health.
var catalogue = []Def{
	{Name: Frames, Unit: "frames", Better: Neither, Count: true, Family: FamilyFrames, Doc: "frames rendered",
		BenchUnit: "frames", BenchScale: 1, Summary: true},
	{Name: FPS, Unit: "fps", Better: Higher, Family: FamilyFrames, Doc: "(n−1)/(t[n−1]−t[0])",
		BenchUnit: "fps", BenchScale: 1, Summary: true, Budget: true, Gate: true},
	{Name: Jank, Unit: "frames", Better: Lower, Count: true, Family: FamilyFrames, Doc: "default jank: deadline missed (gfxinfo), PerfDog Jank (SurfaceFlinger)",
		BenchUnit: "jank", BenchScale: 1, Summary: true, Budget: true, Gate: true},
	{Name: JankDeadlineMissed, Unit: "frames", Better: Lower, Count: true, Family: FamilyFrames, Doc: "deadline missed",
		BenchUnit: "deadline-missed", BenchScale: 1},
	{Name: JankPerfDog, Unit: "frames", Better: Lower, Count: true, Family: FamilyFrames, Doc: "PerfDog Jank",
		BenchUnit: "perfdog-jank", BenchScale: 1, Summary: true},
	{Name: BigJankPerfDog, Unit: "frames", Better: Lower, Count: true, Family: FamilyFrames, Doc: "PerfDog BigJank",
		BenchUnit: "perfdog-bigjank", BenchScale: 1, Summary: true, Budget: true},
	{Name: StutterPerfDog, Unit: "%", Better: Lower, Family: FamilyFrames, Doc: "PerfDog stutter",
		BenchUnit: "perfdog-stutter-%", BenchScale: 1},
	{Name: JankChromium, Unit: "frames", Better: Lower, Count: true, Family: FamilyFrames, Doc: "Chromium jank_count",
		BenchUnit: "chromium-jank", BenchScale: 1},
	{Name: JankFrameTimeline, Unit: "frames", Better: Lower, Count: true, Family: FamilyTrace, Doc: "FrameTimeline app jank (App Deadline Missed, App Resynced Jitter)",
		BenchUnit: "frametimeline-jank", BenchScale: 1},
	// Overruns are negative for frames done before their deadline.
	{Name: FrameOverrunP50, Unit: "ms", Better: Lower, Family: FamilyTrace, Doc: "Macrobenchmark frameOverrunMs p50: FrameTimeline actual end − expected end",
		BenchUnit: "p50-frame-overrun-ns", BenchScale: 1e6, Signed: true},
	{Name: FrameOverrunP90, Unit: "ms", Better: Lower, Family: FamilyTrace, Doc: "Macrobenchmark frameOverrunMs p90: FrameTimeline actual end − expected end",
		BenchUnit: "p90-frame-overrun-ns", BenchScale: 1e6, Signed: true},
	{Name: FrameOverrunP95, Unit: "ms", Better: Lower, Family: FamilyTrace, Doc: "Macrobenchmark frameOverrunMs p95: FrameTimeline actual end − expected end",
		BenchUnit: "p95-frame-overrun-ns", BenchScale: 1e6, Signed: true},
	{Name: FrameOverrunP99, Unit: "ms", Better: Lower, Family: FamilyTrace, Doc: "Macrobenchmark frameOverrunMs p99: FrameTimeline actual end − expected end",
		BenchUnit: "p99-frame-overrun-ns", BenchScale: 1e6, Signed: true},
	{Name: FrameCPUP50, Unit: "ms", Better: Lower, Family: FamilyTrace, Doc: "Macrobenchmark frameDurationCpuMs p50: DrawFrame end − Choreographer#doFrame start",
		BenchUnit: "p50-frame-cpu-ns", BenchScale: 1e6},
	{Name: FrameCPUP90, Unit: "ms", Better: Lower, Family: FamilyTrace, Doc: "Macrobenchmark frameDurationCpuMs p90: DrawFrame end − Choreographer#doFrame start",
		BenchUnit: "p90-frame-cpu-ns", BenchScale: 1e6},
	{Name: FrameCPUP95, Unit: "ms", Better: Lower, Family: FamilyTrace, Doc: "Macrobenchmark frameDurationCpuMs p95: DrawFrame end − Choreographer#doFrame start",
		BenchUnit: "p95-frame-cpu-ns", BenchScale: 1e6},
	{Name: FrameCPUP99, Unit: "ms", Better: Lower, Family: FamilyTrace, Doc: "Macrobenchmark frameDurationCpuMs p99: DrawFrame end − Choreographer#doFrame start",
		BenchUnit: "p99-frame-cpu-ns", BenchScale: 1e6},
	{Name: MaxFrameDelay, Unit: "periods", Better: Lower, Count: true, Family: FamilyFrames, Doc: "Chromium max_frame_delay",
		BenchUnit: "max-frame-delay-periods", BenchScale: 1},
	{Name: FrameTimeP50, Unit: "ms", Better: Lower, Family: FamilyFrames, Doc: "frame time, nearest rank",
		BenchUnit: "p50-frame-ns", BenchScale: 1e6, Summary: true, Gate: true},
	{Name: FrameTimeP90, Unit: "ms", Better: Lower, Family: FamilyFrames, Doc: "frame time, nearest rank",
		BenchUnit: "p90-frame-ns", BenchScale: 1e6},
	{Name: FrameTimeP95, Unit: "ms", Better: Lower, Family: FamilyFrames, Doc: "frame time, nearest rank",
		BenchUnit: "p95-frame-ns", BenchScale: 1e6, Summary: true, Budget: true, Gate: true},
	{Name: FrameTimeP99, Unit: "ms", Better: Lower, Family: FamilyFrames, Doc: "frame time, nearest rank",
		BenchUnit: "p99-frame-ns", BenchScale: 1e6, Summary: true},
	{Name: SlowFrames, Unit: "frames", Better: Lower, Count: true, Family: FamilyFrames, Doc: "Android vitals slow (>16 ms)",
		BenchUnit: "slow-frames", BenchScale: 1},
	{Name: FrozenFrames, Unit: "frames", Better: Lower, Count: true, Family: FamilyFrames, Doc: "Android vitals frozen (>700 ms)",
		BenchUnit: "frozen-frames", BenchScale: 1},
	{Name: SMGT, Unit: "fps", Better: Higher, Family: FamilyChoreographer, Doc: "GT SM, the step's lowest second",
		BenchUnit: "gt-sm-fps", BenchScale: 1},
	{Name: CPUIntervals, Unit: "intervals", Better: Neither, Count: true, Family: FamilyCPUTicks, Doc: "tick intervals the CPU figures span", Span: CPUIntervals},
	{Name: CPU, Unit: "%", Better: Lower, Family: FamilyAppCPU, Doc: "app share of device",
		BenchUnit: "app-cpu-%", BenchScale: 1, Summary: true, Budget: true, Gate: true, Span: CPUIntervals},
	{Name: CPUP90, Unit: "%", Better: Lower, Family: FamilyAppCPU, Doc: "app share of device, nearest-rank p90 of ticks",
		BenchUnit: "app-cpu-p90-%", BenchScale: 1, Span: CPUIntervals},
	{Name: CPUMax, Unit: "%", Better: Lower, Family: FamilyAppCPU, Doc: "app share of device, highest tick",
		BenchUnit: "app-cpu-max-%", BenchScale: 1, Span: CPUIntervals},
	{Name: CPUCore, Unit: "%", Better: Lower, Family: FamilyAppCPU, Doc: "app, top-style per core",
		BenchUnit: "app-core-cpu-%", BenchScale: 1, Span: CPUIntervals},
	{Name: CPUDevice, Unit: "%", Better: Lower, Family: FamilyDeviceCPU, Doc: "device busy",
		BenchUnit: "device-cpu-%", BenchScale: 1, Summary: true, Span: CPUIntervals},
	{Name: PSSMax, Unit: "KiB", Better: Lower, Family: FamilyPSS, Doc: "dumpsys meminfo TOTAL PSS",
		BenchUnit: "pss-max-B", BenchScale: 1024, Summary: true, Budget: true, Gate: true},
	{Name: PSSGrowth, Unit: "KiB/min", Better: Lower, Family: FamilyPSS, Doc: "least-squares slope of PSS",
		BenchUnit: "pss-growth-B/min", BenchScale: 1024},
	{Name: RSSMax, Unit: "KiB", Better: Lower, Family: FamilyRSS, Doc: "/proc/<pid>/status VmRSS",
		BenchUnit: "rss-max-B", BenchScale: 1024, Summary: true},
	{Name: MemJavaHeapMax, Unit: "KiB", Better: Lower, Family: FamilyPSS, Doc: "dumpsys meminfo App Summary Java Heap, highest read",
		BenchUnit: "java-heap-max-B", BenchScale: 1024},
	{Name: MemNativeHeapMax, Unit: "KiB", Better: Lower, Family: FamilyPSS, Doc: "dumpsys meminfo App Summary Native Heap, highest read",
		BenchUnit: "native-heap-max-B", BenchScale: 1024},
	{Name: MemCodeMax, Unit: "KiB", Better: Lower, Family: FamilyPSS, Doc: "dumpsys meminfo App Summary Code, highest read",
		BenchUnit: "code-max-B", BenchScale: 1024},
	{Name: MemStackMax, Unit: "KiB", Better: Lower, Family: FamilyPSS, Doc: "dumpsys meminfo App Summary Stack, highest read",
		BenchUnit: "stack-max-B", BenchScale: 1024},
	{Name: MemGraphicsMax, Unit: "KiB", Better: Lower, Family: FamilyPSS, Doc: "dumpsys meminfo App Summary Graphics, highest read",
		BenchUnit: "graphics-max-B", BenchScale: 1024},
	{Name: MemPrivateOtherMax, Unit: "KiB", Better: Lower, Family: FamilyPSS, Doc: "dumpsys meminfo App Summary Private Other, highest read",
		BenchUnit: "private-other-max-B", BenchScale: 1024},
	{Name: MemGPUMax, Unit: "KiB", Better: Lower, Family: FamilyPSS, Doc: "dumpsys gpu --gpumem, the app's process total, highest read",
		BenchUnit: "gpu-max-B", BenchScale: 1024},
	{Name: TrafficIntervals, Unit: "intervals", Better: Neither, Count: true, Family: FamilyTraffic, Doc: "read intervals the byte counts span", Span: TrafficIntervals},
	{Name: Rx, Unit: "B", Better: Lower, Family: FamilyTraffic, Doc: "bytes received",
		BenchUnit: "rx-B", BenchScale: 1, Summary: true, Budget: true, Span: TrafficIntervals},
	{Name: Tx, Unit: "B", Better: Lower, Family: FamilyTraffic, Doc: "bytes sent",
		BenchUnit: "tx-B", BenchScale: 1, Summary: true, Budget: true, Span: TrafficIntervals},
	{Name: BatteryTempMax, Unit: "°C", Better: Lower, Family: FamilyBattery, Doc: "highest battery temperature",
		BenchUnit: "battery-max-C", BenchScale: 1},
	// The sign is the phone's: Pixels (and the simulated phone) report a
	// discharge as negative, so higher, toward zero, is less drain; a
	// budget on a phone that reports it positive is an explicit "max".
	{Name: BatteryCurrentMean, Unit: "mA", Better: Higher, Family: FamilyBattery,
		Doc:       "mean battery current_now over the step's reads, sign as the phone reports it (Pixels: negative while discharging)",
		BenchUnit: "battery-current-mA", BenchScale: 1},
	// Energy drawn is positive whatever the phone's sign convention.
	{Name: EnergyMAh, Unit: "mAh", Better: Lower, Family: FamilyEnergy, Doc: "charge drawn from the battery, trapezoid of current_now over the step",
		BenchUnit: "energy-mAh", BenchScale: 1},
	{Name: EnergyMJ, Unit: "mJ", Better: Lower, Family: FamilyEnergy, Doc: "energy drawn from the battery, trapezoid of current_now × voltage_now over the step",
		BenchUnit: "energy-mJ", BenchScale: 1},
	{Name: PowerMeanMW, Unit: "mW", Better: Lower, Family: FamilyEnergy, Doc: "mean power drawn from the battery, energy_mj over the step's length",
		BenchUnit: "power-mW", BenchScale: 1},
	{Name: EnergyRailCPUBigMJ, Unit: "mJ", Better: Lower, Family: FamilyRails, Doc: "energy through the big CPU cluster's rails (power monitors)"},
	{Name: EnergyRailCPUMidMJ, Unit: "mJ", Better: Lower, Family: FamilyRails, Doc: "energy through the mid CPU cluster's rails (power monitors)"},
	{Name: EnergyRailCPULittleMJ, Unit: "mJ", Better: Lower, Family: FamilyRails, Doc: "energy through the little CPU cluster's rails (power monitors)"},
	{Name: EnergyRailGPUMJ, Unit: "mJ", Better: Lower, Family: FamilyRails, Doc: "energy through the GPU's rails (power monitors)"},
	{Name: EnergyRailDisplayMJ, Unit: "mJ", Better: Lower, Family: FamilyRails, Doc: "energy through the display's rails (power monitors)"},
	{Name: EnergyRailModemMJ, Unit: "mJ", Better: Lower, Family: FamilyRails, Doc: "energy through the modem's rails (power monitors)"},
	{Name: StartupInitial, Unit: "ms", Better: Lower, Family: FamilyStartup, Doc: "time to initial display",
		BenchUnit: "startup-initial-ns", BenchScale: 1e6, Budget: true, Gate: true},
	{Name: StartupFull, Unit: "ms", Better: Lower, Family: FamilyStartup, Doc: "time to full display (Fully drawn)",
		BenchUnit: "startup-full-ns", BenchScale: 1e6, Budget: true},
	{Name: Crashes, Unit: "crashes", Better: Lower, Count: true, Family: FamilyCrashes, Doc: "app process crashed (Java, native or ANR, by its logcat)",
		BenchUnit: "crashes", BenchScale: 1, Summary: true, Budget: true},
	{Name: MaxBlock, Unit: "ms", Better: Lower, Family: FamilyBlocks, Doc: "longest main-thread message (Looper slow dispatch)",
		BenchUnit: "max-block-ns", BenchScale: 1e6},
	{Name: ANRs, Unit: "anrs", Better: Lower, Count: true, Family: FamilyANR, Doc: "app not responding (logcat ActivityManager: ANR in)",
		BenchUnit: "anrs", BenchScale: 1},
}

var byName = func() map[Name]int {
	m := make(map[Name]int, len(catalogue))
	for i, d := range catalogue {
		m[d.Name] = i
	}
	return m
}()

// Catalogue returns every metric, in the order steps list them.
func Catalogue() []Def { return append([]Def(nil), catalogue...) }

// Lookup returns the catalogue's entry for name, or a section metric's
// (see SectionName).
func Lookup(name Name) (Def, bool) {
	i, ok := byName[name]
	if !ok {
		return sectionDef(name)
	}
	return catalogue[i], true
}

// Def returns the catalogue's entry for n; the zero Def, named n, for a
// name the catalogue lacks.
func (n Name) Def() Def {
	if d, ok := Lookup(n); ok {
		return d
	}
	return Def{Name: n}
}

// Known reports whether the catalogue has n, or n names a section metric.
func (n Name) Known() bool { _, ok := Lookup(n); return ok }

// Names lists the catalogue's names, sorted, for error messages; the
// percentiles of one figure as one ("frame_time_p50/p90/p95/p99"), so that
// the list stays short enough to quote whole.
func Names() string {
	s := make([]string, len(catalogue))
	for i, d := range catalogue {
		s[i] = string(d.Name)
	}
	slices.Sort(s)
	var out []string
	for _, n := range s {
		base, p, ok := percentileName(n)
		if k := len(out) - 1; ok && k >= 0 && strings.HasPrefix(out[k], base+"_p") {
			if _, _, prev := percentileName(strings.SplitN(out[k], "/", 2)[0]); prev {
				out[k] += "/" + p
				continue
			}
		}
		out = append(out, n)
	}
	return strings.Join(out, ", ")
}

// percentileName splits "frame_time_p95" into "frame_time" and "p95".
func percentileName(n string) (base, p string, ok bool) {
	i := strings.LastIndex(n, "_p")
	if i < 0 || i+2 == len(n) || strings.Trim(n[i+2:], "0123456789") != "" {
		return "", "", false
	}
	return n[:i], n[i+1:], true
}

// Metric is one number of a step: a catalogue entry, its value, and the
// definition and source the value follows; the unit of budgets, reports and
// regression gates.
type Metric struct {
	Def
	Value float64
	// Definition names the metric definition (DESIGN.md) or the device
	// command the value follows, e.g. "deadline missed".
	Definition string
	// Resolution is the smallest change of Value the measurement can
	// show, where it is coarse: for cpu, one clock tick of the app over
	// the step's ticks of the whole device. 0 where not known.
	Resolution float64
}

// FormatValue is the one way perfgate prints a metric's value: in failure,
// regression and budget lines, report tables and charts, comparisons and
// trend pages. The rule, by unit:
//
//   - the number is rounded half away from zero to at most two decimals,
//     trailing zeros dropped: 18.25 → "18.25", 18.3 → "18.3", 5 → "5",
//     -0.004 → "0" (never "-0");
//   - a unit of measure (ms, %, KiB, KiB/min, B, °C) is glued on, as
//     benchstat writes units: "18.25ms", "35%", "2003B";
//   - a count or a rate (frames, fps, periods, intervals, crashes, anrs, or
//     any unit not listed above) is left off, for the metric's name beside
//     the value says what it counts: "jank 5 > 3", "fps 48.21";
//   - unit "" gives the number alone, for a table column or a chart whose
//     unit is printed once beside it.
func FormatValue(v float64, unit string) string {
	r := v
	if math.Abs(v) < 1e15 {
		// Beyond 1e15 a float64 holds no hundredths to round, and v*100
		// could overflow.
		r = math.Round(v*100) / 100
	}
	if r == 0 {
		r = 0 // not "-0"
	}
	s := strconv.FormatFloat(r, 'f', -1, 64)
	switch unit {
	case "ms", "%", "KiB", "B", "KiB/min", "°C":
		return s + unit
	}
	return s
}

// WithUnit is v as FormatValue shows it, with its unit even where that
// leaves it out: "5 frames", "2.5ms". It says by how much a value changed
// where a percentage has no meaning (a change from zero).
func WithUnit(v float64, unit string) string {
	s := FormatValue(v, unit)
	if unit != "" && !strings.HasSuffix(s, unit) {
		s += " " + unit
	}
	return s
}

// SignedChange is a change of v in unit with its sign: "+5 frames",
// "−0.5ms", "0 frames".
func SignedChange(v float64, unit string) string {
	switch {
	case v > 0:
		return "+" + WithUnit(v, unit)
	case v < 0:
		return "−" + WithUnit(-v, unit)
	}
	return WithUnit(0, unit)
}

// BaseStep is a step's name without the iteration suffix perftest gives a
// name used again ("scroll#2" → "scroll"): a step's iterations are one
// step to budgets, regression gates, comparisons and benchmark output.
func BaseStep(name string) string {
	if i := strings.LastIndexByte(name, '#'); i > 0 && i+1 < len(name) && strings.Trim(name[i+1:], "0123456789") == "" {
		return name[:i]
	}
	return name
}

// BenchToken makes a name one token of benchmark output: blanks, and the
// "/" and "=" that would split a benchmark name into sub-names, become "_".
func BenchToken(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\n', '/', '=':
			return '_'
		}
		return r
	}, s)
}
