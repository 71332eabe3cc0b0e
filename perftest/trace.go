package perftest

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest/internal/clockmap"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/perftest/internal/startupphase"
	"github.com/perfgate/perfgate/perftest/internal/tracing"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/sections"
)

// TraceLaunches are the cold starts in a trace read for the app's package
// with trace.Options.MainThreads, begun in [start, end) (trace clock):
// each launch's phases as a step keeps them, times on the trace clock, and
// why phases are absent ("" when none is). perfgate analyze trace uses it.
func TraceLaunches(a *trace.Analysis, start, end int64) ([][]result.StartupPhase, string) {
	return startupphase.Phases(a, start, end)
}

// TraceConfig says how a session records a Perfetto trace around its steps
// (Config.Trace, WithTrace). The zero value records with the defaults.
//
// On Android 10 (API 29) and later the session starts the device's
// `perfetto` in the background when it starts, with a text config fed on
// standard input (perfetto --txt -c -, which the shell user may use on every
// version): the scheduler's switches and wake-ups, binder transactions, the
// atrace Categories and the app's own sections (atrace_apps), the process
// list, and on Android 12 (API 31) and later SurfaceFlinger's FrameTimeline.
// Stop ends it, waits for perfetto to write the file, pulls it into the
// results folder next to the Result (<name>@<package>.perfetto-trace),
// removes it from the device once the copy is whole (a failed pull leaves
// it there, and the Result says where) and reads it. A session with a
// trace also stops and takes the traces that sessions which died left on
// the phone, and says so in its notes. Every step gets its FrameTimeline
// jank by type and, for each janky frame, the main thread's states and
// longest slices (Step.Trace), and the catalogue's jank_frametimeline.
type TraceConfig struct {
	// BufferKB is the trace buffer's size in KiB, 1024 to 1048576 (1 GiB);
	// default DefaultTraceBufferKB. The buffer is a ring: a session longer
	// than it holds keeps its last part.
	BufferKB int
	// Categories are the atrace categories; default
	// DefaultTraceCategories. Each is a category name: a lower-case letter,
	// then lower-case letters, digits and '_', at most 32 of them.
	Categories []string
	// MaxDuration bounds the trace on the device (duration_ms), so that a
	// trace whose session died still ends: 1 s to 24 h, default
	// DefaultTraceMaxDuration. Steps after it are not in the trace.
	MaxDuration time.Duration
	// Sections names the app's trace sections each step measures, as
	// Macrobenchmark's TraceSectionMetric does (README "Trace sections").
	Sections []sections.Spec
}

// Defaults of TraceConfig.
const (
	DefaultTraceBufferKB    = 65536
	DefaultTraceMaxDuration = 30 * time.Minute
)

// DefaultTraceCategories are the atrace categories a trace records unless
// TraceConfig.Categories says otherwise: graphics, views (Choreographer's
// doFrame and its traversals), input, the activity and window managers,
// binder transactions, the AIDL calls they carry (which interface and
// method a thread waits on: AIDL::java::IPackageManager::getPackageInfo::client;
// Android 10+, as traces are) and the runtime (GC, lock contention).
var DefaultTraceCategories = []string{"gfx", "view", "input", "am", "wm", "binder_driver", "aidl", "dalvik"}

// WithTrace records a Perfetto trace around the session (see TraceConfig).
func WithTrace(tc TraceConfig) Option {
	return func(c *Config) { c.Trace = &tc }
}

// Validate reports the first setting that cannot go into the device's
// trace config, quoting it.
func (tc TraceConfig) Validate() error {
	_, err := tc.withDefaults()
	return err
}

