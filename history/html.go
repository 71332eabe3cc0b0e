package history

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/internal/atomicfile"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report"
)

// PageOptions shape the trend pages.
type PageOptions struct {
	// Title heads every page; default "perfgate history".
	Title string
	// Budgets are drawn as dashed lines on the charts of their step and
	// metric.
	Budgets []budget.Limit
}

func (o PageOptions) title() string {
	if o.Title == "" {
		return "perfgate history"
	}
	return o.Title
}

// PageName is the file name (without .html) of a metric's trend page.
func PageName(metric string) string { return report.FileName("trend-" + metric) }

// WritePages writes one self-contained HTML page per metric into dir
// (trend-<metric>.html, every series of that metric, one chart each) and
// an index.html linking them.
func WritePages(dir string, trends []Trend, o PageOptions) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("history pages: %w", err)
	}
	byMetric := map[string][]Trend{}
	for _, t := range trends {
		byMetric[t.Metric] = append(byMetric[t.Metric], t)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for m := range byMetric {
			if !yield(m) {
				return
			}
		}
	})
	var idx []indexEntry
	for _, m := range names {
		var b bytes.Buffer
		if err := WritePage(&b, m, byMetric[m], o); err != nil {
			return err
		}
		file := PageName(m) + ".html"
		if err := atomicfile.Write(filepath.Join(dir, file), b.Bytes()); err != nil {
			return fmt.Errorf("history pages: %w", err)
		}
		e := indexEntry{Metric: m, File: file, Series: len(byMetric[m])}
		for _, t := range byMetric[m] {
			for _, c := range t.Changes {
				e.Changes++
				if c.Regression {
					e.Regressions++
				}
			}
		}
		idx = append(idx, e)
	}
	var b bytes.Buffer
	if err := indexPage.Execute(&b, struct {
		Title   string
		Metrics []indexEntry
	}{o.title(), idx}); err != nil {
		return fmt.Errorf("history pages: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, "index.html"), b.Bytes()); err != nil {
		return fmt.Errorf("history pages: %w", err)
	}
	return nil
}

type indexEntry struct {
	Metric, File                 string
	Series, Changes, Regressions int
}

const pageStyle = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:6px 0 18px}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
.reg{color:#cf222e;font-weight:bold}.imp{color:#1a7f37;font-weight:bold}h2{margin-top:32px}svg{display:block;margin:8px 0}a circle:hover{stroke-width:3}`

var indexPage = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}: trends</title><style>` + pageStyle + `</style></head>
<body><h1>{{.Title}}: trends</h1>
<table><tr><th>metric</th><th>series</th><th>change points</th><th>for the worse</th></tr>
{{range .Metrics}}<tr><td><a href="{{.File}}">{{.Metric}}</a></td><td>{{.Series}}</td><td>{{.Changes}}</td><td>{{if .Regressions}}<span class="reg">{{.Regressions}}</span>{{else}}0{{end}}</td></tr>
{{end}}</table></body></html>
`))

var metricPage = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}: {{.Metric}}</title><style>` + pageStyle + `</style></head>
<body><p><a href="index.html">all metrics</a></p><h1>{{.Metric}}</h1>
<p>{{.Definition}}. Each point is one run: the median of the step's iterations in that run; click it for the run's report. Dashed vertical lines are change points (E-divisive means, permutation test), flat lines the median level between them{{if .HasBudget}}, pink dashed lines budgets{{end}}.{{if .Summarised}} Of a long series the newest runs are points; the older ones are summarised on the left, each bar spanning the lowest to the highest value of a stretch of runs, its dot their median, a dashed line marking a stretch with change points (perfgate history html -last N draws the newest N runs as points; perfgate history trend lists every change point).{{end}}</p>
{{range .Series}}<section><h2>{{.Name}}</h2>
{{if .Note}}<p>{{.Note}}</p>
{{end}}{{.Chart}}
{{if .Changes}}<table><tr><th>first run of the new level</th><th>change</th><th>levels</th><th>p</th></tr>
{{range .Changes}}<tr><td>{{.At}}</td><td class="{{.Class}}">{{.Pct}}</td><td>{{.Levels}}</td><td>{{.P}}</td></tr>
{{end}}</table>{{if .Earlier}}<p>{{.Earlier}} earlier change points are not listed (perfgate history trend lists them all).</p>{{end}}{{else}}<p>No change points in {{.Runs}} runs.</p>{{end}}</section>
{{end}}</body></html>
`))

