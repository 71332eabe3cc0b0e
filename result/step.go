package result

import (
	"time"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
)

// Step is one named step's window and summaries.
type Step struct {
	Name string `json:"name"`
	// Missing is set on the placeholder Result.Step returns for a name no
	// step had.
	Missing bool `json:"missing,omitempty"`
	// Unfinished is set when the session stopped inside the step.
	Unfinished bool `json:"unfinished,omitempty"`
	// ActionFailed says which UI action of the step failed and why (see
	// Session.FailStep): the step did not do all it was to measure, so
	// its figures are never recorded as budgets or baselines.
	ActionFailed string `json:"action_failed,omitempty"`
	// Command is the command of the host the step ran around (`perfgate
	// run -- COMMAND`, package hostcmd); nil for any other step.
	Command *Command `json:"command,omitempty"`
	// The window on the host (wall clock and ns since session start) and
	// on the device's monotonic clock; a frame belongs to the step when its
	// time (see Frame.Time) is in [DeviceStartNs, DeviceEndNs).
	HostStart     time.Time `json:"host_start"`
	HostEnd       time.Time `json:"host_end"`
	HostStartNs   int64     `json:"host_start_ns"`
	HostEndNs     int64     `json:"host_end_ns"`
	DeviceStartNs int64     `json:"device_start_ns"`
	DeviceEndNs   int64     `json:"device_end_ns"`

	// FrameStats is the step's frame summary, with every definition side
	// by side under the names `perfgate analyze frames` prints.
	FrameStats frames.Summary `json:"frames"`
	// JankAtS are the seconds, since the step began, of the frames counted
	// by the default jank (FrameStats.JankDefinition), and BigJankAtS those
	// of PerfDog BigJank frames: the evidence a failed budget quotes.
	JankAtS    []float64 `json:"jank_at_s,omitempty"`
	BigJankAtS []float64 `json:"big_jank_at_s,omitempty"`
	// Causes is why the step's frames janked; nil when the session looked
	// for no causes (Config.Causes).
	Causes *causes.Step `json:"causes,omitempty"`
	// Smoothness is GT's SM over the step, from the app's Choreographer
	// log; nil when the log could not tell (see NotMeasured).
	Smoothness *SmoothnessStats `json:"smoothness,omitempty"`
	// Trace is the step's part of the session's Perfetto trace (Config.Trace):
	// FrameTimeline jank by type, and each janky frame's main-thread states
	// and longest slices; nil without a trace (see NotMeasured).
	Trace *TraceStep `json:"trace,omitempty"`
	// Sections are the app's trace sections the session named
	// (perftest.TraceConfig.Sections), one entry each, in that order.
	Sections []SectionStats `json:"sections,omitempty"`
	// Windows lists every window (gfxinfo) or layer that rendered frames in
	// the step; FrameStats describes the one with the most frames.
	Windows []WindowFrames `json:"windows,omitempty"`
	// FramesRejected counts the rows of the step's time that were not
	// frames, by reason (see Result.FramesRejected).
	FramesRejected gfxinfo.Rejects `json:"frames_rejected,omitempty"`
	// FramesInFlight counts the gfxinfo rows of the step's time that were
	// still drawing when Stop's last poll ran (Stop waits for such frames
	// at most Config.Settle): they are in no figure of FrameStats. A
	// Result note names them. InFlightMs is how long the longest had drawn
	// by that poll, the least its duration can be.
	FramesInFlight int           `json:"frames_in_flight,omitempty"`
	InFlightMs     float64       `json:"in_flight_ms,omitempty"`
	CPUStats       CPUStats      `json:"cpu"`
	MemoryStats    MemoryStats   `json:"memory"`
	TrafficStats   *TrafficStats `json:"traffic,omitempty"`
	BatteryStats   *BatteryStats `json:"battery,omitempty"`
	ThermalStats   *ThermalStats `json:"thermal,omitempty"`
	Crashes        []Crash       `json:"crashes,omitempty"`
	// Energy is what the phone drew in the step (energy lane); nil when
	// the lane did not run.
	Energy *EnergyStats `json:"energy,omitempty"`
	// CrashExpected says the test expected the app to crash in this step
	// (perftest.ExpectCrash), so its crashes do not fail it.
	CrashExpected bool `json:"crash_expected,omitempty"`
	// Startup is the app start measured inside the step, when the step
	// launched the app (see scenario.Launch); nil otherwise.
	Startup *StartupStats `json:"startup,omitempty"`
	// Gaps counts failed ticks inside the step.
	Gaps int `json:"gaps"`
	// Ticks says how regularly the cheap lane sampled inside the step.
	Ticks TickStats `json:"ticks"`
	// NotMeasured names each metric of the catalogue (see Metrics) the
	// step has no value for, with the reason: "rx": "traffic:
	// /proc/<pid>/net/dev unreadable on every read in the step (…)".
	// Unmeasured is never zero: such a metric is left out of Metrics,
	// gates say "not measured", and the figure its summary above still
	// holds (a zero, with a sample count of 0) means nothing.
	NotMeasured map[metrics.Name]string `json:"not_measured,omitempty"`

	// res is the Result the step belongs to, where checks of it record
	// their verdicts; set by Result.Step and when a session summarises.
	res *Result
}

