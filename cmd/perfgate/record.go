package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/perfgate/perfgate/adbx"
	"github.com/perfgate/perfgate/internal/cliflag"
	"github.com/perfgate/perfgate/internal/clihelp"
	"github.com/perfgate/perfgate/internal/stopsignal"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/report"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/scenario"
	"github.com/perfgate/perfgate/trace/sections"
)

const recordUsage = `usage: perfgate record -package PKG [-serial S] [-duration 10s] [-out result.json] [-adb host:port] [-trace] [-trace-section NAME]...

Records one step named "record" on a device: frames, CPU, memory, traffic and
battery, until -duration passes or Ctrl-C. Prints a live line a second to
stderr and writes the Result (schema perfgate.result/v1) to -out ("-" writes
it to stdout, and the summary to stderr). A Result that cannot be written is
an error. Without -duration, Ctrl-C (or SIGTERM, SIGHUP) is the end of the
recording. With it, a signal before the time is up cuts the step short: it
is marked unfinished, the Result is written all the same, and the exit
status is 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP. With -trace it
also records a Perfetto trace (Android 10+; FrameTimeline jank types on 12+)
beside the Result under its name (result-2.perfetto-trace for result-2.json;
with -out -, result.perfetto-trace or the first free result-N one in the
current folder), and reads it into the Result; -trace-section and
-trace-main-section name the app's trace sections each step measures. A
phone that answers nothing for -give-up (10s) ends the recording with an
error, and the Result keeps every sample taken before.
`

// runRecord is `perfgate record`.
func runRecord(args []string, stdout, stderr io.Writer) error {
	sigs, stop := stopsignal.Notify()
	defer stop()
	return record(sigs, args, stdout, stderr)
}

// recordFlags are `perfgate record`'s flags.
type recordFlags struct {
	fs                         *flag.FlagSet
	serial, pkg, out, server   *string
	source, layer              *string
	duration, interval, giveUp *time.Duration
	wait, unplug, heapDumps    *bool
	trace                      traceOpts
}

func newRecordFlags(stderr io.Writer) *recordFlags {
	fs := newFlagSet("record", recordUsage, stderr)
	return &recordFlags{fs: fs,
		serial:    fs.String("serial", "", "device serial (default $ANDROID_SERIAL, else the only device)"),
		pkg:       fs.String("package", "", "the app's package name (required)"),
		duration:  cliflag.Duration(fs, "duration", 0, "how long to record; 0 records until Ctrl-C"),
		out:       fs.String("out", "result.json", `where to write the Result JSON ("-" for stdout); without -out, result.json or the first free result-N.json`),
		server:    fs.String("adb", "", "adb server host:port (default $ADB_SERVER_SOCKET, else $ANDROID_ADB_SERVER_PORT, else 127.0.0.1:5037)"),
		interval:  cliflag.Duration(fs, "interval", 0, "cheap-lane sampling interval (default 100ms; lowered, with a note, where the device's frame buffers hold less)"),
		source:    fs.String("source", "auto", "frame source: auto, gfxinfo or surfaceflinger"),
		layer:     fs.String("layer", "", "SurfaceFlinger layer to poll (default: picked from --list)"),
		wait:      fs.Bool("wait", false, "start even when the app is not running yet"),
		unplug:    fs.Bool("unplug-battery", false, "tell BatteryService the phone is unplugged while recording (dumpsys battery unplug, reset at the end)"),
		giveUp:    cliflag.Duration(fs, "give-up", 10*time.Second, "end the recording, keeping what it took, once the phone has not answered for this long"),
		trace:     traceFlags(fs),
		heapDumps: fs.Bool("heap-dumps", false, "dump the app's Java heap (debuggable apps) at the start and the end, beside the Result, and name the classes that grew"),
	}
}