type pageSeries struct {
	Name    string
	Note    string
	Chart   template.HTML
	Runs    int
	Changes []pageChange
	Earlier int
}

// Bounds on a page, whatever the history holds: a series draws at most
// maxSpans bars for its older runs and lists its newest maxListed change
// points.
const (
	maxSpans  = 100
	maxListed = 50
)

type pageChange struct {
	At, Class, Pct, Levels, P string
}

// WritePage writes the trend page of one metric: a chart and a table of
// change points per series.
func WritePage(w io.Writer, metric string, trends []Trend, o PageOptions) error {
	data := struct {
		Title, Metric, Definition string
		HasBudget, Summarised     bool
		Series                    []pageSeries
	}{Title: o.title(), Metric: metric}
	for _, t := range trends {
		if t.Metric != metric {
			continue
		}
		if data.Definition == "" {
			data.Definition = t.Definition + ", in " + t.Unit
		}
		budgets := budgetsFor(o.Budgets, t.Step, metric)
		data.HasBudget = data.HasBudget || len(budgets) > 0
		ps := pageSeries{Name: fmt.Sprintf("%s · %s · %s", t.Test, t.Step, deviceName(t.Device)), Chart: template.HTML(trendSVG(t, budgets)), Runs: t.Len()}
		if t.Older > 0 {
			data.Summarised = true
			ps.Note = fmt.Sprintf("%d runs, %s … %s: the newest %d are points, the %d before them are summarised in stretches of about %d.",
				t.Len(), t.Time(0).UTC().Format("2006-01-02"), t.Time(t.Len()-1).UTC().Format("2006-01-02"), len(t.Points), t.Older, (t.Older+maxSpans-1)/min(maxSpans, t.Older))
		}
		changes := t.Changes
		if len(changes) > maxListed {
			ps.Earlier = len(changes) - maxListed
			changes = changes[ps.Earlier:]
		}
		for _, c := range changes {
			class := ""
			switch {
			case c.Regression:
				class = "reg"
			case c.Improvement:
				class = "imp"
			}
			ps.Changes = append(ps.Changes, pageChange{
				At:    fmt.Sprintf("%s (%s)", shortCommit(c.First.Commit, c.First.RunID), c.First.Time.UTC().Format("2006-01-02 15:04")),
				Class: class, Pct: fmt.Sprintf("%s (95%% CI %s … %s)", signedPct(c.ChangePct), signedPct(c.Low), signedPct(c.High)),
				Levels: fmt.Sprintf("%s → %s (%d runs before, %d after)", metrics.FormatValue(c.Before.Center, t.Unit), metrics.FormatValue(c.After.Center, t.Unit), c.NBefore, c.NAfter),
				P:      formatP(c.P),
			})
		}
		data.Series = append(data.Series, ps)
	}
	if err := metricPage.Execute(w, data); err != nil {
		return fmt.Errorf("history page %s: %w", metric, err)
	}
	return nil
}

// budgetsFor returns the budgets on metric of step (its base name), or of
// every step.
func budgetsFor(bs []budget.Limit, step, metric string) []budget.Limit {
	var out []budget.Limit
	for _, b := range bs {
		if string(b.Metric) == metric && b.AppliesTo(step) {
			out = append(out, b)
		}
	}
	return out
}

const (
	chartW, chartH         = 860, 260
	padL, padR, padT, padB = 64, 16, 20, 44
	plotW, plotH           = chartW - padL - padR, chartH - padT - padB
	colPoint, colLevel     = "#1f77b4", "#555555"
	colWorse, colBetter    = "#d62728", "#2ca02c"
	colNeutral, colBudget  = "#7f7f7f", "#e377c2"
)

