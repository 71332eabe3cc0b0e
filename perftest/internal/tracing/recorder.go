// Package tracing records a session's Perfetto trace on an Android phone:
// it starts the phone's perfetto in the background with a text config,
// stops it, pulls the file whole into the results folder, reads it, and
// places each step in it. It also keeps the trace's lease on the phone
// and takes the traces that sessions which died left there (leftover.go).
//
// A session drives one Recorder through its life:
//
//	r := tracing.Start(ctx, env, tracing.Config{Package: pkg, BufferKB: 65536, …})
//	res.Trace = r.Info()
//	… the session measures …
//	r.Stop(ctx, tracing.Dest{Dir: dir, Base: base, Stem: stem}, &mu)
//	r.Span(toDevice)
//	st.Trace, why = r.Step(st, tracing.StepInput{…})
//
// What goes wrong is a note of the Result, never an error: everything
// else is still measured.
package tracing

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/android/devtext"
	"github.com/perfgate/perfgate/perftest/internal/devcmd"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/frametiming"
	"github.com/perfgate/perfgate/trace/sections"
)

// Config is what the trace records: the session's trace settings, with
// their defaults filled and checked, and the app it traces.
type Config struct {
	// Package is the app whose sections (atrace_apps) and frames the
	// trace holds.
	Package string
	// BufferKB is the ring buffer's size in KiB.
	BufferKB int
	// Categories are the atrace categories, each already checked to be a
	// category name.
	Categories []string
	// MaxDuration ends the trace on the device should the session die.
	MaxDuration time.Duration
	// Sections are the app's trace sections each step measures, checked.
	Sections []sections.Spec
}

// Env is what a Recorder takes from its session: the phone, the session's
// clock and where its notes go.
type Env struct {
	// Serial names the phone: a trace this process records on it is never
	// a leftover to a session of this process.
	Serial string
	// API is the phone's Android API level, 0 when unknown.
	API int
	// Batch runs cmds in ONE round trip and returns each one's result.
	Batch func(ctx context.Context, cmds []string) ([]adbx.Result, error)
	// Pull copies the device file remote to w (adb pull); nil when the
	// device's files cannot be pulled, and then there is no trace.
	Pull func(ctx context.Context, remote string, w io.Writer) error
	// Now is host ns since the session started (monotonic).
	Now func() int64
	// Note adds a note to the Result.
	Note func(msg string)
}

// Recorder is the session's Perfetto trace: perfetto on the phone, the
// trace's lease there, and once stopped the trace's analysis.
type Recorder struct {
	env  Env
	cfg  Config
	info *result.TraceInfo

	pid      int
	remote   string
	startNs  int64 // host ns the start command went out
	maxEndNs int64 // host ns MaxDuration ends it
	stopNs   int64 // host ns the stop command went out
	a        *trace.Analysis
	timing   *frametiming.Timing // the frames' Macrobenchmark figures
	secs     *appSections        // the app's sections, when Config.Sections asks
	why      string              // why there is no analysis
	// leasePath is the trace's lease on the phone ("" when it could not
	// be made); lease keeps it fresh while the session runs, on the
	// ticks of leaseTicker.
	leasePath   string
	lease       *lease
	leaseTicker *time.Ticker
	// leftovers are the trace files earlier sessions left, to pull at
	// Stop.
	leftovers []leftoverTrace
}

// traceDir is where perfetto may write on every Android version.
const traceDir = "/data/misc/perfetto-traces"

// Start starts perfetto in the background (see perftest.TraceConfig). What
// goes wrong is a note, and the Recorder then records no trace; it is
// never nil.
func Start(ctx context.Context, env Env, cfg Config) *Recorder {
	r := &Recorder{env: env, cfg: cfg}
	r.info = &result.TraceInfo{Open: "open " + trace.PerfettoUI + " in a browser and choose Open trace file (the file stays on your machine)"}
	r.start(ctx)
	return r
}

// Info is the trace's part of the Result (Result.Trace); the Recorder
// keeps it up to date.
func (r *Recorder) Info() *result.TraceInfo { return r.info }

// note records why the session has no (full) trace, as a Result note and
// in Result.Trace.
func (r *Recorder) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	r.env.Note("trace: " + msg)
	r.info.Notes = append(r.info.Notes, msg)
}

// noteAll records each of notes.
func (r *Recorder) noteAll(notes []string) {
	for _, n := range notes {
		r.note("%s", n)
	}
}

// notRecorded says why the session records no trace.
func (r *Recorder) notRecorded(format string, args ...any) {
	why := fmt.Sprintf(format, args...)
	r.why = why
	r.info.NotRecorded = why
	r.env.Note("trace: not recorded: " + why)
}

// start checks the device's perfetto, takes what earlier sessions left,
// picks the data sources and starts the recording.
func (r *Recorder) start(ctx context.Context) {
	api := r.env.API
	if api > 0 && api < 29 {
		r.notRecorded("Android API %d: perfgate records Perfetto traces on Android 10 (API 29) and later, whose perfetto takes a text config", api)
		return
	}
	query, ok := r.probe(ctx, api)
	if !ok {
		return
	}
	// Before this session's perfetto starts: a recording a dead session
	// left would hold the tracing service's resources.
	r.sweep(ctx)
	want := r.sources(api, query)
	if len(want) == 0 {
		r.notRecorded("the device's tracing service has none of the data sources the analysis reads")
		return
	}
	if len(r.cfg.Sections) > 0 { // an app's Perfetto SDK registers track_event as it starts
		want = append(want, "track_event")
	}
	r.launch(ctx, api, want)
}

