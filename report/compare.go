package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchmath"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// CompareOptions set the regression gate. The zero value uses α = 0.05, a
// 10 % threshold and the rest of budget.Gate's defaults.
type CompareOptions struct {
	// Alpha is the significance level of the tests; default 0.05.
	Alpha float64
	// ThresholdPct is the smallest change, in percent, that counts as a
	// regression even when significant; default 10. Negative means 0.
	ThresholdPct float64
	// Gate sets the rest of the gate (MinCount, MinBaseRuns,
	// FramesOnlyPct); its Alpha and ThresholdPct are the fields above.
	Gate budget.Gate
	// AcrossDevices compares runs of different device models with each
	// other; without it each model is compared with itself only.
	AcrossDevices bool
	// From names the base side in the verdicts ("history main", a
	// folder).
	From string
	// Metrics are the metrics whose regressions fail the gate; default
	// the catalogue's gate metrics (metrics.Def.Gate: fps, jank,
	// frame_time_p50, frame_time_p95, cpu, pss_max, startup_initial).
	// Every other metric is compared and shown, its change marked, and
	// fails nothing: each metric gated is one more chance for noise to
	// fail a pull request.
	Metrics []metrics.Name
}

// gated reports whether a regression of n fails the gate.
func (o CompareOptions) gated(n metrics.Name) bool {
	if len(o.Metrics) == 0 {
		return n.Def().Gate
	}
	return slices.Contains(o.Metrics, n)
}

func (o CompareOptions) gate() budget.Gate {
	g := o.Gate
	g.Alpha, g.ThresholdPct = o.Alpha, o.ThresholdPct
	return g.WithDefaults()
}

func (o CompareOptions) withDefaults() CompareOptions {
	g := o.gate()
	o.Alpha, o.ThresholdPct, o.Gate = g.Alpha, g.ThresholdPct, g
	return o
}

// Key names what one row compares: a metric of a step of a test (its
// Result key, result.Result.Key) on a device model at an API level
// (DeviceKey). Runs of different tests, steps or devices are never pooled.
type Key struct {
	Test, Device, Step string
	Metric             metrics.Name
}

// Row compares one metric of one step of one test between the baseline
// and the new runs.
type Row struct {
	Key
	Unit   string
	Better metrics.Better
	Def    metrics.Def
	// Gated says a regression of the metric fails the gate
	// (CompareOptions.Metrics); other rows only show their change.
	Gated bool
	// BaseValues and NewValues are the runs' values, for the page's
	// strips.
	BaseValues, NewValues []float64
	// Change holds the centres, p-value, method and verdict, as the
	// regression gate computes them (budget.CompareRuns).
	budget.Change
}

// Comparison is a baseline compared with new runs, metric by metric.
type Comparison struct {
	Options CompareOptions
	Rows    []Row
	// Warnings are about the inputs as a whole: a test, step or metric
	// only one side has, results from different devices.
	Warnings []string
}

// Side is one side of a comparison: per test, device model, step and
// metric, its runs. A step repeated inside one session ("scroll#2") is one
// more run of "scroll".
type Side struct {
	order []Key
	runs  map[Key]*budget.Runs
	defs  map[Key]metrics.Metric
	// absent counts, per key, the runs that did not measure it, with the
	// last reason.
	absent map[Key]int
	why    map[Key]string
	// devices are the devices the side ran on, by Key.Device.
	devices map[string]string
	// n counts the sessions.
	n int
	// unfinished says which Results were left out for not having reached
	// Stop (result.Result.Unfinished), one line each.
	unfinished []string
}

// NewSide is an empty side.
func NewSide() *Side {
	return &Side{runs: map[Key]*budget.Runs{}, defs: map[Key]metrics.Metric{}, absent: map[Key]int{}, why: map[Key]string{}, devices: map[string]string{}}
}

