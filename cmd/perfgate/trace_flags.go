package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/trace"
)

// traceOpts are the -trace flags of `perfgate record`.
type traceOpts struct {
	on         *bool
	bufferKB   *int
	categories *string
	max        *time.Duration
}

func traceFlags(fs *flag.FlagSet) traceOpts {
	return traceOpts{
		on:         fs.Bool("trace", false, "also record a Perfetto trace (Android 10+; FrameTimeline jank types on 12+) into the results folder"),
		bufferKB:   fs.Int("trace-buffer-kb", perftest.DefaultTraceBufferKB, "the trace's ring buffer in KiB (1024 to 1048576)"),
		categories: fs.String("trace-categories", strings.Join(perftest.DefaultTraceCategories, ","), "atrace categories, comma-separated"),
		max:        fs.Duration("trace-max", 0, "longest the trace runs on the device (default: -duration plus a minute, else 30m)"),
	}
}

// config is the session's TraceConfig, nil without -trace.
func (o traceOpts) config(duration time.Duration) (*perftest.TraceConfig, error) {
	if !*o.on {
		return nil, nil
	}
	tc := &perftest.TraceConfig{BufferKB: *o.bufferKB, MaxDuration: *o.max}
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

// printTrace says where the session's trace is and what each step's
// FrameTimeline says, or why there is no trace.
func printTrace(w io.Writer, r *perftest.Result) {
	t := r.Trace
	if t == nil {
		return
	}
	if t.File == "" {
		fmt.Fprintf(w, "trace: not recorded: %s\n", t.NotRecorded)
		return
	}
	fmt.Fprintf(w, "trace: %s (%.1f MB); open %s and choose Open trace file\n", t.File, float64(t.SizeBytes)/1e6, trace.PerfettoUI)
	for _, st := range r.Steps {
		ts := st.Trace
		if ts == nil {
			continue
		}
		by := make([]string, 0, len(ts.ByType))
		for _, n := range slices.Sorted(maps.Keys(ts.ByType)) {
			by = append(by, fmt.Sprintf("%s %d", n, ts.ByType[n]))
		}
		fmt.Fprintf(w, "trace: %s: %d frames, %d janky, %d app jank (FrameTimeline)", st.Name, ts.Frames, ts.Janky, ts.AppJank)
		if len(by) > 0 {
			fmt.Fprintf(w, "; %s", strings.Join(by, ", "))
		}
		if ts.Partial != "" {
			fmt.Fprintf(w, "; partial: %s", ts.Partial)
		}
		fmt.Fprintln(w)
	}
}