// TickStats describes the cheap lane's ticks over a window: how many, how
// many ran late and how far apart they were. A tick is late when it started
// more than half an interval behind its schedule, so consecutive samples
// were more than 1.5 intervals apart and every figure between them has a
// coarser time resolution.
type TickStats struct {
	Ticks int `json:"ticks"`
	Late  int `json:"late"`
	// MaxLateMs is the most a tick started behind its schedule.
	MaxLateMs float64 `json:"max_late_ms"`
	// Spacing between consecutive ticks' requests: nearest-rank p95 and
	// the largest.
	P95SpacingMs float64 `json:"p95_spacing_ms"`
	MaxSpacingMs float64 `json:"max_spacing_ms"`
	// MaxRTTMs is the slowest tick's round trip.
	MaxRTTMs float64 `json:"max_rtt_ms"`
}

// StartupStats is an app start measured the way Macrobenchmark reports it
// (DESIGN.md "Startup"): time to initial display from `am start -W`
// TotalTime (cross-checked with logcat "Displayed"), and time to full display
// from logcat "Fully drawn" when the app calls reportFullyDrawn. A step that
// launched the app several times holds one Iteration per launch; the step's
// figures are their medians.
type StartupStats struct {
	// Kind is "cold" (process killed first), "warm" (process alive,
	// activity recreated) or "hot" (activity brought to front).
	Kind string `json:"kind"`
	// Source names where the figures came from, e.g. "am start -W TotalTime".
	Source string `json:"source"`
	// InitialDisplayMs is the median time to initial display.
	InitialDisplayMs float64 `json:"initial_display_ms"`
	// FullDisplayMs is the median time to full display; 0 when the app never
	// reported it.
	FullDisplayMs float64 `json:"full_display_ms,omitempty"`
	// Iterations are the individual launches, in order.
	Iterations []StartupSample `json:"iterations"`
	// Compilation is the compilation mode asked for before the launches
	// (scenario.StartupOptions), and Notes what the phone refused of it or
	// of a cold start; PhasesNotMeasured says why the launches have no
	// phases from the trace.
	Compilation       string   `json:"compilation,omitempty"`
	Notes             []string `json:"notes,omitempty"`
	PhasesNotMeasured string   `json:"phases_not_measured,omitempty"`
}