// Add adds one run's value of a metric (and, for a metric figured from
// frames, the run's frame times or frame count) under k.
func (s *Side) Add(k Key, m metrics.Metric, frameTimes []float64, frames int) {
	r := s.runs[k]
	if r == nil {
		r = &budget.Runs{}
		s.runs[k] = r
		s.defs[k] = m
		s.order = append(s.order, k)
	}
	r.Values = append(r.Values, m.Value)
	r.FrameTimes = append(r.FrameTimes, frameTimes)
	r.Frames = append(r.Frames, frames)
	r.Resolution = append(r.Resolution, m.Resolution)
}

// SetDevice names the device runs of model ran on, for warnings.
func (s *Side) SetDevice(model, desc string) {
	if _, ok := s.devices[model]; !ok {
		s.devices[model] = desc
	}
}

// AddRuns counts n more sessions on the side.
func (s *Side) AddRuns(n int) { s.n += n }

// SideOf reads Results into a side: each Result a run of its test (its
// Key) on its device model ("" for every model, with acrossDevices), each
// iteration of a step ("scroll#2") one more run. A Result of a session
// that did not reach Stop (result.Result.Unfinished) is no run: it is
// left out, and the comparison warns of it.
func SideOf(results []*result.Result, acrossDevices bool) *Side {
	return sideOf(results, acrossDevices, false)
}

// RunsOf reads Results into a side as the history keeps runs: one value a
// Result, the median of its step's iterations, for a comparison with the
// history (history.Store.BaseSide). Frames and frame counts are the
// iterations' together.
func RunsOf(results []*result.Result, acrossDevices bool) *Side {
	return sideOf(results, acrossDevices, true)
}

func sideOf(results []*result.Result, acrossDevices, perRun bool) *Side {
	if perRun {
		s := NewSide()
		for _, r := range results {
			one := sideOf([]*result.Result{r}, acrossDevices, false)
			s.unfinished = append(s.unfinished, one.unfinished...)
			for model, d := range one.devices {
				s.SetDevice(model, d)
			}
			for k, n := range one.absent {
				s.absent[k] += min(n, 1)
				s.why[k] = one.why[k]
			}
			for _, k := range one.order {
				runs := one.runs[k]
				m := one.defs[k]
				m.Value = frames.NearestRank(runs.Values, 50)
				m.Resolution = slices.Max(runs.Resolution)
				var ft []float64
				frames := 0
				for i := range runs.Values {
					ft = append(ft, runs.FrameTimes[i]...)
					frames += runs.Frames[i]
				}
				if !m.Count || m.Family != metrics.FamilyFrames {
					frames = 0
				}
				s.Add(k, m, ft, frames)
			}
		}
		s.n = len(results) - len(s.unfinished)
		return s
	}
	s := NewSide()
	for _, r := range results {
		if r.Unfinished != nil {
			s.unfinished = append(s.unfinished, unfinishedLine(r))
			continue
		}
		s.n++
		model := DeviceKey(r.Device.Manufacturer, r.Device.Model, r.Device.API)
		s.SetDevice(model, deviceText(r))
		if acrossDevices {
			model = ""
		}
		for _, st := range r.Steps {
			if st.Missing {
				continue
			}
			base := metrics.BaseStep(st.Name)
			for _, a := range st.Absent() {
				k := Key{r.Key(), model, base, a.Name}
				s.absent[k]++
				s.why[k] = a.Reason
			}
			var ft []float64
			for _, m := range StepMetrics(st) {
				if m.Better == metrics.Neither {
					continue
				}
				var times []float64
				frames := 0
				switch {
				case strings.HasPrefix(string(m.Name), "frame_time_p"):
					if ft == nil {
						for _, p := range framesOf(r, st).ft {
							ft = append(ft, p.y)
						}
					}
					times = ft
				case m.Family == metrics.FamilyFrames && m.Count:
					frames = st.FrameStats.Frames
				}
				s.Add(Key{r.Key(), model, base, m.Name}, m, times, frames)
			}
		}
	}
	return s
}

