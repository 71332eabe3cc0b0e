package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/perfgate/perfgate/perftest"
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
