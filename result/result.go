package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/procfs"
	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
)

// Schema names the version of the Result JSON. A reader refuses any other.
const Schema = "perfgate.result/v1"

// Result is everything one session measured: device and app facts, the
// steps with their windows and summaries, and the raw material the summaries
// came from (frames, per-tick samples, memory samples), plus the gaps and
// errors met on the way. It is written as JSON (see Schema) and read back by
// ReadResult.
type Result struct {
	Schema string `json:"schema"`
	// Name is the test's name, or what the recording program calls it.
	Name string `json:"name,omitempty"`
	// TestPackage is the Go package of the test that ran the session, as a
	// path inside its module ("example_test"; see TestPackage); empty
	// outside a test binary. With Name it tells tests of two packages
	// apart (see Key).
	TestPackage string `json:"test_package,omitempty"`
	// Device is what the session learnt about the device when it started.
	Device procfs.DeviceFacts `json:"device"`
	App    AppInfo            `json:"app"`
	Config RunConfig          `json:"config"`
	// Start and End are host wall-clock times of the session.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Clock says how host time maps to the device's monotonic clock.
	Clock ClockSync `json:"clock"`
	Steps []*Step   `json:"steps"`
	// Whole summarises the whole session as one step named "session"
	// (from its first to its last tick); checks bound to a session that had
	// no named steps read it.
	Whole *Step `json:"whole,omitempty"`
	// Frames are the frames of every window, in time order, as their
	// source printed them.
	Frames []frames.Frame `json:"frames"`
	// FramesRejected counts the frame rows the device printed that were not
	// frames, by reason (gfxinfo.Reject; README "Metric definitions"),
	// and RejectedFrames names each of them but the Flags ≠ 0 rows.
	FramesRejected gfxinfo.Rejects `json:"frames_rejected,omitempty"`
	RejectedFrames []RejectedFrame `json:"rejected_frames,omitempty"`
	Samples        []Sample        `json:"samples"`
	// Memory holds the slow lane's `dumpsys meminfo` samples.
	Memory []MemorySample `json:"memory_samples"`
	// HeapDumps are the app's Java heap dumps, when the session took them
	// (perftest Config.HeapDumps).
	HeapDumps *HeapDumps `json:"heap_dumps,omitempty"`
	// Traffic holds the traffic counters, read in whichever lane their
	// source belongs to (RunConfig.TrafficSource).
	Traffic []TrafficSample `json:"traffic_samples"`
	Gaps    []Gap           `json:"gaps"`
	Crashes []Crash         `json:"crashes"`
	// Power holds the energy lane's reads of the battery (see EnergyStats).
	Power []PowerSample `json:"power_samples,omitempty"`
	// Restarts are the app's process changes the test caused on purpose
	// (see Session.Restarting), e.g. a cold launch's force-stop.
	Restarts []Crash `json:"restarts,omitempty"`
	// ProcessEnds are the app's processes that ended during the session
	// without crashing, by the log's account: force-stopped, killed by the
	// system, or for a reason the log does not give (Crash.Reason).
	ProcessEnds []Crash `json:"process_ends,omitempty"`
	// Causes says how the session looked for why frames janked; nil when
	// it did not (Config.Causes).
	Causes *CauseRun `json:"causes,omitempty"`
	// Trace is the session's Perfetto trace (Config.Trace): its file in the
	// results folder, or why there is none.
	Trace *TraceInfo `json:"trace,omitempty"`
	// Notes are collector conditions that are not failures: a source that is
	// unreadable on this device and what replaced it.
	Notes []string `json:"notes,omitempty"`
	// Error says why the session ended early; empty when it ran to Stop.
	// A Result written before Stop (see Unfinished) says so here too.
	Error string `json:"error,omitempty"`
	// Unfinished is set on a Result the session wrote while it ran, as
	// its steps ended: the session had not reached Stop then. Found on
	// disk, it is the last such write of a session that never reached
	// Stop (killed, crashed) or still runs; nil on a Result written at
	// Stop. Such a Result fails (see Failed), and its steps are never
	// recorded as budgets or baselines.
	Unfinished *Unfinished `json:"unfinished,omitempty"`
	// Verdicts are the verdicts of every check of the session: budgets
	// checked in Go (assert, the session-bound checks), budget files,
	// scenario budgets, regression gates, crashes no step expected and UI
	// actions that failed. Reports show them as they are: a Result with a
	// failing verdict is never shown as passed (see Failed).
	Verdicts []budget.Verdict `json:"verdicts,omitempty"`
	// TestFailed is set when the test that ran the session failed, for
	// whatever reason (its own checks as well as perfgate's): read from
	// the test when it ends.
	TestFailed bool `json:"test_failed,omitempty"`
	// Path is where the Result was last written or read; not serialised.
	Path string `json:"-"`
	// ReportFile is the HTML report written of the Result
	// (PERFGATE_REPORT), when one was; not serialised.
	ReportFile string `json:"-"`

	// rec guards Verdicts, which checks may record from several
	// goroutines, and says whether the file on disk lacks some of them.
	rec *recorder
}