// trendSVG draws one series: runs along x in order, the value up y from
// zero, every point a link to its run's report, the level between change
// points, the change points and the budgets. A series read in part
// (Older > 0) gets its older runs summarised on the left quarter of the
// chart, as at most maxSpans bars from the lowest to the highest value of
// a stretch of runs with a dot at their median, so the chart's size does
// not grow with the history. No script: the page works wherever HTML
// does.
func trendSVG(t Trend, budgets []budget.Limit) string {
	var b strings.Builder
	esc := template.HTMLEscapeString
	n := t.Len()
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="trend" data-metric="%s" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		esc(t.Metric), chartW, chartH, chartW, chartH, esc(t.Metric+" of "+t.Step+" over "+fmt.Sprint(n)+" runs"))
	if n == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#999">no runs measured this metric</text></svg>`, padL+20, padT+plotH/2)
		return b.String()
	}
	older := t.Older
	spans := t.Spans(maxSpans)
	yMax := 0.0
	for _, p := range t.Points {
		yMax = max(yMax, p.Value)
	}
	for _, sp := range spans {
		yMax = max(yMax, sp.Max)
	}
	for _, bu := range budgets {
		if !math.IsInf(bu.Value, 0) && !math.IsNaN(bu.Value) {
			yMax = max(yMax, bu.Value)
		}
	}
	if yMax <= 0 {
		yMax = 1
	}
	yStep := report.NiceStep(yMax * 1.05)
	yTop := math.Ceil(yMax*1.05/yStep) * yStep
	// x: the older runs' spans across the left quarter, then the runs
	// read in full, one by one, across the rest.
	detailL, detailW := float64(padL), float64(plotW)
	if older > 0 {
		detailL, detailW = padL+plotW/4, plotW*3/4
	}
	X := func(i float64) float64 {
		if i < float64(older) {
			return padL + (i+0.5)/float64(older)*(detailL-padL)
		}
		i -= float64(older)
		if d := len(t.Points); d > 1 {
			return detailL + i/float64(d-1)*detailW
		}
		return detailL + detailW/2
	}
	Y := func(v float64) float64 { return padT + plotH - v/yTop*plotH }
	for i := 0; i <= 12; i++ {
		y := float64(i) * yStep
		if y > yTop+yStep/2 {
			break
		}
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e5e5e5"/>`, padL, padL+plotW, Y(y), Y(y))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" font-size="11">%s</text>`, padL-4, Y(y)+4, report.FormatTick(y))
	}
	fmt.Fprintf(&b, `<text x="4" y="%d" font-size="11">%s</text>`, padT-6, esc(t.Unit))
	fmt.Fprintf(&b, `<path class="axis" d="M%d %dV%dH%d" stroke="#333" fill="none"/>`, padL, padT, padT+plotH, padL+plotW)
	if older > 0 {
		// The older runs: a bar and a dot per stretch, the boundary, and
		// the first date of the first and last stretch.
		fmt.Fprintf(&b, `<line class="older-edge" x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#999" stroke-dasharray="2 2"/>`, detailL-4, detailL-4, padT, padT+plotH)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="10" fill="#777">%d older runs</text><text x="%.1f" y="%d" font-size="10" fill="#777">newest %d runs</text>`,
			padL+4, padT+10, older, detailL+4, padT+10, len(t.Points))
		for k, sp := range spans {
			x := X(float64(sp.From+sp.To-1) / 2)
			title := fmt.Sprintf("%s … %s, %d runs: median %s, %s … %s", sp.First.UTC().Format("2006-01-02 15:04"), sp.Last.UTC().Format("2006-01-02 15:04"), sp.Runs,
				metrics.FormatValue(sp.Median, t.Unit), metrics.FormatValue(sp.Min, ""), metrics.FormatValue(sp.Max, ""))
			if sp.ChangePoints > 0 {
				title += fmt.Sprintf("; %d change points", sp.ChangePoints)
				fmt.Fprintf(&b, `<line class="older-change" x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-dasharray="4 3"/>`, x, x, padT, padT+plotH, colNeutral)
			}
			fmt.Fprintf(&b, `<g class="older"><title>%s</title><line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2" opacity="0.35"/><circle cx="%.1f" cy="%.1f" r="2" fill="%s"/></g>`,
				esc(title), x, x, Y(sp.Min), Y(sp.Max), colPoint, x, Y(sp.Median), colPoint)
			if k == 0 || k == len(spans)-1 {
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="10" fill="#777">%s</text>`, x, padT+plotH+27, sp.First.UTC().Format("01-02"))
			}
		}
	}
	// Commit labels under about eight evenly spaced runs read in full.
	d := len(t.Points)
	every := max(1, (d+7)/8)
	for k := 0; k < d; k += every {
		p := t.Points[k]
		x := X(float64(older + k))
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="10">%s</text><text x="%.1f" y="%d" text-anchor="middle" font-size="10" fill="#777">%s</text>`,
			x, padT+plotH+14, esc(shortCommit(p.Commit, p.RunID)), x, padT+plotH+27, p.Time.UTC().Format("01-02"))
	}
	// The level of each segment between change points, over the runs
	// read in full.
	edges := []int{0}
	for _, c := range t.Changes {
		edges = append(edges, c.Index)
	}
	edges = append(edges, n)
	for i := 0; i+1 < len(edges); i++ {
		lo, hi := edges[i], edges[i+1]
		if hi <= older {
			continue
		}
		seg := make([]float64, 0, hi-lo)
		for k := lo; k < hi; k++ {
			seg = append(seg, t.Value(k))
		}
		lvl := metrics.NearestRank(seg, 50)
		from := max(lo, older)
		fmt.Fprintf(&b, `<line class="level" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="2" opacity="0.6"><title>median %s over %d runs</title></line>`,
			X(float64(from)-0.4*boolf(from > 0 && from == lo)), X(float64(hi-1)+0.4*boolf(i+2 < len(edges))), Y(lvl), Y(lvl), colLevel, esc(metrics.FormatValue(lvl, t.Unit)), len(seg))
	}
	for _, bu := range budgets {
		if math.IsInf(bu.Value, 0) || math.IsNaN(bu.Value) {
			continue
		}
		fmt.Fprintf(&b, `<line class="budget" x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="6 4" stroke-width="1.5"><title>budget %s</title></line>`,
			padL, padL+plotW, Y(bu.Value), Y(bu.Value), colBudget, esc(bu.String()))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" font-size="10" fill="%s">budget %s</text>`, padL+4, Y(bu.Value)-3, colBudget, esc(bu.String()))
	}
	// The runs read in full.
	var path strings.Builder
	for k, p := range t.Points {
		cmd := "L"
		if k == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&path, "%s%.1f %.1f", cmd, X(float64(older+k)), Y(p.Value))
	}
	fmt.Fprintf(&b, `<path class="series" d="%s" stroke="%s" stroke-width="1" fill="none" opacity="0.5"/>`, path.String(), colPoint)
	for k, p := range t.Points {
		circle := fmt.Sprintf(`<circle class="run" cx="%.1f" cy="%.1f" r="3" fill="%s" stroke="%s"><title>%s · %s · %s (median of %d)</title></circle>`,
			X(float64(older+k)), Y(p.Value), colPoint, colPoint, esc(shortCommit(p.Commit, p.RunID)), p.Time.UTC().Format("2006-01-02 15:04"), esc(metrics.FormatValue(p.Value, t.Unit)), p.Iterations)
		if p.ReportURL != "" && SafeURL(p.ReportURL) {
			// Only a link a click cannot run: a shared history's rows come
			// from anyone who can write to it.
			fmt.Fprintf(&b, `<a href="%s">%s</a>`, esc(p.ReportURL), circle)
		} else {
			b.WriteString(circle)
		}
	}
	// Change points among the runs read in full, between the last run of
	// the old level and the first of the new (those among the older runs
	// mark their stretch above).
	for _, c := range t.Changes {
		if c.Index <= older {
			continue
		}
		col := colNeutral
		switch {
		case c.Regression:
			col = colWorse
		case c.Improvement:
			col = colBetter
		}
		x := X(float64(c.Index) - 0.5)
		label := fmt.Sprintf("%s at %s, p = %s", signedPct(c.ChangePct), shortCommit(c.First.Commit, c.First.RunID), formatP(c.P))
		fmt.Fprintf(&b, `<line class="change" x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-dasharray="4 3" stroke-width="1.5"><title>%s</title></line>`,
			x, x, padT, padT+plotH, col, esc(label))
		anchor := "start"
		if x > padL+plotW*0.75 {
			anchor = "end"
		}
		fmt.Fprintf(&b, `<text class="change-label" x="%.1f" y="%d" text-anchor="%s" font-size="11" fill="%s">%s</text>`, x+3-6*boolf(anchor == "end"), padT+12, anchor, col, esc(label))
	}
	b.WriteString("</svg>")
	return b.String()
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
