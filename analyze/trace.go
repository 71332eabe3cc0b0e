package analyze

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/perfgate/perfgate/android/dumpsys"
	"github.com/perfgate/perfgate/internal/excerpt"
	"github.com/perfgate/perfgate/trace"
)

// Trace is what `perfgate analyze trace` prints: the analysis of the
// trace in File and the step the command bounds.
type Trace struct {
	File     string          `json:"file"`
	Analysis *trace.Analysis `json:"analysis"`
	Step     *trace.Step     `json:"step"`
	// ReadErr is the error that stopped the reading of a trace cut short
	// after some packets: the analysis covers the packets before it.
	ReadErr error `json:"-"`
}

// TraceOptions say what ReadTrace analyses; errors name them as the
// flags of `perfgate analyze trace`.
type TraceOptions struct {
	// Package is the app's; "" analyses every app that drew frames.
	Package string
	// TopSlices is how many slices are listed per janky frame.
	TopSlices int
	// From and To bound the step, as TraceWindow reads them, on Clock
	// ("boottime" or "monotonic") for integer times.
	From, To, Clock string
	// Marker and MainThreads are trace.Options': what takes each atrace
	// marker, and the app's main threads kept whole.
	Marker      func(ts int64, tid int32, line []byte)
	MainThreads bool
}

// ReadTrace reads the Perfetto trace at path (gzipped too) as a stream
// and analyses the step o bounds.
func ReadTrace(path string, o TraceOptions) (*Trace, error) {
	if o.Package != "" {
		if err := dumpsys.ValidatePackage(o.Package); err != nil {
			return nil, fmt.Errorf("-package: %w", err)
		}
	}
	var c trace.Clock
	if err := c.UnmarshalText([]byte(o.Clock)); err != nil || (c != trace.Boottime && c != trace.Monotonic) {
		return nil, fmt.Errorf("-clock %s: want boottime or monotonic", excerpt.Quote(o.Clock))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, readErr := trace.Analyze(f, trace.Options{Package: o.Package, TopSlices: o.TopSlices, Marker: o.Marker, MainThreads: o.MainThreads})
	if readErr != nil && a.Packets == 0 {
		return nil, fmt.Errorf("%s: %w", path, readErr)
	}
	w, err := TraceWindow(a, o.From, o.To, c)
	if err != nil {
		return nil, err
	}
	step, err := a.Window(w)
	if err != nil {
		return nil, err
	}
	return &Trace{File: path, Analysis: a, Step: step, ReadErr: readErr}, nil
}

// WriteJSON writes t as indented JSON.
func (t *Trace) WriteJSON(w io.Writer) error { return writeIndented(w, t, true) }

// WriteText writes t as trace.WriteText does.
func (t *Trace) WriteText(w io.Writer) error {
	return trace.WriteText(w, t.Analysis, []*trace.Step{t.Step})
}

// TraceWindow is the step from and to bound (the whole trace without
// them), both ends on one clock. Each is "", a duration since the trace's
// start (1.5s), or an integer time in ns on clock; errors name them as the
// -from and -to flags.
func TraceWindow(a *trace.Analysis, from, to string, clock trace.Clock) (trace.Window, error) {
	w := trace.Window{Name: "trace", Start: a.Start, End: a.End + 1, Clock: a.TraceClock}
	if from == "" && to == "" {
		return w, nil
	}
	w.Name = "window"
	start, clk, err := traceTime(from, a.Start, a, clock)
	if err != nil {
		return w, fmt.Errorf("-from: %w", err)
	}
	end, clk2, err := traceTime(to, a.End+1, a, clock)
	if err != nil {
		return w, fmt.Errorf("-to: %w", err)
	}
	// Both ends on one clock: a relative or missing end is on the trace
	// clock, so it moves onto the other end's clock through the trace.
	if clk != clk2 {
		if clk != a.TraceClock {
			if start, err = a.Convert(start, clk); err != nil {
				return w, fmt.Errorf("-from: %w", err)
			}
		}
		if clk2 != a.TraceClock {
			if end, err = a.Convert(end, clk2); err != nil {
				return w, fmt.Errorf("-to: %w", err)
			}
		}
		clk = a.TraceClock
	}
	if end <= start {
		return w, fmt.Errorf("-to %s is not after -from %s", excerpt.Quote(to), excerpt.Quote(from))
	}
	w.Start, w.End, w.Clock = start, end, clk
	return w, nil
}

// traceTime reads a -from/-to value: "" is def on the trace clock, a
// duration is since the trace's start, an integer is ns on clock.
func traceTime(s string, def int64, a *trace.Analysis, clock trace.Clock) (int64, trace.Clock, error) {
	if s == "" {
		return def, a.TraceClock, nil
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		if v <= 0 {
			return 0, 0, fmt.Errorf("%s is not a time", excerpt.Quote(s))
		}
		return v, clock, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, 0, fmt.Errorf("%s is neither a duration since the trace's start (1.5s) nor a time in ns", excerpt.Quote(s))
	}
	return a.Start + int64(d), a.TraceClock, nil
}