// verdicts is a copy of r.Verdicts, taken while no check records one.
func (r *Result) CopyVerdicts() []budget.Verdict {
	rec := r.recorder()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(r.Verdicts)
}

// own makes r the Result its steps record verdicts in.
func (r *Result) Bind() {
	r.recorder()
	for _, st := range r.Steps {
		st.res = r
	}
	if r.Whole != nil {
		r.Whole.res = r
	}
}

// recorder is a Result's record of verdicts added since it was written.
type recorder struct {
	mu    sync.Mutex
	dirty bool
}

func (r *Result) recorder() *recorder {
	if r.rec == nil {
		r.rec = &recorder{}
	}
	return r.rec
}

// RecordVerdicts keeps verdicts of a check of the Result (or of one of its
// steps) with it. The Result on disk gets them when the session publishes
// (at the end of its test, or Session.Publish), or when it is written
// again.
func (r *Result) RecordVerdicts(vs ...budget.Verdict) {
	if r == nil || len(vs) == 0 {
		return
	}
	rec := r.recorder()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	r.Verdicts = append(r.Verdicts, vs...)
	rec.dirty = true
}

// marshal is r as indented JSON, taken while no check records a verdict in
// it. A Result written before Stop (Unfinished) is compact: a session
// writes it again as each step ends, and indenting takes longer than
// encoding.
func (r *Result) marshal() ([]byte, error) {
	rec := r.recorder()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if r.Unfinished != nil {
		return json.Marshal(r)
	}
	return json.MarshalIndent(r, "", "  ")
}

// SetTestFailed records that the session's test failed; the Result on
// disk gets it when the session publishes.
func (r *Result) SetTestFailed() {
	rec := r.recorder()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	r.TestFailed, rec.dirty = true, true
}

// unsaved reports whether verdicts were recorded since the Result was last
// written, and forgets it.
func (r *Result) Unsaved() bool {
	rec := r.recorder()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	d := rec.dirty
	rec.dirty = false
	return d
}

// Key names what the Result is a run of: its test (or scenario) and, in a
// test binary, the test's package, as "TestFeed@example_test". Runs of one
// key are runs of the same thing; comparisons, reports and histories never
// pool runs of different keys.
func (r *Result) Key() string {
	name := r.Name
	if name == "" {
		name = r.App.Package
	}
	if r.TestPackage != "" {
		return name + "@" + r.TestPackage
	}
	return name
}

// Checked is every verdict of the session: those it keeps (Verdicts), and,
// for a Result that keeps no crash verdict (one written before sessions
// kept them, or put together by hand), the verdict of each crash no step
// expected, as Stop makes it.
func (r *Result) Checked() []budget.Verdict {
	out := append([]budget.Verdict(nil), r.Verdicts...)
	for _, v := range out {
		if v.Kind == budget.KindCrash {
			return out
		}
	}
	return append(out, r.CrashVerdicts()...)
}