var traceCategory = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// withDefaults fills the zero fields and checks what goes into the
// device's config.
func (tc TraceConfig) withDefaults() (TraceConfig, error) {
	if tc.BufferKB == 0 {
		tc.BufferKB = DefaultTraceBufferKB
	}
	if tc.BufferKB < 1024 || tc.BufferKB > 1<<20 {
		return tc, fmt.Errorf("perftest: trace: BufferKB %d out of range 1024..1048576", tc.BufferKB)
	}
	if tc.MaxDuration == 0 {
		tc.MaxDuration = DefaultTraceMaxDuration
	}
	if tc.MaxDuration < time.Second || tc.MaxDuration > 24*time.Hour {
		return tc, fmt.Errorf("perftest: trace: MaxDuration %v out of range 1s..24h", tc.MaxDuration)
	}
	if tc.Categories == nil {
		tc.Categories = DefaultTraceCategories
	}
	seen := map[string]bool{}
	for _, c := range tc.Categories {
		if !traceCategory.MatchString(c) {
			return tc, fmt.Errorf("perftest: trace: category %q is not an atrace category name (a lower-case letter, then lower-case letters, digits and '_', at most 32)", devcmd.Clip(c))
		}
		if seen[c] {
			return tc, fmt.Errorf("perftest: trace: category %q given twice", c)
		}
		seen[c] = true
	}
	tc.Categories, tc.Sections = slices.Clone(tc.Categories), slices.Clone(tc.Sections)
	return tc, sections.Validate(tc.Sections)
}

// startTrace starts perfetto in the background, when Config.Trace asks for
// a trace. What goes wrong is a note: everything else is still measured.
func (c *collector) startTrace(ctx context.Context) {
	tc := c.cfg.Trace
	if tc == nil {
		return
	}
	env := tracing.Env{
		Serial: c.s.dev.serial(),
		API:    c.s.res.Device.API,
		Batch:  c.s.dev.batch,
		Now:    c.s.now,
		Note:   func(msg string) { c.note("%s", msg) },
	}
	if p, ok := c.s.dev.(puller); ok {
		env.Pull = p.pull
	}
	cfg := tracing.Config{Package: c.cfg.Package, BufferKB: tc.BufferKB, Categories: tc.Categories, MaxDuration: tc.MaxDuration, Sections: tc.Sections}
	c.tr = tracing.Start(ctx, env, cfg)
	c.s.res.Trace = c.tr.Info()
}

// stopTrace ends the trace and takes it, and what earlier sessions left,
// into the results folder (tracing.Recorder.Stop). It runs once the lanes
// have stopped; the session's lock is taken only to record the outcome.
func (c *collector) stopTrace(ctx context.Context) {
	if c.tr == nil {
		return
	}
	dest := tracing.Dest{Dir: c.cfg.resultsDir(), Base: result.Base(c.cfg.Name), Stem: c.cfg.fileStem()}
	for _, st := range c.s.res.Steps {
		dest.Launched = dest.Launched || st.Startup != nil
	}
	c.tr.Stop(ctx, dest, &c.s.mu)
}

// traceSpan puts the trace's span on the steps' device clock.
func (c *collector) traceSpan(clk *clockmap.Map) {
	if c.tr != nil && clk.OK() {
		c.tr.Span(clk.ToDevice)
	}
}

// traceStep is the step's part of the trace; nil without one (the reason
// goes to the step's catalogue through traceWhy).
func (c *collector) traceStep(st *result.Step) *result.TraceStep {
	if c.tr == nil {
		return nil
	}
	in := tracing.StepInput{ClockSource: c.s.res.Clock.Source, ClockUncertaintyMs: c.s.res.Clock.UncertaintyMs, RefreshHz: c.refreshHz, Frames: c.s.res.Frames, Whole: st == c.whole}
	ts, why := c.tr.Step(st, in)
	st.Sections = c.tr.Sections(st, ts, in)
	if why != "" {
		c.setWhy(metrics.FamilyTrace, why)
	}
	return ts
}

// traceWhy says why a step has no jank_frametimeline; "" when it has one.
func (c *collector) traceWhy(st *result.Step) string {
	if c.cfg.Trace == nil {
		return "trace: no Perfetto trace recorded (Config.Trace unset; perftest.WithTrace, perfgate record -trace)"
	}
	return c.tr.Why(st)
}

// abandonTrace stops a trace whose session failed to start, without
// reading it, and removes its file and its lease.
func (c *collector) abandonTrace() {
	if c.tr != nil {
		c.tr.Abandon()
	}
}
