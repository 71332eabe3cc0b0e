package history

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"html/template"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf8"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/internal/atomicfile"
	"github.com/perfgate/perfgate/internal/filename"
	"github.com/perfgate/perfgate/internal/svgchart"
	"github.com/perfgate/perfgate/metrics"
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

// PageName is the file name (without .html) of a metric's trend page. A
// name the file name cannot hold as it is (a section metric's,
// "section_sum:feed:%") gets a hash of itself, so that "feed:%" and
// "feed" have a page each.
func PageName(metric string) string {
	name := filename.Of("trend-" + metric)
	if name != "trend-"+metric {
		name += fmt.Sprintf("-%08x", crc32.ChecksumIEEE([]byte(metric)))
	}
	return name
}

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
	var bottom, top float64 // one scale for every chart of the page, so that their heights compare
	spans := make([][]Span, len(trends))
	for i, t := range trends {
		if t.Metric == metric {
			spans[i] = t.Spans(maxSpans)
			lo, hi := chartRange(t, spans[i], budgetsFor(o.Budgets, t.Step, metric))
			bottom, top = min(bottom, lo), max(top, hi)
		}
	}
	for i, t := range trends {
		if t.Metric != metric {
			continue
		}
		if data.Definition == "" {
			data.Definition = t.Definition + ", in " + t.Unit
		}
		budgets := budgetsFor(o.Budgets, t.Step, metric)
		data.HasBudget = data.HasBudget || len(budgets) > 0
		ps := pageSeries{Name: fmt.Sprintf("%s · %s · %s", t.Test, t.Step, deviceName(t.Device)), Chart: template.HTML(trendSVG(t, spans[i], budgets, bottom, top)), Runs: t.Len()}
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
				Class: class, Pct: c.Size(t.Unit),
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

// frame is the size of a trend chart.
var frame = svgchart.Frame{W: 860, H: 260, PadL: 64, PadR: 16, PadT: 20, PadB: 44}

// The trend charts' colours.
const (
	colPoint, colLevel    = "#1f77b4", "#555555"
	colWorse, colBetter   = "#d62728", "#2ca02c"
	colNeutral, colBudget = "#7f7f7f", "#e377c2"
)

// trendChart is the chart of one series being drawn: the runs read in
// full along the right of the x axis, the older runs' spans, when the
// series was read in part, on its left quarter.
type trendChart struct {
	t       Trend
	cv      *svgchart.Canvas
	spans   []Span
	detailL float64     // where the runs read in full begin
	top     [][]float64 // the x extents (from, to, from, to …) of the labels along the top, by line
}

// inset keeps the first and last runs off the plot's edges, so that the
// labels under them clear the y axis's ticks and the chart's edge.
const inset = 20

// trendSVG draws one series: runs along x in order, the value up y from
// zero (or a round value below bottom, for a figure below zero such as a
// frame overrun) to a round value above top, every point a link to its run's
// report, the level between change points, the change points and the
// budgets. A series read in part (Older > 0) gets its older runs
// summarised on the left quarter of the chart as spans (t.Spans(maxSpans)),
// at most maxSpans bars from the lowest to the highest value of a stretch
// of runs with a dot at their median, so the chart's size does not grow
// with the history. No script: the page works wherever HTML does.
func trendSVG(t Trend, spans []Span, budgets []budget.Limit, bottom, top float64) string {
	n := t.Len()
	cv := svgchart.New(frame, "trend", "data-metric", t.Metric, t.Metric+" of "+t.Step+" over "+fmt.Sprint(n)+" runs")
	if n == 0 {
		return cv.NoData("no runs measured this metric")
	}
	tc := &trendChart{t: t, cv: cv, spans: spans}
	if bottom < 0 {
		cv.ScaleYRange(bottom, top)
	} else {
		cv.ScaleY(top, metrics.Name(t.Metric).Def().Count)
	}
	tc.scaleX()
	cv.Axes(t.Unit)
	if t.Older > 0 {
		tc.drawOlder()
	}
	tc.drawCommits()
	tc.drawLevels()
	for _, bu := range budgets {
		if !math.IsInf(bu.Value, 0) && !math.IsNaN(bu.Value) {
			cv.Rule("budget", "budget "+bu.String(), colBudget, cv.Y(bu.Value), float64(frame.PadL+4), "")
		}
	}
	tc.drawRuns()
	tc.drawChanges()
	return cv.End()
}

// chartRange is the lowest (0 unless below it) and the highest value the
// chart of t draws: of a run, one of spans (its older runs' summary) or a
// budget.
func chartRange(t Trend, spans []Span, budgets []budget.Limit) (yMin, yMax float64) {
	for _, p := range t.Points {
		yMin, yMax = min(yMin, p.Value), max(yMax, p.Value)
	}
	for _, sp := range spans {
		yMin, yMax = min(yMin, sp.Min), max(yMax, sp.Max)
	}
	for _, bu := range budgets {
		if !math.IsInf(bu.Value, 0) && !math.IsNaN(bu.Value) {
			yMin, yMax = min(yMin, bu.Value), max(yMax, bu.Value)
		}
	}
	return yMin, yMax
}

// scaleX maps runs to x: the older runs' spans across the left quarter,
// then the runs read in full, one by one, across the rest.
func (tc *trendChart) scaleX() {
	older, d := float64(tc.t.Older), len(tc.t.Points)
	padL, plotW := float64(frame.PadL+inset), float64(frame.PlotW()-2*inset)
	detailL, detailW := padL, plotW
	if older > 0 {
		detailL, detailW = padL+plotW/4, plotW*3/4
	}
	tc.detailL = detailL
	tc.cv.X = func(i float64) float64 {
		if i < older {
			return padL + (i+0.5)/older*(detailL-padL)
		}
		i -= older
		if d > 1 {
			return detailL + i/float64(d-1)*detailW
		}
		return detailL + detailW/2
	}
}

// drawOlder summarises the older runs: a bar and a dot per stretch, the
// boundary, and the first date of the first and last stretch.
func (tc *trendChart) drawOlder() {
	cv, t := tc.cv, tc.t
	top := float64(frame.PadT + 10)
	cv.VLine("older-edge", tc.detailL-4, svgchart.Paint{Stroke: "#999", Dash: "2 2"}, "")
	for _, l := range []svgchart.Label{
		{X: float64(frame.PadL + 4), Y: top, Size: 10, Fill: "#777", Text: fmt.Sprintf("%d older runs", t.Older)},
		{X: tc.detailL + 4, Y: top, Size: 10, Fill: "#777", Text: fmt.Sprintf("newest %d runs", len(t.Points))},
	} {
		tc.topLabel(l)
	}
	for k, sp := range tc.spans {
		x := cv.X(float64(sp.From+sp.To-1) / 2)
		title := fmt.Sprintf("%s … %s, %d runs: median %s, %s … %s", sp.First.UTC().Format("2006-01-02 15:04"), sp.Last.UTC().Format("2006-01-02 15:04"), sp.Runs,
			metrics.FormatValue(sp.Median, t.Unit), metrics.FormatValue(sp.Min, ""), metrics.FormatValue(sp.Max, ""))
		if sp.ChangePoints > 0 {
			title += fmt.Sprintf("; %d change points", sp.ChangePoints)
			cv.VLine("older-change", x, svgchart.Paint{Stroke: colNeutral, Dash: "4 3"}, "")
		}
		cv.Group("older", title, func() {
			cv.Line("", x, cv.Y(sp.Min), x, cv.Y(sp.Max), svgchart.Paint{Stroke: colPoint, Width: 2, Opacity: 0.35}, "")
			cv.Dot(svgchart.Dot{X: x, Y: cv.Y(sp.Median), R: 2, Paint: svgchart.Paint{Fill: colPoint}})
		})
		if k == 0 || k == len(tc.spans)-1 {
			cv.Label(svgchart.Label{X: x, Y: float64(frame.PadT + frame.PlotH() + 27), Anchor: "middle", Size: 10, Fill: "#777", Text: sp.First.UTC().Format("01-02")})
		}
	}
}

// drawCommits writes commit labels and dates under about eight evenly
// spaced runs read in full.
func (tc *trendChart) drawCommits() {
	d := len(tc.t.Points)
	base := float64(frame.PadT + frame.PlotH())
	for k := 0; k < d; k += max(1, (d+7)/8) {
		p := tc.t.Points[k]
		x := tc.cv.X(float64(tc.t.Older + k))
		tc.cv.Label(svgchart.Label{X: x, Y: base + 14, Anchor: "middle", Size: 10, Text: shortCommit(p.Commit, p.RunID)})
		tc.cv.Label(svgchart.Label{X: x, Y: base + 27, Anchor: "middle", Size: 10, Fill: "#777", Text: p.Time.UTC().Format("01-02")})
	}
}

// drawLevels draws the level of each segment between change points, over
// the runs read in full.
func (tc *trendChart) drawLevels() {
	t, cv, older := tc.t, tc.cv, tc.t.Older
	edges := []int{0}
	for _, c := range t.Changes {
		edges = append(edges, c.Index)
	}
	edges = append(edges, t.Len())
	for i := 0; i+1 < len(edges); i++ {
		lo, hi := edges[i], edges[i+1]
		if hi <= older {
			continue
		}
		seg := make([]float64, 0, hi-lo)
		for k := lo; k < hi; k++ {
			seg = append(seg, t.Value(k))
		}
		lvl := frames.NearestRank(seg, 50)
		from := max(lo, older)
		x1 := cv.X(float64(from) - 0.4*boolf(from > 0 && from == lo))
		x2 := cv.X(float64(hi-1) + 0.4*boolf(i+2 < len(edges)))
		cv.Line("level", x1, cv.Y(lvl), x2, cv.Y(lvl), svgchart.Paint{Stroke: colLevel, Width: 2, Opacity: 0.6},
			fmt.Sprintf("median %s over %d runs", metrics.FormatValue(lvl, t.Unit), len(seg)))
	}
}

// drawRuns draws the runs read in full: a faint line through them and a
// dot per run, a link to its report.
func (tc *trendChart) drawRuns() {
	t, cv := tc.t, tc.cv
	at := func(k int) (x, y float64) { return cv.X(float64(t.Older + k)), cv.Y(t.Points[k].Value) }
	cv.Path("series", "", len(t.Points), at, svgchart.Paint{Stroke: colPoint, Width: 1, Opacity: 0.5})
	for k, p := range t.Points {
		x, y := at(k)
		dot := svgchart.Dot{Class: "run", X: x, Y: y, R: 3, Paint: svgchart.Paint{Fill: colPoint, Stroke: colPoint},
			Title: fmt.Sprintf("%s · %s · %s (median of %d)", shortCommit(p.Commit, p.RunID), p.Time.UTC().Format("2006-01-02 15:04"), metrics.FormatValue(p.Value, t.Unit), p.Iterations)}
		if p.ReportURL != "" && SafeURL(p.ReportURL) {
			// Only a link a click cannot run: a shared history's rows come
			// from anyone who can write to it.
			dot.Href = p.ReportURL
		}
		cv.Dot(dot)
	}
}

// drawChanges draws the change points among the runs read in full,
// between the last run of the old level and the first of the new (those
// among the older runs mark their stretch).
func (tc *trendChart) drawChanges() {
	for _, c := range tc.t.Changes {
		if c.Index <= tc.t.Older {
			continue
		}
		col := colNeutral
		switch {
		case c.Regression:
			col = colWorse
		case c.Improvement:
			col = colBetter
		}
		x := tc.cv.X(float64(c.Index) - 0.5)
		label := fmt.Sprintf("%s at %s, p = %s", c.Short(tc.t.Unit), shortCommit(c.First.Commit, c.First.RunID), formatP(c.P))
		tc.cv.VLine("change", x, svgchart.Paint{Stroke: col, Dash: "4 3", Width: 1.5}, label)
		l := svgchart.Label{Class: "change-label", X: x + 3, Y: float64(frame.PadT + 12), Anchor: "start", Size: 11, Fill: col, Text: label}
		if x > float64(frame.PadL)+float64(frame.PlotW())*0.75 {
			l.X, l.Anchor = x-3, "end"
		}
		tc.topLabel(l)
	}
}

// topLabel draws a label along the top of the plot on the first line
// down, from l.Y, where it overlaps no label drawn there before: change
// points a few runs apart get their labels one under the other.
func (tc *trendChart) topLabel(l svgchart.Label) {
	w := 0.62 * l.Size * float64(utf8.RuneCountInString(l.Text)) // a generous width of the font's characters
	from := l.X
	if l.Anchor == "end" {
		from -= w
	}
	line := 0
	for ; line < len(tc.top); line++ {
		free := true
		for i := 0; i+1 < len(tc.top[line]); i += 2 {
			if from < tc.top[line][i+1] && tc.top[line][i] < from+w {
				free = false
			}
		}
		if free {
			break
		}
	}
	if line == len(tc.top) {
		tc.top = append(tc.top, nil)
	}
	tc.top[line] = append(tc.top[line], from, from+w)
	l.Y += float64(line) * 14
	tc.cv.Label(l)
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