// CrashVerdicts are the failing verdicts of the steps in which the app
// crashed where the test did not expect it: a crash fails its step, budget
// or not, since an app that died measured nothing worth passing.
func (r *Result) CrashVerdicts() []budget.Verdict {
	var out []budget.Verdict
	for _, st := range r.Steps {
		if !st.Crashed() || st.CrashExpected {
			continue
		}
		for _, v := range budget.Check(st, "a crash no step expected", budget.Limit{Metric: metrics.Crashes}) {
			if v.Fails() {
				v.Kind = budget.KindCrash
				out = append(out, v)
			}
		}
	}
	return out
}

// Failed reports whether the session failed, and why, one line a reason:
// it ended early, a verdict fails (see Checked and budget.Verdict.Fails:
// a broken budget, a regression, a crash no step expected, a failed
// action), the app crashed outside every step, or its test failed.
func (r *Result) Failed() []string {
	var why []string
	if r.Error != "" {
		why = append(why, "session ended early: "+r.Error)
	}
	for _, v := range r.Checked() {
		if v.Fails() {
			why = append(why, v.Line)
		}
	}
	for _, c := range r.Crashes {
		if c.Step == "" {
			why = append(why, "the app crashed between steps")
			break
		}
	}
	if r.TestFailed && len(why) == 0 {
		why = append(why, "the test failed (see its log)")
	}
	return why
}

// AppInfo are the facts of the app under test.
type AppInfo struct {
	Package string `json:"package"`
	UID     int    `json:"uid,omitempty"`
	// PIDs are the app's processes when the session started.
	PIDs []int `json:"pids,omitempty"`
	// RunningAtStart is false when the session waited for the app to start.
	RunningAtStart bool `json:"running_at_start"`
}

// RunConfig records the settings a session ran with.
type RunConfig struct {
	IntervalMs     float64  `json:"interval_ms"`
	SlowIntervalMs float64  `json:"slow_interval_ms"`
	FrameSource    string   `json:"frame_source"`
	Layer          string   `json:"layer,omitempty"`
	Collectors     []string `json:"collectors"`
	TrafficScope   string   `json:"traffic_scope,omitempty"`
	TrafficSource  string   `json:"traffic_source,omitempty"`
	// Sources names the device command behind each kind of value.
	Sources map[string]string `json:"sources"`
}

// ClockSync describes the host→device clock mapping:
// device_ns = host_ns + offset_ns, where host_ns counts from the session's
// Start on the host's monotonic clock and device_ns is the device's
// CLOCK_MONOTONIC (the clock frame timestamps use).
type ClockSync struct {
	Source   string `json:"source"`
	OffsetNs int64  `json:"offset_ns"`
	// UncertaintyMs bounds |error| of a mapped time: half the width of the
	// offset interval that the best round trips allow.
	UncertaintyMs float64 `json:"uncertainty_ms"`
	BestRTTMs     float64 `json:"best_rtt_ms"`
	Samples       int     `json:"samples"`
}

// RejectedFrame is a frame row that was not a frame: the row as read and
// why.
type RejectedFrame struct {
	frames.Frame
	// Reason is a gfxinfo.Reject, e.g. "not_completed" for a row still
	// drawing when the collector stopped waiting for it.
	Reason string `json:"reason"`
	// WaitedNs is how long a row still drawing was waited for (device
	// time when the dumps gave it).
	WaitedNs int64 `json:"waited_ns,omitempty"`
	// HostNs is when the collector decided, from session start.
	HostNs int64 `json:"host_ns"`
}

