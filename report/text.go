package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
	"github.com/perfgate/perfgate/trace"
)

// WriteSteps writes the StepLine of each step of r, a line each, those
// with a failed action (a budget.KindAction verdict) marked FAIL.
func WriteSteps(w io.Writer, r *result.Result) error {
	failed := map[string]bool{}
	for _, v := range r.Verdicts {
		if v.Kind == budget.KindAction {
			failed[v.Step] = true
		}
	}
	var b strings.Builder
	for _, st := range r.Steps {
		b.WriteString(StepLine(st, failed[st.Name]) + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// StepLine is a step's one-line plain-text summary: "ok  ", "FAIL" (failed,
// or a crash the step did not expect) or "STOP" (unfinished), the step's
// name and length, its startup, its Figures, its crashes, late ticks, and
// why what is missing was not measured.
func StepLine(st *result.Step, failed bool) string {
	var b strings.Builder
	mark, cut := "ok  ", ""
	if failed || st.Crashed() && !st.CrashExpected {
		mark = "FAIL"
	}
	if st.Unfinished {
		mark, cut = "STOP", ", unfinished"
	}
	fmt.Fprintf(&b, "%s %s (%v%s):", mark, st.Name, st.Duration().Round(time.Millisecond), cut)
	if su := st.Startup; su != nil {
		fmt.Fprintf(&b, " %s start %.0f ms (median of %d)", su.Kind, su.InitialDisplayMs, len(su.Iterations))
		if su.FullDisplayMs > 0 {
			fmt.Fprintf(&b, ", fully drawn %.0f ms", su.FullDisplayMs)
		}
		b.WriteString(";")
	}
	f := stepFigures(st)
	fmt.Fprintf(&b, " %s; %s;", strings.Join(f.parts[:3], ", "), strings.Join(f.parts[3:], "; "))
	if st.Crashed() {
		writeCrashes(&b, st)
	}
	if t := st.Ticks; t.Late > 0 {
		fmt.Fprintf(&b, " %d of %d ticks late (spacing max %.0fms);", t.Late, t.Ticks, t.MaxSpacingMs)
	}
	if why := f.why(); why != "" {
		fmt.Fprintf(&b, " %s;", why)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// writeCrashes is a step line's "CRASHED n times (reason cause, …);".
func writeCrashes(b *strings.Builder, st *result.Step) {
	expected := ""
	if st.CrashExpected {
		expected = " (expected)"
	}
	fmt.Fprintf(b, " CRASHED %d times%s", len(st.Crashes), expected)
	for i, c := range st.Crashes {
		sep := " ("
		if i > 0 {
			sep = ", "
		}
		b.WriteString(sep + c.Reason)
		if c.Cause != "" {
			b.WriteString(" " + c.Cause)
		}
	}
	b.WriteString(");")
}

// Figures are the figures a summary line shows for a step: frames, FPS,
// jank, app CPU and PSS, in that order, each a value or "<label> not
// measured" (unmeasured is never zero, and never left out without a
// word). notMeasured says why, grouped by reason: "not measured: fps, jank
// (frames: the app rendered no frame in the step)"; "" when all were
// measured.
func Figures(st *result.Step) (figures []string, notMeasured string) {
	f := stepFigures(st)
	return f.parts, f.why()
}

// figures is a summary line's list of a step's metrics, with those not
// measured named in the order added.
type figures struct {
	st     *result.Step
	parts  []string
	absent []metrics.Name
}

// add appends the named metric, formatted, or says it was not measured.
func (f *figures) add(name metrics.Name, label string, format func(float64) string) {
	for _, m := range f.st.Metrics() {
		if m.Name == name {
			f.parts = append(f.parts, format(m.Value))
			return
		}
	}
	f.parts = append(f.parts, label+" not measured")
	f.absent = append(f.absent, name)
}

// why says why the metrics added were not measured, grouped by reason;
// "" when all were.
func (f *figures) why() string {
	if len(f.absent) == 0 {
		return ""
	}
	reason := map[metrics.Name]string{}
	for _, a := range f.st.Absent() {
		reason[a.Name] = a.Reason
	}
	var order []string
	names := map[string][]string{}
	for _, n := range f.absent {
		r := reason[n]
		if names[r] == nil {
			order = append(order, r)
		}
		names[r] = append(names[r], string(n))
	}
	var groups []string
	for _, r := range order {
		g := strings.Join(names[r], ", ")
		if r != "" {
			g += " (" + r + ")"
		}
		groups = append(groups, g)
	}
	return "not measured: " + strings.Join(groups, "; ")
}

// stepFigures are the figures of Figures.
func stepFigures(st *result.Step) *figures {
	f := &figures{st: st}
	f.add(metrics.Frames, "frames", func(v float64) string {
		if v == 0 {
			// Said where it shows, not only as the reason of fps and jank.
			return "0 frames (the app drew none in the step: is it on screen?)"
		}
		return fmt.Sprintf("%.0f frames", v)
	})
	f.add(metrics.FPS, "fps", func(v float64) string { return fmt.Sprintf("%.1f fps", v) })
	f.add(metrics.Jank, "jank", func(v float64) string { return fmt.Sprintf("jank %.0f (%s)", v, st.Frames().JankDefinition) })
	f.add(metrics.CPU, "cpu", func(v float64) string { return fmt.Sprintf("cpu %.1f%%", v) })
	f.add(metrics.PSSMax, "pss max", func(v float64) string { return fmt.Sprintf("pss max %.0f KiB", v) })
	return f
}

// WriteHealth writes, a line each, how regularly the session sampled, the
// app's process ends that were not crashes, every note of the Result (the
// options the session changed, the sources it fell back on), and where
// its trace is with what each step's FrameTimeline says, or why there is
// no trace.
func WriteHealth(w io.Writer, r *result.Result) error {
	var b strings.Builder
	if t := r.Whole; t != nil {
		fmt.Fprintf(&b, "ticks: %d every %gms, %d late; spacing p95 %.0fms, max %.0fms; round trip max %.0fms\n",
			t.Ticks.Ticks, r.Config.IntervalMs, t.Ticks.Late, t.Ticks.P95SpacingMs, t.Ticks.MaxSpacingMs, t.Ticks.MaxRTTMs)
	}
	for _, e := range r.ProcessEnds {
		fmt.Fprintf(&b, "process end: pid %d in step %q: %s", e.PID, e.Step, strings.ReplaceAll(e.Reason, "_", "-"))
		if e.Cause != "" {
			fmt.Fprintf(&b, " (%s)", e.Cause)
		}
		b.WriteString("\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	writeTrace(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTrace says where the session's trace is and what each step's
// FrameTimeline says, or why there is no trace.
func writeTrace(b *strings.Builder, r *result.Result) {
	t := r.Trace
	if t == nil {
		return
	}
	if t.File == "" {
		fmt.Fprintf(b, "trace: not recorded: %s\n", t.NotRecorded)
		return
	}
	fmt.Fprintf(b, "trace: %s (%.1f MB); open %s and choose Open trace file\n", t.File, float64(t.SizeBytes)/1e6, trace.PerfettoUI)
	for _, st := range r.Steps {
		ts := st.Trace
		if ts == nil {
			continue
		}
		by := make([]string, 0, len(ts.ByType))
		for _, n := range slices.Sorted(maps.Keys(ts.ByType)) {
			by = append(by, fmt.Sprintf("%s %d", n, ts.ByType[n]))
		}
		fmt.Fprintf(b, "trace: %s: %d frames, %d janky, %d app jank (FrameTimeline)", st.Name, ts.Frames, ts.Janky, ts.AppJank)
		if len(by) > 0 {
			fmt.Fprintf(b, "; %s", strings.Join(by, ", "))
		}
		if ts.Partial != "" {
			fmt.Fprintf(b, "; partial: %s", ts.Partial)
		}
		b.WriteString("\n")
	}
}

// LiveText writes a session's live state (perftest.Config.OnTick) as a
// line at most once a second, while a step runs.
type LiveText struct {
	mu   sync.Mutex
	w    io.Writer
	last time.Duration
}

// NewLiveText writes live lines to w.
func NewLiveText(w io.Writer) *LiveText { return &LiveText{w: w} }

// Tick writes s as a line unless a line went out less than a second
// before, or no step runs.
func (l *LiveText) Tick(s result.Live) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// After the step ends the session reports no step, and its figures
	// are of no step at all: such a line would end the output with
	// "frames 0" above a summary of hundreds.
	if s.Step == "" {
		return
	}
	if l.last != 0 && s.Elapsed-l.last < time.Second {
		return
	}
	l.last = s.Elapsed
	// FPS needs two frames and PSS a meminfo read (a running app never
	// has 0): until then they are not measured, not 0.
	fps, pss := "    -", "-"
	if s.Frames >= 2 {
		fps = fmt.Sprintf("%5.1f", s.FPS)
	}
	if s.PSSKB > 0 {
		pss = fmt.Sprint(s.PSSKB)
	}
	fmt.Fprintf(l.w, "%6.1fs  fps %s  jank %3d  cpu %5.1f%%  pss %s KiB  frames %d  gaps %d\n",
		s.Elapsed.Seconds(), fps, s.Jank, s.CPUPct, pss, s.Frames, s.Gaps)
}

// WritePath writes the line that says where a Result went: "result:
// <path>", or "result: not written".
func WritePath(w io.Writer, r *result.Result) {
	if r.Path == "" {
		fmt.Fprintln(w, "result: not written")
		return
	}
	fmt.Fprintf(w, "result: %s\n", r.Path)
}