// config parses args into the session's configuration.
func (f *recordFlags) config(args []string, onTick func(result.Live)) (perftest.Config, error) {
	if err := clihelp.Parse(f.fs, args); err != nil {
		return perftest.Config{}, err
	}
	switch {
	case f.fs.NArg() > 0:
		return perftest.Config{}, clihelp.Wrong(f.fs, fmt.Errorf("record: unexpected argument %q", f.fs.Arg(0)))
	case *f.pkg == "":
		return perftest.Config{}, clihelp.Wrong(f.fs, errors.New("record: -package is required"))
	case *f.duration < 0:
		return perftest.Config{}, fmt.Errorf("record: -duration %v is negative", *f.duration)
	case *f.interval < 0:
		return perftest.Config{}, fmt.Errorf("record: -interval %v is negative", *f.interval)
	case *f.giveUp <= 0:
		return perftest.Config{}, fmt.Errorf("record: -give-up %v: want a positive duration such as 10s", *f.giveUp)
	case *f.out == "":
		return perftest.Config{}, errors.New(`record: -out is empty (give a file, or "-" for stdout)`)
	}
	if !flagSet(f.fs, "out") {
		*f.out = freeName(*f.out)
	}
	tc, err := f.trace.config(*f.duration)
	if err != nil {
		return perftest.Config{}, fmt.Errorf("record: %w", err)
	}
	traceFile := ""
	if tc != nil && *f.out == "-" {
		// No Result file to go beside: the trace takes the name a Result
		// without -out would.
		traceFile = strings.TrimSuffix(freeName("result.json"), ".json") + ".perfetto-trace"
	}
	src := perftest.FrameSource(*f.source)
	switch src {
	case "auto":
		src = perftest.SourceAuto
	case perftest.SourceGfxInfo, perftest.SourceSurfaceFlinger:
	default:
		return perftest.Config{}, fmt.Errorf("record: -source %q: want auto, gfxinfo or surfaceflinger", *f.source)
	}
	cfg := perftest.Config{Package: *f.pkg, Name: "record", ResultFile: *f.out, Interval: *f.interval, FrameSource: src,
		Layer: *f.layer, WaitForApp: *f.wait, GiveUpAfter: *f.giveUp, OnTick: onTick, Trace: tc, TraceFile: traceFile, HeapDumps: *f.heapDumps}
	cfg.Energy.UnplugBattery = *f.unplug
	return cfg, nil
}

// flagSet reports whether the command line gave the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// freeName is path, a Result file's (.json), when no file of its name is
// there (the Result, its folded stacks, its Perfetto trace: see
// result.StemFree), else the first of path-2, path-3 … (before the
// extension) that is free so: a Result and the files it links are
// written to names the command line did not give only when that
// replaces nothing.
func freeName(path string) string {
	stem := strings.TrimSuffix(path, ".json")
	name := stem
	for n := 2; !result.StemFree(name); n++ {
		name = fmt.Sprintf("%s-%d", stem, n)
	}
	return name + ".json"
}

// record runs until the first signal from sigs or -duration passes.
func record(sigs <-chan os.Signal, args []string, stdout, stderr io.Writer) error {
	f := newRecordFlags(stderr)
	cfg, err := f.config(args, report.NewLiveText(stderr).Tick)
	if err != nil {
		return err
	}
	ctx, stopWatch := stopsignal.Watch(sigs)
	defer stopWatch()
	openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// A signal before the recording began ends it with nothing measured.
	setupFailed := func(err error) error {
		if sig, ok := stopsignal.Caught(ctx); ok {
			return exitError{code: sig.ExitCode(), err: fmt.Errorf("record: %v before the recording began; nothing measured", sig)}
		}
		return fmt.Errorf("record: %w", err)
	}
	dev, err := adbx.Open(openCtx, adbx.Options{Serial: *f.serial, Server: *f.server})
	if err != nil {
		return setupFailed(err)
	}
	sess, err := perftest.NewSession(openCtx, dev, cfg)
	if err != nil {
		return setupFailed(err)
	}
	r, cut := scenario.Record(ctx, sess, "record", *f.duration)
	sig, _ := stopsignal.Caught(ctx)
	if err := printRecorded(sess, r, *f.out, cut, stdout, stderr); err != nil {
		return err
	}
	if cut {
		return exitError{code: sig.ExitCode(), err: fmt.Errorf("record: %v %v into -duration %v; the step is marked unfinished (result in %s)",
			sig, r.Step("record").Duration().Round(time.Millisecond), *f.duration, where(r, *f.out))}
	}
	return nil
}