// Sample is what one cheap-lane tick read. Counters are cumulative as the
// device reports them; summaries take differences.
type Sample struct {
	// HostNs is the midpoint of the tick's round trip, from session start.
	HostNs int64 `json:"host_ns"`
	// DeviceNs is HostNs mapped to the device clock when the sample was taken
	// (refined at Stop).
	DeviceNs int64 `json:"device_ns"`
	RTTNs    int64 `json:"rtt_ns"`
	// LateNs is how far behind its schedule (the previous tick's start plus
	// the interval) the tick's request went out: the host or the device was
	// busy. 0 for an unscheduled tick (the last, at Stop).
	LateNs int64 `json:"late_ns,omitempty"`
	// UptimeNs is the device's /proc/uptime (CLOCK_BOOTTIME) read in the
	// tick, 10 ms resolution; 0 when unreadable.
	UptimeNs int64 `json:"uptime_ns,omitempty"`
	// CPU is the /proc/stat `cpu` line, in clock ticks; nil when unreadable.
	CPU *procfs.CPUTimes `json:"cpu,omitempty"`
	// OnlineCores counts the cpuN lines of that /proc/stat: the cores online
	// (the kernel leaves out hot-unplugged ones, whose time does not grow
	// the cpu line either).
	OnlineCores int `json:"online_cores,omitempty"`
	// Procs are the app's processes' /proc/<pid>/stat times.
	Procs []procfs.PidStat `json:"procs,omitempty"`
	// PIDs are the app's processes (pidof), empty when it is not running.
	PIDs []int `json:"pids"`
	// RSSKB is VmRSS summed over the app's processes (/proc/<pid>/status), KiB.
	RSSKB int64 `json:"rss_kb,omitempty"`
	// Threads of the app's main process (/proc/<pid>/task/*/stat).
	Threads []procfs.PidStat `json:"threads,omitempty"`
	// Battery and thermal zones (type → °C), read every tenth tick.
	Battery  *BatteryReading    `json:"battery,omitempty"`
	ThermalC map[string]float64 `json:"thermal_c,omitempty"`
	// NewFrames is how many new frames this tick brought.
	NewFrames int `json:"new_frames"`
}

// TrafficSample is one read of cumulative traffic counters, in bytes.
type TrafficSample struct {
	HostNs   int64 `json:"host_ns"`
	DeviceNs int64 `json:"device_ns"`
	// UptimeNs is /proc/uptime as the device printed it right before the
	// counters, in the same round trip; 0 when the read had none (dumpsys
	// netstats runs in the slow lane).
	UptimeNs  int64  `json:"uptime_ns,omitempty"`
	RxBytes   uint64 `json:"rx_bytes"`
	TxBytes   uint64 `json:"tx_bytes"`
	RxPackets uint64 `json:"rx_packets,omitempty"`
	TxPackets uint64 `json:"tx_packets,omitempty"`
}

// BatteryReading is one battery read (uevent or dumpsys battery).
type BatteryReading struct {
	LevelPct     float64 `json:"level_pct"`
	TemperatureC float64 `json:"temperature_c"`
	VoltageMV    float64 `json:"voltage_mv,omitempty"`
	CurrentMA    float64 `json:"current_ma,omitempty"`

	// NoTemperature is set when the source printed no temperature, so
	// TemperatureC holds nothing.
	NoTemperature bool `json:"no_temperature,omitempty"`
}

// MemorySample is one slow-lane `dumpsys meminfo <pkg>` read, in KiB.
type MemorySample struct {
	HostNs   int64 `json:"host_ns"`
	DeviceNs int64 `json:"device_ns"`
	PSSKB    int64 `json:"pss_kb"`
	RSSKB    int64 `json:"rss_kb,omitempty"`
	SwapKB   int64 `json:"swap_kb,omitempty"`
	// Summary holds the App Summary rows (java_heap_kb, native_heap_kb, ...).
	Summary map[string]int64 `json:"summary,omitempty"`
	// GPUKB is the app's GPU memory by dumpsys gpu --gpumem (Android 12+)
	// read in the same round trip; nil where it gave none.
	GPUKB *int64 `json:"gpu_kb,omitempty"`
	// Steps name the steps that began since the read before this one:
	// each step's start calls for a read, so that a step shorter than the
	// slow interval (or one the lane was late for) still has one.
	Steps []string `json:"steps,omitempty"`
}