// StartupSample is one launch.
type StartupSample struct {
	// TotalTimeMs is `am start -W` TotalTime; WaitTimeMs its WaitTime.
	TotalTimeMs int64 `json:"total_time_ms"`
	WaitTimeMs  int64 `json:"wait_time_ms,omitempty"`
	// DisplayedMs is logcat's "Displayed <activity>: +…", 0 when absent.
	DisplayedMs int64 `json:"displayed_ms,omitempty"`
	// FullyDrawnMs is logcat's "Fully drawn <activity>: +…", 0 when absent.
	FullyDrawnMs int64 `json:"fully_drawn_ms,omitempty"`
	// LaunchState is what `am start -W` printed (COLD, WARM, HOT), when it
	// did (API 29+).
	LaunchState string `json:"launch_state,omitempty"`
	// Compilation is the app's compiler filter the launch ran under, as
	// `dumpsys package` showed it; Phases its phases from the trace.
	Compilation string         `json:"compilation,omitempty"`
	Phases      []StartupPhase `json:"phases,omitempty"`
	// HostStartNs and HostEndNs are when the launch ran on the session's
	// host clock (ns since it started, as Step.HostStartNs): from just
	// before its own `am start -W` was sent, after any preparation, to when
	// its figures were read; DeviceStartNs and DeviceEndNs the same on the
	// steps' device clock. All 0 for a launch no session timed.
	HostStartNs   int64 `json:"host_start_ns,omitempty"`
	HostEndNs     int64 `json:"host_end_ns,omitempty"`
	DeviceStartNs int64 `json:"device_start_ns,omitempty"`
	DeviceEndNs   int64 `json:"device_end_ns,omitempty"`
}

// WindowFrames names one window or layer and how many frames it rendered.
type WindowFrames struct {
	Window string `json:"window"`
	Frames int    `json:"frames"`
}

// CPUStats is a step's CPU use. Percentages follow DESIGN.md "CPU": device %
// = Δbusy/Δtotal × 100 from /proc/stat; app % = Δ(utime+stime) over every
// process of the package / Δtotal × 100 (share of the whole device); the
// per-core (`top`-style) figure multiplies that by the core count, the cores
// online in each tick (the cpuN lines of its /proc/stat). The means sum Δ
// over every tick interval of the step, each interval counting the processes
// alive at both of its ends and those that started inside it.
type CPUStats struct {
	Source string `json:"source"`
	Unit   string `json:"unit"`
	// Mean is the app's share of the device over the whole step; Max the
	// highest over one tick interval inside it.
	Mean float64 `json:"app_pct"`
	Max  float64 `json:"app_pct_max"`
	// P90 is the nearest-rank 90th percentile of the app's share over the
	// step's tick intervals.
	P90         float64 `json:"app_pct_p90"`
	MeanPerCore float64 `json:"app_core_pct"`
	DeviceMean  float64 `json:"device_pct"`
	DeviceMax   float64 `json:"device_pct_max"`
	// Threads are the busiest threads of the app's main process.
	Threads []ThreadCPU `json:"threads,omitempty"`
	// Intervals is how many tick intervals the figures span.
	Intervals int `json:"intervals"`
	// ResolutionPct is the step of Mean: one clock tick of the app over
	// the step's Δtotal, 100/Δtotal. A short step's share moves by it
	// when a tick falls on either side of an edge.
	ResolutionPct float64 `json:"app_pct_resolution,omitempty"`
}

// ThreadCPU is one thread's share over a step, in the units of CPUStats.
type ThreadCPU struct {
	TID     int     `json:"tid"`
	Name    string  `json:"name"`
	Pct     float64 `json:"pct"`
	CorePct float64 `json:"core_pct"`
}

// MemoryStats is a step's memory, in KiB. PSS and the App Summary come from
// `dumpsys meminfo <pkg>` (slow lane); RSS from VmRSS of
// /proc/<pid>/status every tick (DESIGN.md "Memory").
type MemoryStats struct {
	Source    string  `json:"source"`
	Unit      string  `json:"unit"`
	PSSMaxKB  int64   `json:"pss_max_kb"`
	PSSLastKB int64   `json:"pss_last_kb"`
	PSSMeanKB float64 `json:"pss_mean_kb"`
	// PSSGrowthKBPerMin is the least-squares slope of PSS over time.
	PSSGrowthKBPerMin float64 `json:"pss_growth_kb_per_min"`
	RSSMaxKB          int64   `json:"rss_max_kb"`
	RSSLastKB         int64   `json:"rss_last_kb"`
	RSSMeanKB         float64 `json:"rss_mean_kb"`
	// Summary is the last App Summary inside the step.
	Summary map[string]int64 `json:"summary,omitempty"`
	// SummaryMax is the highest of each App Summary row over the step's
	// reads (the keys of Summary), the figures of the mem_…_max metrics;
	// nil when no read printed an App Summary (Android 5 and older).
	SummaryMax map[string]int64 `json:"summary_max_kb,omitempty"`
	// GPUMaxKB is the highest GPU memory of the step's reads (dumpsys gpu
	// --gpumem), mem_gpu_max; nil where no read gave one.
	GPUMaxKB *int64 `json:"gpu_max_kb,omitempty"`
	// PSSSamples and RSSSamples count what the figures came from.
	PSSSamples int `json:"pss_samples"`
	RSSSamples int `json:"rss_samples"`
}