// printRecorded writes the Result to stdout for -out -, prints the
// recording's summary, and fails when the Result was not written or the
// session ended early.
func printRecorded(sess *perftest.Session, r *result.Result, out string, cut bool, stdout, stderr io.Writer) error {
	summary, why := report.StepSummary(r, "record", cut)
	werr := sess.WriteErr()
	info := stdout // the summary lines; stderr when stdout carries the Result
	if out == "-" {
		info = stderr
		b, err := json.MarshalIndent(r, "", "  ")
		if err == nil {
			_, err = stdout.Write(append(b, '\n'))
		}
		werr = errors.Join(werr, err)
		fmt.Fprintf(stderr, "recorded: %s\n", summary)
	} else if werr == nil {
		fmt.Fprintf(stdout, "wrote %s: %s\n", r.Path, summary)
	} else {
		fmt.Fprintf(stdout, "recorded: %s\n", summary)
	}
	if why != "" {
		fmt.Fprintln(info, why)
	}
	report.WriteHealth(info, r)
	if werr != nil {
		return fmt.Errorf("record: the Result was not written: %w", werr)
	}
	if r.Error != "" {
		return fmt.Errorf("record: %s (partial result in %s)", r.Error, where(r, out))
	}
	return nil
}

// where names where the Result went: its file, or stdout for -out -.
func where(r *result.Result, out string) string {
	if out == "-" {
		return "stdout"
	}
	return r.Path
}

// traceOpts are the -trace flags of `perfgate record`.
type traceOpts struct {
	on         *bool
	bufferKB   *int
	categories *string
	max        *time.Duration
	sections   *[]sections.Spec
}

func traceFlags(fs *flag.FlagSet) traceOpts {
	secs := &[]sections.Spec{}
	for _, main := range []bool{false, true} {
		name, on := "trace-section", "any thread"
		if main {
			name, on = "trace-main-section", "its main thread"
		}
		fs.Func(name, "a trace section of the app, on "+on+", each step measures: a name, or a pattern with % (repeatable; turns -trace on)", func(s string) error {
			*secs = append(*secs, sections.Spec{Name: s, MainThread: main})
			return nil
		})
	}
	return traceOpts{sections: secs,
		on:         fs.Bool("trace", false, "also record a Perfetto trace (Android 10+; FrameTimeline jank types on 12+) into the results folder"),
		bufferKB:   fs.Int("trace-buffer-kb", perftest.DefaultTraceBufferKB, "the trace's ring buffer in KiB (1024 to 1048576)"),
		categories: fs.String("trace-categories", strings.Join(perftest.DefaultTraceCategories, ","), "atrace categories, comma-separated"),
		max:        cliflag.Duration(fs, "trace-max", 0, "longest the trace runs on the device (default: -duration plus a minute, else 30m)"),
	}
}

// config is the session's TraceConfig, nil without -trace.
func (o traceOpts) config(duration time.Duration) (*perftest.TraceConfig, error) {
	if !*o.on && len(*o.sections) == 0 {
		return nil, nil
	}
	tc := &perftest.TraceConfig{BufferKB: *o.bufferKB, MaxDuration: *o.max, Sections: *o.sections}
	if tc.MaxDuration == 0 && duration > 0 {
		tc.MaxDuration = duration + time.Minute
	}
	for _, c := range strings.Split(*o.categories, ",") {
		if c = strings.TrimSpace(c); c != "" {
			tc.Categories = append(tc.Categories, c)
		}
	}
	if tc.Categories == nil {
		tc.Categories = []string{}
	}
	if err := tc.Validate(); err != nil {
		return nil, fmt.Errorf("-trace: %w", err)
	}
	return tc, nil
}