// Gap is a tick (or slow-lane read) that failed. Samples around it are kept.
type Gap struct {
	Lane   string `json:"lane"` // "cheap" or "slow"
	HostNs int64  `json:"host_ns"`
	// DurationNs is how long the failed call took.
	DurationNs int64  `json:"duration_ns"`
	Step       string `json:"step,omitempty"`
	Error      string `json:"error"`
	// LostFromNs and LostToNs bound, on the device clock of frame times
	// (Frame.Time), the frames lost when the phone's frame buffer wrapped
	// between two polls: after the newest frame the poll before showed,
	// before the oldest this poll shows, each narrowed by half a refresh
	// period (frames are a vsync apart). Both are 0 for a failed read.
	LostFromNs int64 `json:"lost_from_ns,omitempty"`
	LostToNs   int64 `json:"lost_to_ns,omitempty"`
}

// Crash is one of the app's processes disappearing or being replaced: a
// crash (Result.Crashes), a process end that was not one
// (Result.ProcessEnds), or a restart the test caused (Result.Restarts).
type Crash struct {
	HostNs   int64  `json:"host_ns"`
	DeviceNs int64  `json:"device_ns"`
	Step     string `json:"step,omitempty"`
	OldPIDs  []int  `json:"old_pids"`
	NewPIDs  []int  `json:"new_pids"`
	// PID is the process that ended.
	PID int `json:"pid,omitempty"`
	// Reason is why it ended, from the log lines of that process and of the
	// time it died: "crash", "force_stopped", "killed" (by the system) or
	// "unknown"; empty for a restart. Cause details it ("java", "native",
	// "anr" for a crash; the system's reason for a kill or force-stop) and
	// Evidence is the line that decided.
	Reason   string `json:"reason,omitempty"`
	Cause    string `json:"cause,omitempty"`
	Evidence string `json:"evidence,omitempty"`
	// Logcat holds the log lines of the process and about it from the time
	// it was last seen alive to its death (threadtime, -v epoch times where
	// the device has them).
	Logcat []string `json:"logcat,omitempty"`
}

// Step returns the named step's summary. A step that was never recorded
// returns a Step with Missing set (and zero metrics), so chained calls never
// panic and budget checks can fail with a clear message.
func (r *Result) Step(name string) *Step {
	if r != nil {
		for _, s := range r.Steps {
			if s.Name == name {
				if s.res == nil {
					s.res = r // a Result put together by hand
				}
				return s
			}
		}
	}
	return &Step{Name: name, Missing: true, res: r}
}

// WriteFile writes r as indented JSON to path, creating its directory,
// through a temporary file synced to disk and renamed over path, so a
// reader never sees half a file.
func (r *Result) WriteFile(path string) error {
	if r.Schema == "" {
		r.Schema = Schema
	}
	b, err := r.marshal()
	if err != nil {
		return fmt.Errorf("result: write %s: %w", path, err)
	}
	b = append(b, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("result: write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("result: write %s: %w", path, err)
	}
	_, werr := tmp.Write(b)
	// 0644, as a results folder's Results: the temporary file is 0600.
	werr = errors.Join(werr, tmp.Sync(), tmp.Close(), os.Chmod(tmp.Name(), 0o644))
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("result: write %s: %w", path, werr)
	}
	r.Path = path
	return nil
}

// ErrSchema is returned by ReadResult for a file of another schema version.
var ErrSchema = errors.New("unsupported result schema")

// ReadResult reads a Result written by a session.
func ReadResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("result: read result: %w", err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("result: read result %s: %w", path, err)
	}
	if r.Schema != Schema {
		return nil, fmt.Errorf("result: read result %s: %w: %q (want %q)", path, ErrSchema, r.Schema, Schema)
	}
	r.Path = path
	r.Bind()
	return &r, nil
}
