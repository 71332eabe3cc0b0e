package analyzecmd

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfgate/perfgate/analyze"
	"github.com/perfgate/perfgate/perftest"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
	"github.com/perfgate/perfgate/trace/frametiming"
)

// writeFrameTiming writes the window's frame timing by androidx
// Macrobenchmark's FrameTimingMetric (trace/frametiming): the overrun and
// CPU duration percentiles in ms, each with its definition, or why the
// trace gives none.
func writeFrameTiming(w io.Writer, st frametiming.Step) {
	fmt.Fprintf(w, "\nframe timing (Macrobenchmark FrameTimingMetric), %d frames:\n", st.Frames)
	for _, f := range []struct {
		name, def string
		p         *frametiming.Percentiles
		key       string
	}{
		{"frame_overrun_ms", st.OverrunDefinition, st.Overrun, frametiming.Overrun},
		{"frame_cpu_ms", frametiming.CPUDefinition, st.CPU, frametiming.CPU},
	} {
		if f.p == nil {
			fmt.Fprintf(w, "  %s: not measured: %s\n", f.name, st.NotMeasured[f.key])
			continue
		}
		fmt.Fprintf(w, "  %s: p50 %.2f, p90 %.2f, p95 %.2f, p99 %.2f\n    (%s)\n", f.name, f.p.P50, f.p.P90, f.p.P95, f.p.P99, f.def)
	}
}

// writeLaunches writes the cold starts the trace shows in the window:
// per launch, each phase's start since the trace's, its length, the main
// thread's states and its longest slices; or why there are none.
func writeLaunches(w io.Writer, a *trace.Analysis, pkg string, launches [][]result.StartupPhase, why string) {
	switch {
	case pkg == "":
		fmt.Fprintf(w, "\nstartup phases: not measured: give -package (the phases are read from the app's main thread)\n")
		return
	case len(launches) == 0:
		fmt.Fprintf(w, "\nstartup phases: not measured: the trace shows no launch of %s in the window (no bindApplication, first frame or reportFullyDrawn of its main thread)\n", pkg)
		return
	}
	fmt.Fprintf(w, "\nstartup phases (%s of %s):\n", plural(len(launches), "launch", "launches"), pkg)
	if why != "" {
		fmt.Fprintf(w, "  not measured: %s\n", strings.TrimPrefix(why, "startup phases: "))
	}
	for i, l := range launches {
		fmt.Fprintf(w, "  launch %d:\n", i+1)
		for _, p := range l {
			fmt.Fprintf(w, "    %-22s %+9.3f s %9.1f ms", p.Name, float64(p.DeviceStartNs-a.Start)/1e9, p.DurMs)
			if p.MainThread != nil {
				fmt.Fprintf(w, "; main thread (ms): %s", stateList(p.MainThread))
			}
			for k, s := range p.Slices {
				sep := ", "
				if k == 0 {
					sep = "; longest: "
				}
				fmt.Fprintf(w, "%s%.1f ms %s", sep, s.DurMs, s.Name)
			}
			fmt.Fprintln(w)
		}
	}
}

// stateList is a thread's time per state, in ms, the states it spent no
// time in left out.
func stateList(st *trace.States) string {
	var parts []string
	for _, k := range []trace.ThreadState{trace.StateRunning, trace.StateRunnable, trace.StateSleeping, trace.StateUninterruptible, trace.StateBinder, trace.StateOther, trace.StateUnknown} {
		if v := st.Get(k); v > 0 {
			parts = append(parts, fmt.Sprintf("%s %.1f", k, float64(v)/1e6))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// writeTraceText writes t as trace.WriteText does, with the window's frame
// timing and launches before its closing line.
func writeTraceText(w io.Writer, t *analyze.Trace, c *frametiming.Collector, pkg string) error {
	var b strings.Builder
	if err := t.WriteText(&b); err != nil {
		return err
	}
	text := b.String()
	end := strings.LastIndex(text, "\nopen the trace in the Perfetto UI")
	if end < 0 {
		end = len(text)
	}
	io.WriteString(w, text[:end])
	writeFrameTiming(w, frametiming.Compute(t.Analysis, c).Window(t.Step.Start, t.Step.End))
	launches, why := perftest.TraceLaunches(t.Analysis, t.Step.Start, t.Step.End)
	writeLaunches(w, t.Analysis, pkg, launches, why)
	_, err := io.WriteString(w, text[end:])
	return err
}

// plural is "1 launch", "2 launches".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
