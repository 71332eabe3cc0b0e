package perftest

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/internal/envpath"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest/internal/energy"
	"github.com/perfgate/perfgate/perftest/internal/framesrc"
	"github.com/perfgate/perfgate/result"
)

// Collector names one kind of measurement a session takes.
type Collector string

// The collectors. Health (pid tracking, crash detection) always runs: every
// per-app collector needs the app's pids.
const (
	CollectFrames  Collector = "frames"
	CollectCPU     Collector = "cpu"
	CollectMemory  Collector = "memory"
	CollectTraffic Collector = "traffic"
	CollectBattery Collector = "battery"
)

// AllCollectors is what a session runs when Config.Collectors is empty.
var AllCollectors = []Collector{CollectFrames, CollectCPU, CollectMemory, CollectTraffic, CollectBattery}

// FrameSource chooses where frames come from.
type FrameSource string

// Frame sources. Auto picks SurfaceFlinger when the app draws through a
// SurfaceView layer (games, video, Flutter's SurfaceView mode), whose frames
// gfxinfo never sees, and gfxinfo otherwise, whose per-frame durations and
// deadlines make the better jank definition.
const (
	SourceAuto           FrameSource = ""
	SourceGfxInfo        FrameSource = frames.SourceGfxInfo
	SourceSurfaceFlinger FrameSource = frames.SourceSurfaceFlinger
)

// Config is a session's settings. The zero value (with Package set) polls
// every collector every 100 ms.
type Config struct {
	// Package is the app under test, e.g. "com.example.feed". Required.
	Package string
	// Name names the Result (the test's name under Start). It also names
	// the result file inside ResultsDir: <Name>@<package>.json, where
	// package is the test's Go package (see result.TestPackage and
	// Result.WriteInDir), so tests of two packages, or two runs at once,
	// never overwrite each other's Results.
	Name string
	// Collectors to run; empty means AllCollectors.
	Collectors []Collector
	// Interval between cheap-lane ticks. Default 100 ms, and, when frames
	// are collected, never longer than half the time the device's frame
	// buffers hold (120 frames), so no frame is lost at high refresh rates;
	// a longer one is lowered, with a note in the Result.
	Interval time.Duration
	// SlowInterval between `dumpsys meminfo` reads. Default 1 s.
	SlowInterval time.Duration
	// FrameSource picks gfxinfo or SurfaceFlinger; default auto.
	FrameSource FrameSource
	// Layer is the SurfaceFlinger layer to poll; default picked from
	// `dumpsys SurfaceFlinger --list`.
	Layer string
	// RefreshHz overrides the device's refresh rate (the R of the metric
	// definitions) when the device does not report one.
	RefreshHz float64
	// ResultsDir is where the Result is written as <Name>@<package>.json
	// (or .2.json, … when a concurrent run or an earlier session of this
	// process has that name; see Result.WriteInDir). Default
	// $PERFGATE_RESULTS (a relative one from the module root), else testdata/perf-results.
	ResultsDir string
	// ResultFile, when set, is the exact path of the Result (it overrides
	// ResultsDir), written over whatever is there. "-" writes nothing.
	ResultFile string
	// WaitForApp lets the session start before the app runs (a step will
	// launch it); without it an app that is not running fails Start with
	// ErrAppNotRunning.
	WaitForApp bool
	// TickTimeout bounds one tick's round trip. Default 2 s.
	TickTimeout time.Duration
	// GiveUpAfter ends the session with an error after this long with every
	// tick failing. Default 10 s.
	GiveUpAfter time.Duration
	// Settle is the longest Stop keeps polling for frames whose vsync fell
	// inside the last step but which finish drawing after it. Stop polls
	// at once, and again only while the app may still be drawing such
	// frames (it completed one within Settle before the poll): an idle
	// app's session stops after one round trip. Default 250 ms.
	Settle time.Duration
	// Causes says how the session finds out why frames janked; the zero
	// value finds what the device allows (see CauseOptions).
	Causes    CauseOptions
	HeapDumps bool // dump the app's Java heap around the steps (README "What leaked")
	// Trace, when set, records a Perfetto trace around the session and
	// reads it into the steps (see TraceConfig).
	Trace *TraceConfig
	// TraceFile, with ResultFile "-", is the exact path of the trace,
	// ending in .perfetto-trace; otherwise the trace goes beside the
	// Result under its name.
	TraceFile string
	// OnTick, when set, is called after every cheap-lane tick with the
	// live state; `perfgate record` prints its live line from it. It runs on
	// the collector goroutine and must return quickly.
	OnTick func(result.Live)
	// ExpectCrash names the steps in which the test expects the app to
	// crash (a step's iterations "tap#2" … count as "tap"); "*" names
	// every step. A crash or ANR in any other step fails the test at Stop,
	// with or without a crash budget.
	ExpectCrash []string
	// Reporters write reports of the Result once the session stopped
	// (WithReporters); those of UseReporters follow them.
	Reporters []result.Reporter
	Energy    energy.Options // the energy lane, on with CollectBattery: Interval, UnplugBattery (README "Energy")

	// files is the stem the session's Result and the files it links share
	// in the results folder; withDefaults gives each session its own.
	files *result.Stem
}

