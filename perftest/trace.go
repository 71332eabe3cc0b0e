package perftest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
)

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
}

// Defaults of TraceConfig.
const (
	DefaultTraceBufferKB    = 65536
	DefaultTraceMaxDuration = 30 * time.Minute
)

// DefaultTraceCategories are the atrace categories a trace records unless
// TraceConfig.Categories says otherwise: graphics, views (Choreographer's
// doFrame and its traversals), input, the activity and window managers,
// binder transactions and the runtime (GC, lock contention).
var DefaultTraceCategories = []string{"gfx", "view", "input", "am", "wm", "binder_driver", "dalvik"}

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
			return tc, fmt.Errorf("perftest: trace: category %q is not an atrace category name (a lower-case letter, then lower-case letters, digits and '_', at most 32)", clipText(c))
		}
		if seen[c] {
			return tc, fmt.Errorf("perftest: trace: category %q given twice", c)
		}
		seen[c] = true
	}
	tc.Categories = slices.Clone(tc.Categories)
	return tc, nil
}

// traceRun is the collector's state of the session's trace.
type traceRun struct {
	cfg      TraceConfig
	pid      int
	remote   string
	startNs  int64 // host ns the start command went out
	maxEndNs int64 // host ns MaxDuration ends it
	stopNs   int64 // host ns the stop command went out
	a        *trace.Analysis
	why      string // why there is no analysis
	// leasePath is the trace's lease on the phone ("" when it could not
	// be made); lease keeps it fresh while the session runs, on the
	// ticks of leaseTicker.
	leasePath   string
	lease       *traceLease
	leaseTicker *time.Ticker
	// leftovers are the trace files earlier sessions left, to pull at
	// Stop.
	leftovers []leftoverTrace
}

// traceDir is where perfetto may write on every Android version.
const traceDir = "/data/misc/perfetto-traces"

// traceNote records why the session has no (full) trace, as a Result note
// and in Result.Trace.
func (c *collector) traceNote(format string, args ...any) {
	c.note("trace: "+format, args...)
	if t := c.s.res.Trace; t != nil {
		t.Notes = append(t.Notes, fmt.Sprintf(format, args...))
	}
}

// traceNotRecorded says why the session records no trace.
func (c *collector) traceNotRecorded(format string, args ...any) {
	why := fmt.Sprintf(format, args...)
	c.tr.why = why
	c.s.res.Trace.NotRecorded = why
	c.note("trace: not recorded: %s", why)
}

// startTrace starts perfetto in the background, when Config.Trace asks for
// a trace. What goes wrong is a note: everything else is still measured.
func (c *collector) startTrace(ctx context.Context) {
	if c.cfg.Trace == nil {
		return
	}
	c.tr = &traceRun{cfg: *c.cfg.Trace}
	r := c.s.res
	r.Trace = &result.TraceInfo{Open: "open " + trace.PerfettoUI + " in a browser and choose Open trace file (the file stays on your machine)"}
	api := r.Device.API
	if api > 0 && api < 29 {
		c.traceNotRecorded("Android API %d: perfgate records Perfetto traces on Android 10 (API 29) and later, whose perfetto takes a text config", api)
		return
	}
	query, ok := c.probeTrace(ctx, api)
	if !ok {
		return
	}
	// Before this session's perfetto starts: a recording a dead session
	// left would hold the tracing service's resources.
	c.sweepTraces(ctx)
	want := c.traceSources(api, query)
	if len(want) == 0 {
		c.traceNotRecorded("the device's tracing service has none of the data sources the analysis reads")
		return
	}
	c.launchTrace(ctx, api, want)
}

// probeTrace checks that the device has a perfetto whose trace can be
// taken off it, and returns what perfetto --query printed (nil before
// Android 11, API 30, which has no --query).
func (c *collector) probeTrace(ctx context.Context, api int) (query *adbx.Result, ok bool) {
	cmds := []string{"command -v perfetto"}
	if api >= 30 {
		cmds = append(cmds, "perfetto --query")
	}
	out, err := c.s.dev.batch(ctx, cmds)
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if err != nil {
		c.traceNotRecorded("%s: %v", cmds[0], err)
		return nil, false
	}
	if out[0].ExitCode != 0 {
		c.traceNotRecorded("the device has no perfetto (%s)", failure(out[0], cmds[0]))
		return nil, false
	}
	if _, ok := c.s.dev.(puller); !ok {
		c.traceNotRecorded("the device's files cannot be pulled, so its trace could not be read")
		return nil, false
	}
	if len(out) > 1 {
		return &out[1], true
	}
	return nil, true
}

