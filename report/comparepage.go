package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report/internal/cmppage"
	"github.com/perfgate/perfgate/result"
)

// Colours of the two sides on the comparison page.
const colBase, colNew = "#7f7f7f", "#1f77b4"

type comparePage struct {
	Title     string
	Generated string
	Options   CompareOptions
	Base, New string // how many runs, on which devices
	Warnings  []string
	Lines     []string // regression lines
	Steps     []compareStep
	Hint      string
}

type compareStep struct {
	Name    string
	Anchor  string
	Charts  []template.HTML // the two first runs overlaid
	Metrics template.HTML   // every metric: values, medians, CIs, verdict
	Runs    []cmppage.Run   // each side's runs, with their files
	Verdict string          // "regression", "changed" or ""
}

var comparePageTmpl = template.Must(template.New("compare").Parse(pageHead + `.key span{display:inline-block;width:12px;height:3px;margin:0 4px 3px 12px;vertical-align:middle}
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="muted">Generated {{.Generated}}. α = {{.Options.Alpha}}; a change fails when it is significant and worse than {{.Options.ThresholdPct}} %. Each metric says what its verdict rests on: the Mann-Whitney U test over runs, the new runs against the spread of the base runs, or, with too few runs to know that spread, the frames alone (then only a change of {{.Options.Gate.FramesOnlyPct}} % fails). Centres with 95 % confidence intervals.</p>
<p class="key"><span style="background:#7f7f7f"></span>base: {{.Base}}<span style="background:#1f77b4"></span>new: {{.New}}</p>
{{if .Lines}}<pre class="fail">{{range .Lines}}{{.}}
{{end}}</pre>{{else}}<p class="pass">No significant regression past the threshold.</p>{{end}}
{{if .Warnings}}<ul class="warnings">{{range .Warnings}}<li>⚠️ {{.}}</li>{{end}}</ul>{{end}}
<ul class="toc">{{range .Steps}}<li><a href="#{{.Anchor}}">{{.Name}}</a>{{if eq .Verdict "regression"}} <span class="fail">regression</span>{{else if eq .Verdict "changed"}} <span class="muted">changed</span>{{end}}</li>{{end}}</ul>
{{range .Steps}}
<section class="step" id="{{.Anchor}}">
<h2>Step {{.Name}}</h2>
{{if .Runs}}<ul class="runs">{{range .Runs}}<li>{{.Side}} run {{.N}} on {{.Device}}:{{range .Links}} <a href="{{.Href}}">{{.Text}}</a>{{end}}</li>{{end}}</ul>{{end}}
{{.Metrics}}
{{range .Charts}}{{.}}
{{end}}
</section>
{{end}}
<p class="muted">{{.Hint}}</p>
</body>
</html>
`))

// WriteCompareHTML writes the comparison as one self-contained page (inline
// SVG, no script): per step, every metric both sides measured as a strip of
// its runs' values, the base's and the new runs' medians and 95 %
// confidence intervals, and the gate's verdict; then the frame times, FPS
// and CPU of the first base run and the first new run drawn over each
// other. base and next are the Results c was computed from.
func WriteCompareHTML(w io.Writer, c *Comparison, base, next []*result.Result, opts Options) error {
	title := opts.Title
	if title == "" {
		title = "perfgate comparison"
	}
	p := comparePage{Title: title, Generated: generated(append(slices.Clone(base), next...)), Options: c.Options,
		Base: sideText(base), New: sideText(next), Lines: c.Regressions(), Hint: c.hint()}
	scales := metricScales(c.Rows)
	var warn strings.Builder
	c.writeWarnings(&warn, "")
	for _, l := range strings.Split(strings.TrimSpace(warn.String()), "\n") {
		if l != "" {
			p.Warnings = append(p.Warnings, l)
		}
	}
	// One section per test, device and step: runs of different tests are
	// never drawn together.
	type section struct{ test, device, step string }
	var sections []section
	for _, r := range c.Rows {
		k := section{r.Test, r.Device, r.Step}
		if !slices.Contains(sections, k) {
			sections = append(sections, k)
		}
	}
	for i, sec := range sections {
		var rows []Row
		for _, r := range c.Rows {
			if (section{r.Test, r.Device, r.Step}) == sec {
				rows = append(rows, r)
			}
		}
		name := where(Key{Test: sec.test, Device: sec.device, Step: sec.step})
		cs := compareStep{Name: name, Anchor: fmt.Sprintf("s%d", i+1),
			Runs: append(runLinks("base", base, sec.test, sec.device, opts.PageDir), runLinks("new", next, sec.test, sec.device, opts.PageDir)...)}
		for _, r := range rows {
			switch {
			case r.Regression:
				cs.Verdict = "regression"
			case r.Significant && cs.Verdict == "":
				cs.Verdict = "changed"
			}
		}
		cs.Metrics = template.HTML(cmppage.Strips(name, stripRows(rows, scales)))
		br, bs := firstStep(base, sec.test, sec.device, sec.step)
		nr, ns := firstStep(next, sec.test, sec.device, sec.step)
		for _, ch := range overlayCharts(br, bs, nr, ns) {
			cs.Charts = append(cs.Charts, template.HTML(ch.svg()))
		}
		p.Steps = append(p.Steps, cs)
	}
	if err := comparePageTmpl.Execute(w, p); err != nil {
		return fmt.Errorf("report compare html: %w", err)
	}
	return nil
}

// sideText says how many runs a side has and on which devices.
func sideText(rs []*result.Result) string {
	var devs []string
	for _, r := range rs {
		if d := r.Device.String(); !slices.Contains(devs, d) {
			devs = append(devs, d)
		}
	}
	return fmt.Sprintf("%d runs on %s", len(rs), strings.Join(devs, "; "))
}