// unfinishedLine says that the Result r of a session that did not reach
// Stop is left out of a comparison.
func unfinishedLine(r *result.Result) string {
	where := r.Key()
	if r.Path != "" {
		where += " (" + r.Path + ")"
	}
	return fmt.Sprintf("%s: left out: %s", where, r.Error)
}

// Unfinished says which Results the side left out for not having reached
// Stop (result.Result.Unfinished), one line each.
func (s *Side) Unfinished() []string { return s.unfinished }

// DeviceKey names the device a run is keyed by: its model (manufacturer and
// model) and Android API level, "Google Pixel 7, API 34". Emulators of
// every API level share a model name, and one API level's runs say nothing
// of another's.
func DeviceKey(manufacturer, model string, api int) string {
	name := strings.TrimSpace(manufacturer + " " + model)
	if api > 0 {
		name += fmt.Sprintf(", API %d", api)
	}
	return name
}

// deviceText names a Result's device for a warning: model, Android
// release and API level.
func deviceText(r *result.Result) string {
	return strings.TrimSpace(fmt.Sprintf("%s %s, Android %s (API %d)", r.Device.Manufacturer, r.Device.Model, r.Device.Release, r.Device.API))
}

// Compare compares every metric of every step of every test that both
// sides measured, each test and device model with itself only. Each
// Result is a run; a step repeated inside a session ("scroll#2") is one
// more run of "scroll". The statistics are the regression gate's
// (budget.CompareRuns): the Mann-Whitney U test over runs where both sides
// have enough, the new runs against the base runs' spread where the base
// side has enough, the frames alone (for a large change only) where the
// runs are too few. Too few runs to tell is a warning on the row, not an
// error.
func Compare(base, next []*result.Result, opts CompareOptions) *Comparison {
	return CompareSides(SideOf(base, opts.AcrossDevices), SideOf(next, opts.AcrossDevices), opts)
}

// CompareSides compares two sides key by key, as Compare does; the base
// side may come from elsewhere than Results (a history of runs).
func CompareSides(base, next *Side, opts CompareOptions) *Comparison {
	opts = opts.withDefaults()
	c := &Comparison{Options: opts}
	sides := [2]string{"baseline runs", "new runs"}
	for i, s := range []*Side{base, next} {
		for _, u := range s.unfinished {
			c.Warnings = append(c.Warnings, sides[i]+": "+u)
		}
	}
	for _, k := range next.order {
		if _, ok := base.runs[k]; ok || !base.hasTest(k) {
			continue // the test as a whole is warned of below
		}
		if n := base.absent[k]; n > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s: not measured in the %s (%s)", where(k), k.Metric, sides[0], base.why[k]))
		} else {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s: not in the %s", where(k), k.Metric, "baseline"))
		}
	}
	for _, k := range base.order {
		nr, ok := next.runs[k]
		if !ok {
			if n := next.absent[k]; n > 0 {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s: not measured in the %s (%s)", where(k), k.Metric, sides[1], next.why[k]))
			} else if next.hasTest(k) {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s: not in the %s", where(k), k.Metric, "new runs"))
			}
			continue
		}
		for i, s := range []*Side{base, next} {
			if n := s.absent[k]; n > 0 {
				c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s: not measured in %d of the %s (%s); compared the others", where(k), k.Metric, n, sides[i], s.why[k]))
			}
		}
		m := base.defs[k]
		br := base.runs[k]
		ch := budget.CompareRuns(*br, *nr, m.Def, opts.Gate)
		gated := opts.gated(k.Metric)
		if !gated {
			ch.Regression = false
		}
		c.Rows = append(c.Rows, Row{Key: k, Unit: m.Unit, Better: m.Better, Def: m.Def, Gated: gated, BaseValues: br.Values, NewValues: nr.Values, Change: ch})
	}
	c.Warnings = append(c.Warnings, base.testWarnings(next)...)
	c.Warnings = append(c.Warnings, deviceWarnings(base, next)...)
	return c
}