// traceSources are the data sources the trace asks for: those the
// analysis reads that the device's Android has and, when perfetto --query
// listed them, that its tracing service has.
func (c *collector) traceSources(api int, query *adbx.Result) []string {
	want := []string{"linux.ftrace", "linux.process_stats"}
	if api == 0 || api >= 31 {
		want = append(want, "android.surfaceflinger.frametimeline")
	} else {
		c.traceNote("FrameTimeline needs Android 12 (API 31); this device runs API %d, so the trace has no jank types and the steps no jank_frametimeline (scheduling and slices are still recorded)", api)
	}
	if query == nil {
		return want
	}
	if query.ExitCode != 0 {
		c.traceNote("%s", failure(*query, "perfetto --query"))
		return want
	}
	have := parsePerfettoQuery(query.Stdout)
	if len(have) == 0 {
		return want
	}
	var kept []string
	for _, s := range want {
		if slices.Contains(have, s) {
			kept = append(kept, s)
			continue
		}
		c.traceNote("the device's tracing service has no data source %s (perfetto --query does not list it): %s", s, lostWithout(s))
	}
	return kept
}

// launchTrace makes the trace's lease and starts perfetto with the
// sources wanted, in one round trip, and keeps the lease fresh from then
// on.
func (c *collector) launchTrace(ctx context.Context, api int, want []string) {
	r := c.s.res
	c.tr.remote = fmt.Sprintf("%s/perfgate-%s-%d.perfetto-trace", traceDir, c.cfg.Package, time.Now().UnixNano())
	c.tr.leasePath = leaseOf(c.tr.remote)
	liveTraces.Store(traceKey(c.s.dev.serial(), c.tr.remote), true)
	cfgText := perfettoConfig(c.tr.cfg, c.cfg.Package, want)
	r.Trace.Config = cfgText
	r.Trace.DeviceFile = c.tr.remote
	bg := "--background"
	if api >= 33 {
		bg = "--background-wait" // returns once the data sources started
	}
	start := "printf '%s\\n' " + shellQuote(cfgText) + " | perfetto --txt -c - -o " + shellQuote(c.tr.remote) + " " + bg
	// The lease comes first, so that whoever lists the phone's traces
	// sees a trace with its lease.
	touch := "touch " + shellQuote(c.tr.leasePath)
	c.tr.startNs = c.s.now()
	out, err := c.s.dev.batch(ctx, []string{touch, start})
	if err == nil && len(out) != 2 {
		err = fmt.Errorf("batch of 2 commands returned %d results", len(out))
	}
	if err != nil {
		c.traceNotRecorded("perfetto --txt -c - -o %s %s: %v", c.tr.remote, bg, err)
		for _, n := range c.releaseTrace(context.Background(), false) {
			c.traceNote("%s", n)
		}
		return
	}
	if out[0].ExitCode != 0 {
		c.traceNote("the trace's lease could not be made (%s): another session on this phone may take the trace for a leftover once it is %v old", failure(out[0], touch), traceGrace)
		c.tr.leasePath = ""
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(lastLine(string(out[1].Stdout))))
	if out[1].ExitCode != 0 || perr != nil || pid <= 0 {
		c.traceNotRecorded("perfetto refused to start: %s", failure(out[1], "perfetto --txt -c - -o "+c.tr.remote+" "+bg))
		for _, n := range c.releaseTrace(context.Background(), false) {
			c.traceNote("%s", n)
		}
		return
	}
	c.tr.pid = pid
	c.tr.maxEndNs = c.tr.startNs + int64(c.tr.cfg.MaxDuration)
	if c.tr.leasePath != "" {
		t := time.NewTicker(traceLeaseEvery)
		c.tr.lease = c.holdLease(c.tr.leasePath, t.C)
		c.tr.leaseTicker = t
	}
}

