package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// WriteBenchstat writes the results in the Go benchmark text format, one
// line per step, so `benchstat old.txt new.txt` compares two sets of runs:
//
//	device: Google Pixel 7
//	android: 14
//	BenchmarkPerf/test=TestScroll/step=scroll 1 58.3 fps 3 jank 2.02e+07 p95-frame-ns ...
//
// Durations are in ns and memory and traffic in B, so benchstat scales
// them; a step repeated in one session ("scroll#2") is one more run of
// "scroll". Configuration lines are written when they change between
// results. A Result of a session that did not reach Stop
// (result.Result.Unfinished) is no run: a comment line says it was
// left out.
func WriteBenchstat(w io.Writer, results []*result.Result) error {
	bw := bufio.NewWriter(w)
	last := map[string]string{}
	for _, r := range results {
		if r.Unfinished != nil {
			fmt.Fprintf(bw, "# %s\n", oneLine(unfinishedLine(r)))
			continue
		}
		d := r.Device
		cfg := [][2]string{
			{"device", strings.TrimSpace(d.Manufacturer + " " + d.Model)},
			{"android", d.Release},
			{"api", itoa(d.API)},
			{"refresh-hz", ftoa(d.RefreshHz)},
			{"package", r.App.Package},
		}
		for _, kv := range cfg {
			if kv[1] == "" || kv[1] == "0" || last[kv[0]] == kv[1] {
				continue
			}
			last[kv[0]] = kv[1]
			fmt.Fprintf(bw, "%s: %s\n", kv[0], oneLine(kv[1]))
		}
		test := benchName(r.Name)
		if r.Name == "" {
			test = benchName(r.App.Package)
		}
		for _, st := range r.Steps {
			ms := StepMetrics(st)
			fmt.Fprintf(bw, "BenchmarkPerf/test=%s/step=%s 1", test, benchName(metrics.BaseStep(st.Name)))
			for _, m := range ms {
				if m.BenchUnit == "" {
					continue // context (tick count), not a benchmark figure
				}
				fmt.Fprintf(bw, " %s %s", strconv.FormatFloat(m.Value*m.BenchScale, 'g', 6, 64), m.BenchUnit)
			}
			bw.WriteString("\n")
			writeAbsent(bw, st)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report benchstat: %w", err)
	}
	return nil
}

func itoa(i int) string { return strconv.Itoa(i) }

func ftoa(f float64) string {
	if f == 0 {
		return ""
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func oneLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

// writeAbsent writes, under a step's benchmark line, the metrics it has no
// value for and why, grouped by reason: "# scroll: not measured: rx, tx
// (traffic: …)". benchstat skips the lines (they are neither results nor
// configuration), a reader does not take a missing unit for 0.
func writeAbsent(w io.Writer, st *result.Step) {
	var reasons []string
	names := map[string][]string{}
	for _, a := range st.Absent() {
		if names[a.Reason] == nil {
			reasons = append(reasons, a.Reason)
		}
		names[a.Reason] = append(names[a.Reason], string(a.Name))
	}
	for _, r := range reasons {
		fmt.Fprintf(w, "# %s: not measured: %s (%s)\n", oneLine(st.Name), strings.Join(names[r], ", "), oneLine(r))
	}
}
