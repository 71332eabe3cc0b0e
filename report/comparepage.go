package report

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"

	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
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
}

type compareStep struct {
	Name    string
	Anchor  string
	Charts  []template.HTML // the two first runs overlaid
	Metrics template.HTML   // every metric: values, medians, CIs, verdict
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
{{.Metrics}}
{{range .Charts}}{{.}}
{{end}}
</section>
{{end}}
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
		Base: sideText(base), New: sideText(next), Lines: c.Regressions()}
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
		cs := compareStep{Name: name, Anchor: fmt.Sprintf("s%d", i+1)}
		for _, r := range rows {
			switch {
			case r.Regression:
				cs.Verdict = "regression"
			case r.Significant && cs.Verdict == "":
				cs.Verdict = "changed"
			}
		}
		cs.Metrics = template.HTML(metricStrips(name, rows))
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

// Layout of the metric strips.
const (
	stripW, stripRowH = 1000, 38
	stripX0, stripX1  = 470, 890
)

// metricStrips draws one row per metric: on the left the benchstat line
// (medians ± CI, change, p, verdict); on the right, on the metric's own
// axis in its unit, every run's value as a dot (base grey, new blue), each
// side's median as a tick and its confidence interval as a bar. Each dot
// and bar says what it is on hover.
func metricStrips(step string, rows []Row) string {
	var b strings.Builder
	h := 30 + len(rows)*stripRowH
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="compare-metrics" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		stripW, h, stripW, h, esc("metrics of "+step))
	fmt.Fprintf(&b, `<text x="4" y="16" font-weight="bold">Every metric: base (grey) and new (blue) runs, medians and 95%% CIs, the gate's verdict</text>`)
	for i, r := range rows {
		y := 30 + i*stripRowH
		mid := float64(y) + stripRowH/2
		verdict, colour := "not significant", "#555"
		switch {
		case r.Regression:
			verdict, colour = "REGRESSION", "#cf222e"
		case r.Significant && (r.Better == metrics.Lower) == (r.DeltaPct > 0):
			verdict, colour = "worse, within the threshold", "#9a6700"
		case r.Significant:
			verdict, colour = "better", "#1a7f37"
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, `<rect x="0" y="%d" width="%d" height="%d" fill="#f6f8fa"/>`, y, stripW, stripRowH)
		}
		fmt.Fprintf(&b, `<text x="4" y="%.1f" font-size="12" font-weight="bold">%s <tspan font-weight="normal" fill="#666">(%s)</tspan></text>`, mid-3, esc(string(r.Metric)), esc(r.Unit))
		fmt.Fprintf(&b, `<text x="4" y="%.1f" font-size="11">%s → %s  <tspan fill="%s">%s %s</tspan>  %s</text>`,
			mid+11, esc(summaryText(r.Old, r.Unit)), esc(summaryText(r.New, r.Unit)), colour, esc(r.delta()), esc(verdict), esc(r.pn()))
		ov, nv := r.BaseValues, r.NewValues
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range append(slices.Clone(ov), nv...) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		for _, s := range []benchmath.Summary{r.Old, r.New} {
			for _, v := range []float64{s.Lo, s.Hi, s.Center} {
				if !math.IsInf(v, 0) && !math.IsNaN(v) {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
		if math.IsInf(lo, 0) {
			continue
		}
		if hi == lo {
			lo, hi = lo-math.Max(1, math.Abs(lo)*0.05), hi+math.Max(1, math.Abs(hi)*0.05)
			if lo < 0 && hi-1 >= 0 {
				lo = 0
			}
		}
		pad := (hi - lo) * 0.05
		// Counts, bytes and times are never negative: no axis below 0.
		if lo >= 0 {
			lo = math.Max(0, lo-pad)
		} else {
			lo -= pad
		}
		hi += pad
		X := func(v float64) float64 { return stripX0 + (v-lo)/(hi-lo)*(stripX1-stripX0) }
		// The row's own axis, in the metric's unit.
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ccc"/>`, stripX0, stripX1, mid, mid)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="10" fill="#666" text-anchor="end">%s</text>`, stripX0-4, mid+4, esc(metrics.FormatValue(lo, r.Unit)))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="10" fill="#666">%s</text>`, stripX1+4, mid+4, esc(metrics.FormatValue(hi, r.Unit)))
		side := func(s benchmath.Summary, vals []float64, dy float64, col, name string) {
			yy := mid + dy
			if !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) && !math.IsNaN(s.Lo) && s.Hi > s.Lo {
				fmt.Fprintf(&b, `<rect class="ci" x="%.1f" y="%.1f" width="%.1f" height="6" fill="%s" fill-opacity="0.25"><title>%s: 95%% CI %s … %s</title></rect>`,
					X(s.Lo), yy-3, X(s.Hi)-X(s.Lo), col, name, esc(metrics.FormatValue(s.Lo, r.Unit)), esc(metrics.FormatValue(s.Hi, r.Unit)))
			}
			fmt.Fprintf(&b, `<line class="median" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"><title>%s: median %s</title></line>`,
				X(s.Center), X(s.Center), yy-7, yy+7, col, name, esc(metrics.FormatValue(s.Center, r.Unit)))
			for j, v := range vals {
				fmt.Fprintf(&b, `<circle class="run" cx="%.1f" cy="%.1f" r="3" fill="%s" fill-opacity="0.7"><title>%s run %d: %s</title></circle>`,
					X(v), yy, col, name, j+1, esc(metrics.FormatValue(v, r.Unit)))
			}
		}
		side(r.Old, ov, -6, colBase, "base")
		side(r.New, nv, 6, colNew, "new")
	}
	b.WriteString("</svg>")
	return b.String()
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
