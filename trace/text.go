package trace

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// PerfettoUI is where anyone can open a trace file: in the browser, the
// file never leaves the machine.
const PerfettoUI = "https://ui.perfetto.dev"

// WriteText writes the analysis and its steps for people: what the trace
// holds, each layer's jank by type, and per step its janky frames with the
// main thread's states and longest slices. Times are seconds since the
// trace's start; lengths are ms.
func WriteText(w io.Writer, a *Analysis, steps []*Step) error {
	tw := textWriter{bufio.NewWriter(w), a}
	tw.header()
	for _, s := range steps {
		tw.step(s)
	}
	tw.p("\nopen the trace in the Perfetto UI: %s (Open trace file)\n", PerfettoUI)
	return tw.bw.Flush()
}

// textWriter writes one analysis for WriteText.
type textWriter struct {
	bw *bufio.Writer
	a  *Analysis
}

func (tw textWriter) p(format string, args ...any) { fmt.Fprintf(tw.bw, format, args...) }

// header writes what the trace holds and each layer's jank.
func (tw textWriter) header() {
	a, p := tw.a, tw.p
	p("trace: %s clock, %.3f s, %d packets; sources: %s\n", a.TraceClock, float64(a.End-a.Start)/1e9, a.Packets, orNone(strings.Join(a.Sources, ", ")))
	if a.Device != "" {
		p("device: %s\n", a.Device)
	}
	if a.SDK > 0 {
		p("android: API %d\n", a.SDK)
	}
	if a.Kernel != "" {
		p("kernel: %s\n", a.Kernel)
	}
	if a.Package != "" {
		p("package: %s (pids %s)\n", a.Package, orNone(joinInts(a.AppPIDs)))
	}
	for _, k := range sortedKeys(a.NotMeasured) {
		p("not measured: %s: %s\n", k, a.NotMeasured[k])
	}
	if len(a.Rejected) > 0 {
		var parts []string
		for _, k := range sortedKeys(a.Rejected) {
			parts = append(parts, fmt.Sprintf("%s %d", k, a.Rejected[k]))
		}
		p("rejected: %s\n", strings.Join(parts, ", "))
	}
	for _, n := range a.Notes {
		p("note: %s\n", n)
	}
	for _, l := range a.Layers {
		proc := ""
		if l.Process != "" {
			proc = " " + l.Process
		}
		p("layer %s (pid %d%s): %d frames, %d janky, %d app jank; %s\n", l.Name, l.PID, proc, l.Frames, l.Janky, l.AppJank, orNone(byType(l.ByType)))
	}
}

// step writes a step's jank by type and its janky frames.
func (tw textWriter) step(s *Step) {
	tw.p("\nstep %s [%+.3f s, %+.3f s): %d frames, %d janky, %d app jank (App Deadline Missed, App Resynced Jitter)\n",
		s.Name, secs(s.Start-tw.a.Start), secs(s.End-tw.a.Start), s.Frames, s.Janky, s.AppJank)
	if _, ok := s.NotMeasured["frametimeline"]; ok {
		tw.p("  frames not measured\n")
		return
	}
	tw.p("  by type: %s\n", orNone(byType(s.ByType)))
	for i := range s.JankyFrames {
		tw.jankyFrame(&s.JankyFrames[i])
	}
}

// jankyFrame writes a janky frame, its main thread's states and its
// longest slices.
func (tw textWriter) jankyFrame(jf *JankyFrame) {
	app := ""
	if jf.App {
		app = " [app jank]"
	}
	exp := ""
	if jf.ExpectedEnd != 0 {
		exp = fmt.Sprintf(", expected %.1f ms", ms(jf.ExpectedEnd-jf.ExpectedStart))
	}
	where := ""
	if len(tw.a.Layers) > 1 {
		where = fmt.Sprintf(" (%s, pid %d)", jf.Layer, jf.PID)
	}
	tw.p("  %+.3f s frame %d%s: %.1f ms%s; %s; %s%s\n", secs(jf.Time()-tw.a.Start), jf.Token, where,
		ms(jf.Dur()), exp, jf.Jank, jf.Present, app)
	if st := jf.MainThread; st != nil {
		var parts []string
		for k := StateRunning; k < numStates; k++ {
			if v := st.Get(k); v > 0 {
				parts = append(parts, fmt.Sprintf("%s %.1f", k, ms(v)))
			}
		}
		if st.UnknownNs > 0 {
			parts = append(parts, fmt.Sprintf("unknown %.1f", ms(st.UnknownNs)))
		}
		tw.p("    main thread (ms): %s\n", strings.Join(parts, ", "))
	}
	if len(jf.Slices) == 0 {
		return
	}
	if strings.HasPrefix(jf.SlicesFrom, "Choreographer#doFrame") {
		tw.p("    slices under %s:\n", jf.SlicesFrom)
	} else {
		tw.p("    slices of the %s:\n", jf.SlicesFrom)
	}
	for _, sl := range jf.Slices {
		tw.p("      %7.1f ms  %s\n", ms(sl.Dur()), sl.Name)
	}
}

func secs(ns int64) float64 { return float64(ns) / 1e9 }
func ms(ns int64) float64   { return float64(ns) / 1e6 }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func joinInts(v []int32) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Itoa(int(x))
	}
	return strings.Join(parts, ", ")
}

// byType lists jank counts in the order of the jank type bits.
func byType(m map[string]int) string {
	var parts []string
	names := []string{"Unspecified"}
	for _, n := range jankNames {
		names = append(names, n.name)
	}
	seen := map[string]bool{}
	for _, n := range names {
		if c, ok := m[n]; ok {
			parts = append(parts, fmt.Sprintf("%s %d", n, c))
			seen[n] = true
		}
	}
	for _, n := range sortedKeys(m) {
		if !seen[n] {
			parts = append(parts, fmt.Sprintf("%s %d", n, m[n]))
		}
	}
	return strings.Join(parts, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
