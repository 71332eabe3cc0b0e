package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/metrics"

	"github.com/perfgate/perfgate/perftest"
)

// CompareOptions set the regression gate. The zero value uses α = 0.05 and
// a 10 % threshold.
type CompareOptions struct {
	// Alpha is the significance level of the Mann-Whitney U test; default
	// 0.05.
	Alpha float64
	// ThresholdPct is the smallest change of the median, in percent, that
	// counts as a regression even when significant; default 10. Negative
	// means 0.
	ThresholdPct float64
}

func (o CompareOptions) withDefaults() CompareOptions {
	g := assert.Gate{Alpha: o.Alpha, ThresholdPct: o.ThresholdPct}.WithDefaults()
	return CompareOptions{Alpha: g.Alpha, ThresholdPct: g.ThresholdPct}
}

// Row compares one metric of one step between the baseline and the new
// runs.
type Row struct {
	Step   string
	Metric metrics.Name
	Unit   string
	Better Better
	// Change holds the medians, p-value and verdict, as the regression
	// gate computes them.
	assert.Change
}

// Comparison is a baseline compared with new runs, metric by metric.
type Comparison struct {
	Options CompareOptions
	Rows    []Row
	// Warnings are about the inputs as a whole: a step or metric only one
	// side has, results from different devices.
	Warnings []string
}

// Compare compares every metric of every step that both sides measured.
// Each Result is one run; a step repeated inside a session ("scroll#2") is
// one more run of "scroll". The statistics are those of the regression
// gate: medians with confidence intervals and the Mann-Whitney U test from
// golang.org/x/perf/benchmath (AssumeNothing). Too few runs for a
// confidence interval is a warning on the row, not an error.
func Compare(base, next []*perftest.Result, opts CompareOptions) *Comparison {
	opts = opts.withDefaults()
	c := &Comparison{Options: opts}
	type key struct {
		step   string
		metric metrics.Name
	}
	type vals struct {
		m        Metric
		old, new []float64
	}
	// absent counts the runs of each side that did not measure a metric,
	// with the last reason.
	type absence struct {
		n   [2]int
		why [2]string
	}
	var order []key
	all := map[key]*vals{}
	missing := map[key]*absence{}
	collect := func(rs []*perftest.Result, isNew bool) {
		side := 0
		if isNew {
			side = 1
		}
		for _, r := range rs {
			for _, st := range r.Steps {
				if st.Missing {
					continue
				}
				for _, a := range st.Absent() {
					k := key{metrics.BaseStep(st.Name), a.Name}
					if missing[k] == nil {
						missing[k] = &absence{}
					}
					missing[k].n[side]++
					missing[k].why[side] = a.Reason
				}
				for _, m := range StepMetrics(st) {
					if m.Better == Neither {
						continue
					}
					k := key{metrics.BaseStep(st.Name), m.Name}
					v := all[k]
					if v == nil {
						v = &vals{m: m}
						all[k] = v
						order = append(order, k)
					}
					if isNew {
						v.new = append(v.new, m.Value)
					} else {
						v.old = append(v.old, m.Value)
					}
				}
			}
		}
	}
	collect(base, false)
	collect(next, true)
	c.Warnings = append(c.Warnings, deviceWarnings(base, next)...)
	for _, k := range order {
		v := all[k]
		ab := missing[k]
		if ab == nil {
			ab = &absence{}
		}
		if len(v.old) == 0 || len(v.new) == 0 {
			i := 1
			if len(v.old) == 0 {
				i = 0
			}
			if ab.why[i] != "" {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s: not measured in the %s (%s)", k.step, k.metric, [2]string{"baseline runs", "new runs"}[i], ab.why[i]))
			} else {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s: not in the %s", k.step, k.metric, [2]string{"baseline", "new runs"}[i]))
			}
			continue
		}
		for i, side := range []string{"baseline runs", "new runs"} {
			if n := ab.n[i]; n > 0 {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s: not measured in %d of the %s (%s); compared the others", k.step, k.metric, n, side, ab.why[i]))
			}
		}
		ch := assert.CompareValues(v.old, v.new, v.m.Better, assert.Gate{Alpha: opts.Alpha, ThresholdPct: gateThreshold(opts.ThresholdPct)})
		c.Rows = append(c.Rows, Row{Step: k.step, Metric: k.metric, Unit: v.m.Unit, Better: v.m.Better, Change: ch})
	}
	return c
}

