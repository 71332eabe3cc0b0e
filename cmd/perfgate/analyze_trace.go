package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/perfgate/perfgate/analyze"
	"github.com/perfgate/perfgate/trace"
)

const analyzeTraceUsage = `usage: perfgate analyze trace [-package PKG] [-from T] [-to T] [-clock boottime|monotonic] [-top N] [-json] FILE

FILE is a Perfetto trace (as 'adb shell perfetto' writes it; gzipped too).
Prints Android's own FrameTimeline jank classification of the app's frames
(every layer's without -package), and for each janky frame the app main
thread's states and its longest slices under Choreographer#doFrame.

-from and -to bound the step: a duration (1.5s) is since the trace's start,
an integer is an absolute time in ns on -clock (monotonic is the clock of
dumpsys gfxinfo and of perfgate's steps). Without them the step is the whole
trace.

`

// traceHeapLimit is the soft limit analyze trace puts on the heap.
const traceHeapLimit = 128 << 20

func analyzeTrace(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("analyze trace", analyzeTraceUsage, stderr)
	pkg := fs.String("package", "", "the app's package (default: every app that drew frames)")
	from := fs.String("from", "", "the step's start: a duration since the trace's start, or ns on -clock")
	to := fs.String("to", "", "the step's end (excluded), like -from")
	clock := fs.String("clock", "boottime", "the clock of integer -from/-to: boottime or monotonic")
	top := fs.Int("top", trace.DefaultTopSlices, "slices listed per janky frame")
	asJSON := fs.Bool("json", false, "print JSON instead of text")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("analyze trace: give exactly one trace file")
	}
	if *top <= 0 {
		return fmt.Errorf("analyze trace: -top %d, want > 0", *top)
	}
	// What an analysis keeps is small (the frames, the main threads' events
	// at a few bytes each) next to the garbage decoding a large file goes
	// through; a soft limit on the heap has the collector hand that back
	// before the process grows to twice what it keeps. A 2.5 GB trace
	// without -package: 172 MB resident instead of 296 MB, in the same
	// time. The user's GOMEMLIMIT wins.
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(traceHeapLimit))
	}
	t, err := analyze.ReadTrace(fs.Arg(0), analyze.TraceOptions{Package: *pkg, TopSlices: *top, From: *from, To: *to, Clock: *clock})
	if err != nil {
		return fmt.Errorf("analyze trace: %w", err)
	}
	write := t.WriteText
	if *asJSON {
		write = t.WriteJSON
	}
	if err := write(stdout); err != nil {
		return err
	}
	if t.ReadErr != nil {
		return fmt.Errorf("analyze trace: %s: %w (the analysis above covers the packets before it)", t.File, t.ReadErr)
	}
	return nil
}