// lostWithout says what a trace lacks without a data source.
func lostWithout(source string) string {
	switch source {
	case "android.surfaceflinger.frametimeline":
		return "no jank types (jank_frametimeline not measured)"
	case "linux.ftrace":
		return "no thread states or slices"
	}
	return "the app's processes are found by their layers' names"
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\r\n\t ")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// parsePerfettoQuery lists the data sources under `perfetto --query`'s
// "DATA SOURCES REGISTERED:" heading: the first word of each line but the
// column heads.
func parsePerfettoQuery(b []byte) []string {
	var out []string
	in := false
	for _, line := range strings.Split(string(devtext.Normalize(b)), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "DATA SOURCES REGISTERED"):
			in = true
			continue
		case !in || t == "":
			continue
		case strings.HasSuffix(t, ":") && strings.ToUpper(t) == t:
			in = false // the next section
			continue
		}
		f := strings.Fields(t)[0]
		if f == "NAME" || strings.Trim(f, "=") == "" {
			continue
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// perfettoConfig is the text trace config: one buffer, the data sources
// wanted, and a duration that ends the trace should the session die.
func perfettoConfig(tc TraceConfig, pkg string, sources []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "duration_ms: %d buffers { size_kb: %d fill_policy: RING_BUFFER }", tc.MaxDuration.Milliseconds(), tc.BufferKB)
	for _, s := range sources {
		switch s {
		case "linux.ftrace":
			b.WriteString(` data_sources { config { name: "linux.ftrace" ftrace_config {`)
			for _, ev := range []string{"sched/sched_switch", "sched/sched_waking", "binder/binder_transaction", "binder/binder_transaction_received"} {
				fmt.Fprintf(&b, " ftrace_events: %q", ev)
			}
			for _, c := range tc.Categories {
				fmt.Fprintf(&b, " atrace_categories: %q", c)
			}
			fmt.Fprintf(&b, " atrace_apps: %q compact_sched { enabled: true } } } }", pkg)
		case "linux.process_stats":
			b.WriteString(` data_sources { config { name: "linux.process_stats" process_stats_config { scan_all_processes_on_start: true } } }`)
		default:
			fmt.Fprintf(&b, " data_sources { config { name: %q } }", s)
		}
	}
	return b.String()
}

// stopTrace ends the trace, waits (at most 10 s) for perfetto to write it,
// pulls it into the results folder and reads it; then it pulls what
// earlier sessions left (pullLeftovers). It runs once the lanes have
// stopped; the session's lock is taken only to record the outcome, as a
// process end's log read may still be recording its own.
func (c *collector) stopTrace(ctx context.Context) {
	if c.tr == nil {
		return
	}
	var o traceOutcome
	if c.tr.pid != 0 {
		o = c.fetchTrace(ctx)
	}
	leftovers := c.pullLeftovers(ctx)
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	for _, n := range append(o.notes, leftovers...) {
		c.traceNote("%s", n)
	}
	if c.tr.pid == 0 {
		return
	}
	if o.notRecorded != "" {
		c.traceNotRecorded("%s", o.notRecorded)
		return
	}
	info := c.s.res.Trace
	info.File, info.SizeBytes = o.path, o.size
	c.tr.why, c.tr.a = o.why, o.a
	if a := o.a; a != nil {
		info.Sources, info.NotMeasured, info.Rejected = a.Sources, a.NotMeasured, a.Rejected
		info.Notes = append(info.Notes, a.Notes...)
		for _, k := range slices.Sorted(maps.Keys(a.NotMeasured)) {
			c.note("trace: %s not measured: %s", k, a.NotMeasured[k])
		}
	}
}

// traceOutcome is what stopping the trace gave.
type traceOutcome struct {
	notes       []string
	notRecorded string // why there is no trace file
	path        string
	size        int64
	a           *trace.Analysis
	why         string // why there is no analysis of the file
}

// fetchTrace stops perfetto, pulls the file, removes it from the device
// once the copy is whole, and reads it. A failed or short pull leaves the
// file on the device and says where.
func (c *collector) fetchTrace(ctx context.Context) (o traceOutcome) {
	tr := c.tr
	size, sizeWhy, err := c.stopPerfetto(ctx)
	switch {
	case err != nil:
		o.notRecorded = fmt.Sprintf("stopping perfetto: %v; the trace stays on the phone at %s (a later session with a trace stops and takes it)", err, tr.remote)
		o.notes = c.releaseTrace(ctx, false)
		return o
	case size < 0 && strings.Contains(sizeWhy, "No such file"):
		o.notRecorded = fmt.Sprintf("perfetto left no file at %s (%s)", tr.remote, sizeWhy)
		o.notes = c.releaseTrace(ctx, false)
		return o
	case size == 0:
		// An empty file holds nothing to lose.
		o.notRecorded = fmt.Sprintf("perfetto wrote nothing into %s", tr.remote)
		o.notes = c.releaseTrace(ctx, true)
		return o
	}
	// The trace takes the Result's stem, so that the Result names it
	// (and it the Result) whatever else writes into the folder meanwhile.
	dir, base, st := c.cfg.resultsDir(), result.Base(c.cfg.Name), c.cfg.fileStem()
	bound := size
	if size < 0 {
		// The file holds at most the ring buffer and a little more.
		bound = int64(tr.cfg.BufferKB) * 1024 * 5 / 4
	}
	path, err := c.pullWhole(ctx, tr.remote, size, tracePullDeadline(bound), dir, base, ".perfetto-trace", st)
	if err != nil {
		o.notRecorded = fmt.Sprintf("%v; the trace stays on the phone: adb pull %s", err, tr.remote)
		o.notes = c.releaseTrace(ctx, false)
		return o
	}
	if size < 0 {
		o.notes = append(o.notes, fmt.Sprintf("the trace's size on the phone could not be read (%s), so its copy cannot be told whole: it stays on the phone at %s", sizeWhy, tr.remote))
	}
	o.notes = append(o.notes, c.releaseTrace(ctx, size > 0)...)
	c.readTrace(path, &o)
	return o
}

// stopPerfetto stops perfetto and reads the file's size in the same round
// trip: the size, or -1 and why it could not be read. An error says
// perfetto could not be stopped.
func (c *collector) stopPerfetto(ctx context.Context) (size int64, sizeWhy string, err error) {
	tr := c.tr
	// perfetto writes the file after the signal and exits when it is done:
	// the file is whole only once the process is gone, and its size is
	// read then.
	stop := fmt.Sprintf("kill -TERM %d 2>/dev/null; i=0; while kill -0 %d 2>/dev/null; do if [ $i -ge 100 ]; then echo 'perfetto (pid %d) still running 10 s after SIGTERM' >&2; exit 124; fi; i=$((i+1)); sleep 0.1; done", tr.pid, tr.pid, tr.pid)
	stat := "stat -c %s " + shellQuote(tr.remote)
	tr.stopNs = c.s.now()
	sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	out, err := c.s.dev.batch(sctx, []string{stop, stat})
	cancel()
	if err == nil && len(out) != 2 {
		err = fmt.Errorf("batch of 2 commands returned %d results", len(out))
	}
	if err == nil && out[0].ExitCode != 0 {
		err = errors.New(failure(out[0], "kill -TERM "+strconv.Itoa(tr.pid)))
	}
	if err != nil {
		return -1, "", err
	}
	if err := out[1].Err(stat); err != nil {
		return -1, err.Error(), nil
	}
	n, perr := strconv.ParseInt(strings.TrimSpace(string(out[1].Stdout)), 10, 64)
	if perr != nil || n < 0 {
		return -1, fmt.Sprintf("%s printed %q", stat, clipText(strings.TrimSpace(string(out[1].Stdout)))), nil
	}
	return n, "", nil
}

// readTrace reads the trace pulled to path into o.
func (c *collector) readTrace(path string, o *traceOutcome) {
	fi, err := os.Stat(path)
	if err != nil {
		o.notRecorded = fmt.Sprintf("%s: %v", path, err)
		return
	}
	o.path, o.size = path, fi.Size()
	f, err := os.Open(path)
	if err != nil {
		o.why = "the trace could not be read: " + err.Error()
		o.notes = append(o.notes, o.why)
		return
	}
	defer f.Close()
	a, err := trace.Analyze(f, trace.Options{Package: c.cfg.Package})
	if err != nil {
		o.notes = append(o.notes, fmt.Sprintf("%s: %v", path, err))
		if a == nil || a.Packets == 0 {
			o.why = fmt.Sprintf("the trace %s could not be read: %v", path, err)
			return
		}
	}
	o.a = a
}

// stepClock is the trace's name for the clock of the steps' device times.
func stepClock(source string) (trace.Clock, bool) {
	switch source {
	case "gfxinfo Uptime":
		return trace.Monotonic, true
	case "/proc/uptime":
		return trace.Boottime, true
	}
	return 0, false
}

// traceSpan puts the trace's span on the steps' device clock.
func (c *collector) traceSpan(clk *clockMap) {
	tr := c.tr
	if tr == nil || tr.a == nil || !clk.ok() {
		return
	}
	c.s.res.Trace.StartNs = clk.toDevice(tr.startNs)
	c.s.res.Trace.EndNs = clk.toDevice(min(tr.stopNs, tr.maxEndNs))
}

// traceStep is the step's part of the trace; nil without one (the reason
// goes to the step's catalogue through traceWhy).
func (c *collector) traceStep(st *result.Step) *result.TraceStep {
	tr := c.tr
	if tr == nil || tr.a == nil {
		return nil
	}
	r := c.s.res
	clock, ok := stepClock(r.Clock.Source)
	if !ok {
		c.setWhy(metrics.FamilyTrace, "trace: the steps' device times have no clock the trace knows (clock source "+r.Clock.Source+")")
		return nil
	}
	a := tr.a
	w, err := a.Window(trace.Window{Name: st.Name, Start: st.DeviceStartNs, End: st.DeviceEndNs, Clock: clock})
	if err != nil {
		c.setWhy(metrics.FamilyTrace, "trace: "+err.Error())
		return nil
	}
	ts := &result.TraceStep{Frames: w.Frames, Janky: w.Janky, AppJank: w.AppJank, ByType: w.ByType, NotMeasured: w.NotMeasured}
	// The session as a whole counts frames from the probe on, after the
	// trace began: it is not partial for starting before the trace.
	switch {
	case st.HostStartNs < tr.startNs && st != c.whole:
		ts.Partial = fmt.Sprintf("the trace began %v after the step", time.Duration(tr.startNs-st.HostStartNs).Round(time.Millisecond))
	case st.HostEndNs > tr.maxEndNs:
		ts.Partial = fmt.Sprintf("the trace ended %v before the step (TraceConfig.MaxDuration %v)", time.Duration(st.HostEndNs-tr.maxEndNs).Round(time.Millisecond), tr.cfg.MaxDuration)
	}
	toDev := func(ns int64) int64 {
		v, err := a.ConvertTo(ns, clock)
		if err != nil {
			return 0
		}
		return v
	}
	period := int64(time.Second) / int64(max(1, c.refreshHz))
	polled := c.gfxFrames()
	for _, f := range a.Frames {
		if t := f.Time(); t >= w.Start && t < w.End && joinPolled(polled, toDev(t), period) != nil {
			ts.Joined++
		}
	}
	for _, jf := range w.JankyFrames {
		tf := result.TraceFrame{JankyFrame: jf, DeviceStartNs: toDev(jf.Start), DeviceEndNs: toDev(jf.End)}
		due := toDev(jf.Time())
		tf.AtS = float64(due-st.DeviceStartNs) / 1e9
		tf.Polled = joinPolled(polled, due, period)
		ts.JankyFrames = append(ts.JankyFrames, tf)
	}
	return ts
}

// gfxFrames are the gfxinfo frames the session polled, by IntendedVsync.
func (c *collector) gfxFrames() []frames.Frame {
	var out []frames.Frame
	for _, f := range c.s.res.Frames {
		if f.Source == frames.SourceGfxInfo {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(x, y frames.Frame) int { return cmp.Compare(x.IntendedVsync, y.IntendedVsync) })
	return out
}

// joinPolled is the polled frame whose IntendedVsync is nearest to due,
// within half a period; nil when none is.
func joinPolled(fs []frames.Frame, due, period int64) *frames.Frame {
	i := sort.Search(len(fs), func(k int) bool { return fs[k].IntendedVsync >= due })
	var best *frames.Frame
	bestD := period/2 + 1
	for _, k := range []int{i - 1, i} {
		if k < 0 || k >= len(fs) {
			continue
		}
		d := fs[k].IntendedVsync - due
		if d < 0 {
			d = -d
		}
		if d < bestD {
			best, bestD = &fs[k], d
		}
	}
	if best == nil {
		return nil
	}
	f := *best
	return &f
}

// traceWhy says why a step has no jank_frametimeline; "" when it has one.
func (c *collector) traceWhy(st *result.Step) string {
	switch tr := c.tr; {
	case c.cfg.Trace == nil:
		return "trace: no Perfetto trace recorded (Config.Trace unset; perftest.WithTrace, perfgate record -trace)"
	case tr.why != "":
		return "trace: " + tr.why
	case tr.a == nil:
		return "trace: not read"
	case st.Trace == nil:
		return ""
	case st.Trace.Partial != "":
		return "trace: covers only part of the step: " + st.Trace.Partial
	case st.Trace.NotMeasured["frametimeline"] != "":
		return "trace: " + st.Trace.NotMeasured["frametimeline"]
	}
	return ""
}

// abandonTrace stops a trace whose session failed to start, without
// reading it, and removes its file and its lease: a session that never
// measured has no trace to keep.
func (c *collector) abandonTrace() {
	if c.tr == nil || c.tr.pid == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.s.dev.batch(ctx, []string{fmt.Sprintf("kill -TERM %d", c.tr.pid)})
	c.releaseTrace(ctx, true)
	c.tr.pid = 0
}