// deviceWarnings says when the two sides ran on different devices or
// Android versions, which makes any difference suspect.
func deviceWarnings(base, next []*perftest.Result) []string {
	id := func(r *perftest.Result) string {
		return strings.TrimSpace(fmt.Sprintf("%s %s, Android %s (API %d)", r.Device.Manufacturer, r.Device.Model, r.Device.Release, r.Device.API))
	}
	seen := map[string]bool{}
	for _, r := range base {
		seen[id(r)] = true
	}
	var out []string
	for _, r := range next {
		if d := id(r); len(base) > 0 && !seen[d] {
			out = append(out, fmt.Sprintf("new runs on %s, baseline on %s", d, id(base[0])))
			seen[d] = true
		}
	}
	return out
}

// gateThreshold turns CompareOptions' threshold (already defaulted, 0
// meaning none) into the Gate's, where 0 means the default.
func gateThreshold(pct float64) float64 {
	if pct == 0 {
		return -1
	}
	return pct
}

// Regressions returns one line per regression, in the regression gate's
// format: "perf regression: scroll: frame_time_p95 18.2ms → 24.9ms
// (+36.8%, p=0.002, n=10+10)".
func (c *Comparison) Regressions() []string {
	var out []string
	for _, r := range c.Rows {
		if r.Regression {
			out = append(out, assert.RegressionLine(r.Step, r.Metric, r.Unit, r.Change))
		}
	}
	return out
}

// withUnit joins a value and its unit the way the gate's messages do:
// "18.2ms", "35%", but "3 frames".
func withUnit(v float64, unit string) string {
	switch unit {
	case "ms", "%", "KiB", "B", "KiB/min", "°C":
		return formatValue(v) + unit
	}
	return formatValue(v) + " " + unit
}

// delta is the Δ column: "~" when not significant, as benchstat prints.
func (r Row) delta() string {
	if !r.Significant {
		return "~"
	}
	return assert.FormatDelta(r.DeltaPct)
}

func (r Row) pn() string {
	return fmt.Sprintf("p=%.3f n=%d+%d", r.P, r.N1, r.N2)
}

func summaryText(s benchmath.Summary, unit string) string {
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || s.Lo == s.Hi {
		return withUnit(s.Center, unit)
	}
	return withUnit(s.Center, unit) + " ± " + s.PctRangeString()
}

// WriteText prints the comparison as a benchstat-style table, then the
// regression lines and the warnings.
func (c *Comparison) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "alpha: %g\nthreshold: %g%%\n\n", c.Options.Alpha, c.Options.ThresholdPct)
	tw := tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "step\tmetric\tbase (median ± 95% CI)\tnew (median ± 95% CI)\tvs base\t\t")
	for _, r := range c.Rows {
		mark := ""
		if r.Regression {
			mark = "REGRESSION"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t(%s)\t%s\n", r.Step, r.Metric, summaryText(r.Old, r.Unit), summaryText(r.New, r.Unit), r.delta(), r.pn(), mark)
	}
	tw.Flush()
	if regs := c.Regressions(); len(regs) > 0 {
		fmt.Fprintln(ew)
		for _, l := range regs {
			fmt.Fprintln(ew, l)
		}
		fmt.Fprintln(ew, "If the change is intended, record a new baseline (go test -update).")
	}
	c.writeWarnings(ew, "warning: ")
	if ew.err != nil {
		return fmt.Errorf("report compare: %w", ew.err)
	}
	return nil
}