// Option changes a session's Config.
type Option func(*Config)

// UnplugBattery unplugs the battery for the session (Config.Energy.UnplugBattery).
func UnplugBattery() Option { return func(c *Config) { c.Energy.UnplugBattery = true } }

// ExpectCrash says the app is expected to crash (or stop responding) in
// the named steps, "*" for every step: their crashes are recorded, and do
// not fail the test. A crash in any other step fails it at Stop.
func ExpectCrash(steps ...string) Option {
	return func(c *Config) { c.ExpectCrash = append(c.ExpectCrash, steps...) }
}

// crashExpected reports whether the test expects crashes in the step.
func (c *Config) crashExpected(step string) bool {
	for _, s := range c.ExpectCrash {
		if s == "*" || s == step || s == metrics.BaseStep(step) {
			return true
		}
	}
	return false
}

// App names the app under test.
func App(pkg string) Option { return func(c *Config) { c.Package = pkg } }

// WithCollectors limits the session to the given collectors.
func WithCollectors(cs ...Collector) Option {
	return func(c *Config) { c.Collectors = append([]Collector(nil), cs...) }
}

// WithInterval sets the cheap-lane tick interval.
func WithInterval(d time.Duration) Option { return func(c *Config) { c.Interval = d } }

// WithSlowInterval sets the time between `dumpsys meminfo` reads (default
// 1 s); shorter gives memory growth more points on short steps.
func WithSlowInterval(d time.Duration) Option { return func(c *Config) { c.SlowInterval = d } }

// WithFrameSource forces a frame source.
func WithFrameSource(s FrameSource) Option { return func(c *Config) { c.FrameSource = s } }

// WithLayer names the SurfaceFlinger layer to poll.
func WithLayer(name string) Option {
	return func(c *Config) { c.Layer = name; c.FrameSource = SourceSurfaceFlinger }
}

// WithResultsDir sets the directory the Result is written to.
func WithResultsDir(dir string) Option { return func(c *Config) { c.ResultsDir = dir } }

// WithConfig replaces the whole Config; options after it still apply.
func WithConfig(cfg Config) Option { return func(c *Config) { *c = cfg } }