// probe checks that the device has a perfetto whose trace can be taken
// off it, and returns what perfetto --query printed (nil before Android
// 11, API 30, which has no --query).
func (r *Recorder) probe(ctx context.Context, api int) (query *adbx.Result, ok bool) {
	cmds := []string{"command -v perfetto"}
	if api >= 30 {
		cmds = append(cmds, "perfetto --query")
	}
	out, err := r.env.Batch(ctx, cmds)
	if err == nil && len(out) != len(cmds) {
		err = fmt.Errorf("batch of %d commands returned %d results", len(cmds), len(out))
	}
	if err != nil {
		r.notRecorded("%s: %v", cmds[0], err)
		return nil, false
	}
	if out[0].ExitCode != 0 {
		r.notRecorded("the device has no perfetto (%s)", devcmd.Failure(out[0], cmds[0]))
		return nil, false
	}
	if r.env.Pull == nil {
		r.notRecorded("the device's files cannot be pulled, so its trace could not be read")
		return nil, false
	}
	if len(out) > 1 {
		return &out[1], true
	}
	return nil, true
}

// sources are the data sources the trace asks for: those the analysis
// reads that the device's Android has and, when perfetto --query listed
// them, that its tracing service has.
func (r *Recorder) sources(api int, query *adbx.Result) []string {
	want := []string{"linux.ftrace", "linux.process_stats"}
	if api == 0 || api >= 31 {
		want = append(want, "android.surfaceflinger.frametimeline")
	} else {
		r.note("FrameTimeline needs Android 12 (API 31); this device runs API %d, so the trace has no jank types and the steps no jank_frametimeline (scheduling and slices are still recorded)", api)
	}
	if query == nil {
		return want
	}
	if query.ExitCode != 0 {
		r.note("%s", devcmd.Failure(*query, "perfetto --query"))
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
		r.note("the device's tracing service has no data source %s (perfetto --query does not list it): %s", s, lostWithout(s))
	}
	return kept
}

// launch makes the trace's lease and starts perfetto with the sources
// wanted, in one round trip, and keeps the lease fresh from then on.
func (r *Recorder) launch(ctx context.Context, api int, want []string) {
	r.remote = fmt.Sprintf("%s/perfgate-%s-%d.perfetto-trace", traceDir, r.cfg.Package, time.Now().UnixNano())
	r.leasePath = leaseOf(r.remote)
	liveTraces.Store(traceKey(r.env.Serial, r.remote), true)
	cfgText := perfettoConfig(r.cfg, want)
	r.info.Config = cfgText
	r.info.DeviceFile = r.remote
	bg := "--background"
	if api >= 33 {
		bg = "--background-wait" // returns once the data sources started
	}
	start := "printf '%s\\n' " + adbx.Quote(cfgText) + " | perfetto --txt -c - -o " + adbx.Quote(r.remote) + " " + bg
	// The lease comes first, so that whoever lists the phone's traces
	// sees a trace with its lease.
	touch := "touch " + adbx.Quote(r.leasePath)
	r.startNs = r.env.Now()
	out, err := r.env.Batch(ctx, []string{touch, start})
	if err == nil && len(out) != 2 {
		err = fmt.Errorf("batch of 2 commands returned %d results", len(out))
	}
	if err != nil {
		r.notRecorded("perfetto --txt -c - -o %s %s: %v", r.remote, bg, err)
		r.noteAll(r.release(context.Background(), false))
		return
	}
	if out[0].ExitCode != 0 {
		r.note("the trace's lease could not be made (%s): another session on this phone may take the trace for a leftover once it is %v old", devcmd.Failure(out[0], touch), devcmd.LeftoverGrace)
		r.leasePath = ""
	}
	pid, perr := strconv.Atoi(strings.TrimSpace(lastLine(string(out[1].Stdout))))
	if out[1].ExitCode != 0 || perr != nil || pid <= 0 {
		r.notRecorded("perfetto refused to start: %s", devcmd.Failure(out[1], "perfetto --txt -c - -o "+r.remote+" "+bg))
		r.noteAll(r.release(context.Background(), false))
		return
	}
	r.pid = pid
	r.maxEndNs = r.startNs + int64(r.cfg.MaxDuration)
	if r.leasePath != "" {
		t := time.NewTicker(leaseEvery)
		r.lease = r.holdLease(r.leasePath, t.C)
		r.leaseTicker = t
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
func perfettoConfig(cfg Config, sources []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "duration_ms: %d buffers { size_kb: %d fill_policy: RING_BUFFER }", cfg.MaxDuration.Milliseconds(), cfg.BufferKB)
	for _, s := range sources {
		switch s {
		case "linux.ftrace":
			b.WriteString(` data_sources { config { name: "linux.ftrace" ftrace_config {`)
			for _, ev := range []string{"sched/sched_switch", "sched/sched_waking", "binder/binder_transaction", "binder/binder_transaction_received"} {
				fmt.Fprintf(&b, " ftrace_events: %q", ev)
			}
			for _, c := range cfg.Categories {
				fmt.Fprintf(&b, " atrace_categories: %q", c)
			}
			fmt.Fprintf(&b, " atrace_apps: %q compact_sched { enabled: true } } } }", cfg.Package)
		case "linux.process_stats":
			b.WriteString(` data_sources { config { name: "linux.process_stats" process_stats_config { scan_all_processes_on_start: true } } }`)
		default:
			fmt.Fprintf(&b, " data_sources { config { name: %q } }", s)
		}
	}
	return b.String()
}