func (c *Comparison) writeWarnings(w io.Writer, prefix string) {
	seen := map[string]bool{}
	first := true
	emit := func(s string) {
		if seen[s] {
			return
		}
		seen[s] = true
		if first {
			fmt.Fprintln(w)
			first = false
		}
		fmt.Fprintln(w, prefix+s)
	}
	for _, s := range c.Warnings {
		emit(s)
	}
	for _, s := range c.rowWarnings() {
		emit(s)
	}
}

// rowWarnings says each of the rows' warnings once, naming the rows it is
// about: "need >= 6 samples to detect a difference at alpha level 0.05
// (n=5+5), in 40 comparisons: scroll (fps, jank, …), launch
// (startup_initial)". Said per row, five runs a side gave forty lines.
func (c *Comparison) rowWarnings() []string {
	type group struct {
		ns    []string
		steps []string
		of    map[string][]string
		count int
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range c.Rows {
		for _, w := range r.Warnings {
			g := groups[w]
			if g == nil {
				g = &group{of: map[string][]string{}}
				groups[w] = g
				order = append(order, w)
			}
			if n := fmt.Sprintf("n=%d+%d", r.N1, r.N2); !slices.Contains(g.ns, n) {
				g.ns = append(g.ns, n)
			}
			if g.of[r.Step] == nil {
				g.steps = append(g.steps, r.Step)
			}
			g.of[r.Step] = append(g.of[r.Step], string(r.Metric))
			g.count++
		}
	}
	rowsOf := map[string]int{}
	for _, r := range c.Rows {
		rowsOf[r.Step]++
	}
	out := make([]string, 0, len(order))
	for _, w := range order {
		g := groups[w]
		if g.count == 1 {
			out = append(out, fmt.Sprintf("%s: %s: %s (%s)", g.steps[0], g.of[g.steps[0]][0], w, g.ns[0]))
			continue
		}
		var parts []string
		for _, st := range g.steps {
			ms := g.of[st]
			if len(ms) == rowsOf[st] && len(ms) > 1 {
				parts = append(parts, st+" (every metric)")
				continue
			}
			if len(ms) > 6 {
				ms = append(ms[:6:6], fmt.Sprintf("%d more", len(g.of[st])-6))
			}
			parts = append(parts, fmt.Sprintf("%s (%s)", st, strings.Join(ms, ", ")))
		}
		out = append(out, fmt.Sprintf("%s (%s), in %d comparisons: %s", w, strings.Join(g.ns, ", "), g.count, strings.Join(parts, ", ")))
	}
	return out
}

// WriteMarkdown prints the comparison as a Markdown table with ❌ on
// regressions, the regression lines, and the warnings.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Mann-Whitney U, α = %g, threshold %g%%.\n\n", c.Options.Alpha, c.Options.ThresholdPct)
	fmt.Fprintln(ew, "| step | metric | base | new | vs base | p | |\n|---|---|---:|---:|---:|---|---|")
	for _, r := range c.Rows {
		mark := ""
		switch {
		case r.Regression:
			mark = "❌"
		case r.Significant:
			mark = "≠"
		}
		fmt.Fprintf(ew, "| %s | %s | %s | %s | %s | %s | %s |\n", mdEscape(r.Step), r.Metric, summaryText(r.Old, r.Unit), summaryText(r.New, r.Unit), r.delta(), r.pn(), mark)
	}
	if regs := c.Regressions(); len(regs) > 0 {
		fmt.Fprintf(ew, "\n```\n%s\n```\n", strings.Join(regs, "\n"))
	}
	var warn strings.Builder
	c.writeWarnings(&warn, "- ⚠️ ")
	if warn.Len() > 0 {
		fmt.Fprint(ew, mdEscapeLines(warn.String()))
	}
	fmt.Fprintln(ew)
	if ew.err != nil {
		return fmt.Errorf("report compare: %w", ew.err)
	}
	return nil
}

func mdEscapeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(l)
	}
	return strings.Join(lines, "\n")
}

// errWriter keeps the first write error so a long report checks once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