// withDefaults fills zero fields and validates.
func (c Config) withDefaults() (Config, error) {
	if c.Package == "" {
		return c, fmt.Errorf("perftest: no app package given (use perftest.App)")
	}
	if len(c.Collectors) == 0 {
		c.Collectors = AllCollectors
	}
	for _, k := range c.Collectors {
		switch k {
		case CollectFrames, CollectCPU, CollectMemory, CollectTraffic, CollectBattery:
		default:
			return c, fmt.Errorf("perftest: unknown collector %q", k)
		}
	}
	switch c.FrameSource {
	case SourceAuto, SourceGfxInfo, SourceSurfaceFlinger:
	default:
		return c, fmt.Errorf("perftest: unknown frame source %q (want gfxinfo or surfaceflinger)", c.FrameSource)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"Interval", c.Interval}, {"SlowInterval", c.SlowInterval}, {"TickTimeout", c.TickTimeout}, {"GiveUpAfter", c.GiveUpAfter}, {"Settle", c.Settle},
		{"Causes.LooperSlow", c.Causes.LooperSlow}} {
		if d.v < 0 {
			return c, fmt.Errorf("perftest: %s %v is negative", d.name, d.v)
		}
	}
	if c.Causes.SampleHz < 0 || c.Causes.SampleHz > 10000 {
		return c, fmt.Errorf("perftest: Causes.SampleHz %d out of range 0..10000", c.Causes.SampleHz)
	}
	if c.Interval == 0 {
		c.Interval = 100 * time.Millisecond
	}
	if c.SlowInterval <= 0 {
		c.SlowInterval = time.Second
	}
	if c.TickTimeout <= 0 {
		c.TickTimeout = 2 * time.Second
	}
	if c.GiveUpAfter <= 0 {
		c.GiveUpAfter = 10 * time.Second
	}
	if c.Settle <= 0 {
		c.Settle = 250 * time.Millisecond
	}
	if c.Name == "" {
		c.Name = "perftest"
	}
	if c.TraceFile != "" && !strings.HasSuffix(c.TraceFile, ".perfetto-trace") {
		return c, fmt.Errorf("perftest: TraceFile %q does not end in .perfetto-trace", c.TraceFile)
	}
	c.files = &result.Stem{}
	if f := c.fixedFile(); f != "" {
		c.files = result.FixedStem(f)
	}
	if c.Trace != nil {
		tc, err := c.Trace.withDefaults()
		if err != nil {
			return c, err
		}
		c.Trace = &tc
	}
	return c, nil
}

func (c Config) has(k Collector) bool {
	for _, x := range c.Collectors {
		if x == k {
			return true
		}
	}
	return false
}

// pollInterval caps the interval so that half a buffer never fills between
// two ticks, leaving room for one slow round trip.
func pollInterval(want time.Duration, refreshHz float64) time.Duration {
	if refreshHz <= 0 {
		return want
	}
	limit := time.Duration(float64(framesrc.BufferLen/2) / refreshHz * float64(time.Second))
	return min(want, limit)
}

// writeResult writes r where the Config says: ResultFile as given, nothing
// for "-", else into the results folder under a name no other run holds.
func (c Config) writeResult(r *result.Result) error {
	switch c.ResultFile {
	case "-":
		return nil
	case "":
		return r.WriteInStem(c.resultsDir(), result.Base(c.Name), c.fileStem())
	}
	return r.WriteFile(c.ResultFile)
}

// fileStem is the stem the session's files share (see stem); a Config
// that withDefaults did not fill gets a fresh one.
func (c Config) fileStem() *result.Stem {
	switch {
	case c.files != nil:
		return c.files
	case c.fixedFile() != "":
		return result.FixedStem(c.fixedFile())
	}
	return &result.Stem{}
}

// fixedFile is the Result's path that names the session's files when the
// Config fixes it: ResultFile, or with ResultFile "-" TraceFile's stem;
// "" when the results folder chooses.
func (c Config) fixedFile() string {
	switch c.ResultFile {
	case "":
		return ""
	case "-":
		if c.TraceFile == "" {
			return ""
		}
		return strings.TrimSuffix(c.TraceFile, ".perfetto-trace") + ".json"
	}
	return c.ResultFile
}

// rewriteResult writes r again where writeResult wrote it, under the same
// name, with what was recorded since (verdicts).
func (c Config) rewriteResult(r *result.Result) error {
	switch {
	case r.Path == "" || c.ResultFile == "-":
		return nil
	case c.ResultFile != "":
		return r.WriteFile(r.Path)
	}
	return r.Rewrite()
}

// resultsDir is the folder of the Result (ResultFile's, else ResultsDir,
// $PERFGATE_RESULTS or testdata/perf-results), where what goes with it
// (screenshots, reports) goes too, even when the Result itself is not
// written.
func (c Config) resultsDir() string {
	switch {
	case c.fixedFile() != "":
		return filepath.Dir(c.fixedFile())
	case c.ResultsDir != "":
		return c.ResultsDir
	case envpath.Dir("PERFGATE_RESULTS") != "":
		return envpath.Dir("PERFGATE_RESULTS")
	}
	return filepath.Join("testdata", "perf-results")
}