// hasTest reports whether the side ran k's test on k's device at all.
func (s *Side) hasTest(k Key) bool {
	for _, o := range s.order {
		if o.Test == k.Test && o.Device == k.Device {
			return true
		}
	}
	return false
}

// testWarnings names the tests (on a device) only one side ran.
func (s *Side) testWarnings(next *Side) []string {
	var out []string
	seen := map[[2]string]bool{}
	for i, side := range []*Side{s, next} {
		other := []*Side{next, s}[i]
		for _, k := range side.order {
			tk := [2]string{k.Test, k.Device}
			if seen[tk] || other.hasTest(k) {
				continue
			}
			seen[tk] = true
			line := fmt.Sprintf("%s ran only in the %s", where(Key{Test: k.Test, Device: k.Device}), [2]string{"baseline", "new runs"}[i])
			for _, o := range other.order {
				if o.Test == k.Test && o.Device != k.Device {
					line += fmt.Sprintf(" (the %s ran it on %s; each model is compared with itself only, unless across devices)", [2]string{"new runs", "baseline"}[i], o.Device)
					break
				}
			}
			out = append(out, line)
		}
	}
	return out
}

// where names a key's test, device and step in a warning.
func where(k Key) string {
	s := k.Test
	if k.Device != "" {
		s += " on " + k.Device
	}
	if k.Step != "" {
		if s != "" {
			s += ": "
		}
		s += k.Step
	}
	return s
}

// deviceWarnings says when the two sides ran on different devices or
// Android versions, which makes any difference suspect.
func deviceWarnings(base, next *Side) []string {
	var out []string
	for model, d := range next.devices {
		b, ok := base.devices[model]
		switch {
		case !ok && len(base.devices) > 0:
			var any string
			for _, x := range base.devices {
				any = x
				break
			}
			out = append(out, fmt.Sprintf("new runs on %s, baseline on %s", d, any))
		case ok && b != d:
			out = append(out, fmt.Sprintf("new runs on %s, baseline on %s", d, b))
		}
	}
	slices.Sort(out)
	return out
}

// Regressions returns one line per regression, in the regression gate's
// format: "perf regression: TestFeed@feed: scroll: frame_time_p95 18.2ms →
// 24.9ms (+36.8%, p=0.002, n=10+10)".
func (c *Comparison) Regressions() []string {
	var out []string
	for _, r := range c.Rows {
		if r.Regression {
			out = append(out, budget.RegressionLine(r.label(), r.Metric, r.Unit, r.Change))
		}
	}
	return out
}

// label names the row's test, device and step in a line.
func (r Row) label() string { return where(r.Key) }

// Verdicts are the comparison's verdicts on the runs of one test on one
// device (DeviceKey; "" for every device): one a metric compared, failing on a
// regression, warning where the runs cannot tell.
func (c *Comparison) Verdicts(test, model string) []budget.Verdict {
	var out []budget.Verdict
	for _, r := range c.Rows {
		if r.Test != test || r.Device != model && r.Device != "" || !r.Gated {
			continue
		}
		v := budget.RegressionVerdict(r.Step, r.Def, r.Unit, r.Change, c.Options.From, c.Options.Gate)
		if v.Line != "" {
			v.Line = strings.Replace(v.Line, ": "+r.Step+": ", ": "+r.label()+": ", 1)
		}
		out = append(out, v)
	}
	return out
}

// delta is the Δ column: "~" when not significant, as benchstat prints.
func (r Row) delta() string {
	if !r.Significant {
		return "~"
	}
	return r.Change.Delta(r.Unit)
}

// pn is the p-value and what it rests on.
func (r Row) pn() string {
	p := fmt.Sprintf("p=%.3f", r.P)
	if r.P < 0.001 {
		p = "p<0.001"
	}
	return p + " " + r.Basis()
}