// TrafficStats is a step's network traffic.
type TrafficStats struct {
	Source string `json:"source"`
	// Scope is "uid" (the app's own traffic) or "device" (every app's:
	// the device gives nothing finer).
	Scope        string  `json:"scope"`
	Unit         string  `json:"unit"`
	RxBytes      uint64  `json:"rx_bytes"`
	TxBytes      uint64  `json:"tx_bytes"`
	RxBytesPerS  float64 `json:"rx_bytes_per_s"`
	TxBytesPerS  float64 `json:"tx_bytes_per_s"`
	DurationSecs float64 `json:"duration_s"`
	// Clock is what DurationSecs was measured on: "/proc/uptime", the
	// device's clock read beside the counters (10 ms resolution), or
	// "host", the midpoints of the reads' round trips on the host, each
	// within half a round trip of the device's read.
	Clock string `json:"clock"`
	// Intervals is how many read intervals the counts span: the reads that
	// bracket the step and those between.
	Intervals int `json:"intervals"`
}

// BatteryStats is the battery at the step's edges.
type BatteryStats struct {
	Source          string  `json:"source"`
	StartLevelPct   float64 `json:"start_level_pct"`
	EndLevelPct     float64 `json:"end_level_pct"`
	MaxTemperatureC float64 `json:"max_temperature_c"`
	MeanCurrentMA   float64 `json:"mean_current_ma,omitempty"`
	// Convention is the current's sign convention, as the energy lane
	// told it (EnergyStats.Convention); "" without the lane.
	Convention string `json:"convention,omitempty"`
}

// ThermalStats is the hottest the thermal zones got during a step, in °C.
type ThermalStats struct {
	Source   string             `json:"source"`
	MaxC     float64            `json:"max_c"`
	MaxZone  string             `json:"max_zone"`
	ZoneMaxC map[string]float64 `json:"zone_max_c"`
}

// Jank is the step's default jank count (DESIGN.md "Pauses are not janks":
// deadline-missed frames where frames have durations, PerfDog Jank where only
// present times exist); FrameStats.JankDefinition names the one used.
func (s *Step) Jank() int { return s.FrameStats.Jank }

// FPS is the step's frame rate, (n − 1) / (t[n−1] − t[0]).
func (s *Step) FPS() float64 { return s.FrameStats.FPS }

// Frames returns the step's frame summary.
func (s *Step) Frames() frames.Summary { return s.FrameStats }

// CPU returns the step's CPU summary.
func (s *Step) CPU() CPUStats { return s.CPUStats }

// Memory returns the step's memory summary.
func (s *Step) Memory() MemoryStats { return s.MemoryStats }

// Traffic returns the step's traffic, zero when it was not measured (see
// NotMeasured for why).
func (s *Step) Traffic() TrafficStats {
	if s.TrafficStats == nil {
		return TrafficStats{}
	}
	return *s.TrafficStats
}

// Crashed reports whether the app crashed (its process disappeared or was
// replaced) during the step. A crash fails the step's budget checks.
func (s *Step) Crashed() bool { return len(s.Crashes) > 0 }

// Duration is the step's length on the host clock.
func (s *Step) Duration() time.Duration { return time.Duration(s.HostEndNs - s.HostStartNs) }