// runLinks lists a side's runs of the test (on the device model, unless
// ""), with links to its files that exist (cmppage.Files), when it has any.
func runLinks(side string, rs []*result.Result, test, model, pageDir string) []cmppage.Run {
	var out []cmppage.Run
	n := 0
	for _, r := range rs {
		if r.Key() == test && (model == "" || DeviceKey(r.Device.Manufacturer, r.Device.Model, r.Device.API) == model) {
			n++
			if links := cmppage.Files(pageDir, r); len(links) > 0 {
				out = append(out, cmppage.Run{Side: side, N: n, Device: deviceText(r), Links: links})
			}
		}
	}
	return out
}

// firstStep is the step of the first Result of the test (on the device
// model, unless "") that has it, with its Result.
func firstStep(rs []*result.Result, test, model, step string) (*result.Result, *result.Step) {
	for _, r := range rs {
		if r.Key() != test || model != "" && DeviceKey(r.Device.Manufacturer, r.Device.Model, r.Device.API) != model {
			continue
		}
		if st := r.Step(step); st != nil && !st.Missing {
			return r, st
		}
	}
	return nil, nil
}

// stripRows are a section's rows for the strips, each on its metric's
// scale.
func stripRows(rows []Row, scales map[metrics.Name]cmppage.Scale) []cmppage.Row {
	var out []cmppage.Row
	for _, r := range rows {
		verdict, colour := "not significant", "#555"
		switch {
		case r.Regression:
			verdict, colour = "REGRESSION", "#cf222e"
		case r.Significant && (r.Better == metrics.Lower) == (r.DeltaPct > 0):
			verdict, colour = "worse, within the threshold", "#9a6700"
		case r.Significant:
			verdict, colour = "better", "#1a7f37"
		}
		side := func(s benchmath.Summary, v []float64) cmppage.Side {
			return cmppage.Side{Values: v, Center: s.Center, Lo: s.Lo, Hi: s.Hi}
		}
		out = append(out, cmppage.Row{Metric: string(r.Metric), Unit: r.Unit, Colour: colour,
			Change:  "change " + changeText(r) + ": " + verdict,
			Centres: summaryText(r.Old, r.Unit) + " → " + summaryText(r.New, r.Unit), Basis: r.pn(),
			Base: side(r.Old, r.BaseValues), New: side(r.New, r.NewValues), Scale: scales[r.Metric]})
	}
	return out
}

// changeText is a row's change: "+0.05ms (+0.3%)"; "+5" from a median of 0.
func changeText(r Row) string {
	d := r.New.Center - r.Old.Center
	s := metrics.FormatValue(d, r.Unit)
	if d >= 0 {
		s = "+" + s
	}
	if r.Old.Center != 0 && !math.IsInf(r.DeltaPct, 0) && !math.IsNaN(r.DeltaPct) {
		s += " (" + budget.FormatDelta(r.DeltaPct) + ")"
	}
	return s
}

// metricScales are the metrics' scales, each shared by every row of its
// metric: one length on the page is one amount of the metric everywhere.
func metricScales(rows []Row) map[metrics.Name]cmppage.Scale {
	vals := map[metrics.Name][]float64{}
	count := map[metrics.Name]bool{}
	for _, r := range rows {
		vals[r.Metric] = append(vals[r.Metric], append(slices.Clone(r.BaseValues), r.NewValues...)...)
		for _, s := range []benchmath.Summary{r.Old, r.New} {
			vals[r.Metric] = append(vals[r.Metric], s.Lo, s.Hi, s.Center)
		}
		count[r.Metric] = r.Def.Count
	}
	out := map[metrics.Name]cmppage.Scale{}
	for m, v := range vals {
		out[m] = cmppage.NewScale(v, count[m])
	}
	return out
}

// overlayCharts draws the frame times, FPS and CPU of one base run's step
// and one new run's step over each other, time since each step began.
func overlayCharts(br *result.Result, bs *result.Step, nr *result.Result, ns *result.Step) []*chart {
	if bs == nil || ns == nil {
		return nil
	}
	stepS := math.Max(stepSeconds(bs), stepSeconds(ns))
	bf, nf := framesOf(br, bs), framesOf(nr, ns)
	name := "frame time"
	if nf.source == frames.SourceGfxInfo {
		name = "frame duration"
	}
	ft := &chart{id: "compare-frametime", title: "Frame time per frame (" + name + "), first run of each side", unit: "ms", xMax: stepS,
		lines: []line{{name: "base", color: colBase, pts: bf.ft}, {name: "new", color: colNew, pts: nf.ft}}}
	if nf.periodMS > 0 {
		ft.hlines = append(ft.hlines, hline{class: "deadline", label: fmt.Sprintf("refresh period %.2f ms", nf.periodMS), color: colRefresh, y: nf.periodMS})
	}
	fps := &chart{id: "compare-fps", title: "FPS per second, first run of each side", unit: "fps", xMax: stepS,
		lines: []line{{name: "base", color: colBase, pts: fpsSeries(bf.times, stepSeconds(bs))}, {name: "new", color: colNew, pts: fpsSeries(nf.times, stepSeconds(ns))}}}
	cpu := &chart{id: "compare-cpu", title: "App CPU, % of the whole device per tick, first run of each side", unit: "%", xMax: stepS,
		lines: []line{{name: "base", color: colBase, pts: cpuOf(br, bs).app}, {name: "new", color: colNew, pts: cpuOf(nr, ns).app}}}
	return []*chart{ft, fps, cpu}
}

// stepSeconds is how long a step lasted, by the longer of its clocks.
func stepSeconds(st *result.Step) float64 {
	return math.Max(sec(st.HostEndNs-st.HostStartNs), sec(st.DeviceEndNs-st.DeviceStartNs))
}