func summaryText(s benchmath.Summary, unit string) string {
	if math.IsNaN(s.Center) {
		return "none"
	}
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || math.IsNaN(s.Lo) || s.Lo == s.Hi {
		return metrics.FormatValue(s.Center, unit)
	}
	return metrics.FormatValue(s.Center, unit) + " ± " + s.PctRangeString()
}

// WriteText prints the comparison as a benchstat-style table, then the
// regression lines and the warnings.
func (c *Comparison) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "alpha: %g\nthreshold: %g%%\n\n", c.Options.Alpha, c.Options.ThresholdPct)
	tw := tabwriter.NewWriter(ew, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "test\tstep\tmetric\tbase (centre ± 95% CI)\tnew (centre ± 95% CI)\tvs base\t\t")
	for _, r := range c.Rows {
		mark := ""
		if r.Regression {
			mark = "REGRESSION"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t(%s)\t%s\n", testText(r.Key), r.Step, r.Metric, summaryText(r.Old, r.Unit), summaryText(r.New, r.Unit), r.delta(), r.pn(), mark)
	}
	tw.Flush()
	if regs := c.Regressions(); len(regs) > 0 {
		fmt.Fprintln(ew)
		for _, l := range regs {
			fmt.Fprintln(ew, l)
		}
		fmt.Fprintln(ew, c.hint())
	}
	c.writeWarnings(ew, "warning: ")
	if ew.err != nil {
		return fmt.Errorf("report compare: %w", ew.err)
	}
	return nil
}

// hint says what makes an intended change the baseline: merging it (history), or the new runs (folders).
func (c *Comparison) hint() string {
	if strings.HasPrefix(c.Options.From, "history") {
		return "If the change is intended, it is the new baseline once merged."
	}
	return "If the change is intended, compare later runs with the new runs: they are the new baseline."
}

// testText names a row's test and device in a table cell.
func testText(k Key) string {
	if k.Device == "" {
		return k.Test
	}
	return k.Test + " (" + k.Device + ")"
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
// (n=5+5), in 40 comparisons: TestFeed scroll (fps, jank, …), TestFeed
// launch (startup_initial)". Said per row, five runs a side gave forty
// lines.
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
		step := r.label()
		for _, w := range r.Warnings {
			g := groups[w]
			if g == nil {
				g = &group{of: map[string][]string{}}
				groups[w] = g
				order = append(order, w)
			}
			if n := r.Basis(); !slices.Contains(g.ns, n) {
				g.ns = append(g.ns, n)
			}
			if g.of[step] == nil {
				g.steps = append(g.steps, step)
			}
			g.of[step] = append(g.of[step], string(r.Metric))
			g.count++
		}
	}
	rowsOf := map[string]int{}
	for _, r := range c.Rows {
		rowsOf[r.label()]++
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
		out = append(out, fmt.Sprintf("%s (%s), in %d comparisons: %s", w, strings.Join(g.ns, "; "), g.count, strings.Join(parts, ", ")))
	}
	return out
}

// WriteMarkdown prints the comparison as a Markdown table with ❌ on
// regressions, the regression lines, and the warnings.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Regression gate: α = %g, threshold %g%%; each row says what it rests on.\n\n", c.Options.Alpha, c.Options.ThresholdPct)
	fmt.Fprintln(ew, "| test | step | metric | base | new | vs base | rests on | |\n|---|---|---|---:|---:|---:|---|---|")
	for _, r := range c.Rows {
		mark := ""
		switch {
		case r.Regression:
			mark = "❌"
		case r.Significant:
			mark = "≠"
		}
		fmt.Fprintf(ew, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", mdEscape(testText(r.Key)), mdEscape(r.Step), r.Metric, summaryText(r.Old, r.Unit), summaryText(r.New, r.Unit), r.delta(), mdEscape(r.pn()), mark)
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
