package report

import (
	"fmt"
	"html"
	"math"
	"slices"

	"github.com/perfgate/perfgate/internal/svgchart"
	"github.com/perfgate/perfgate/metrics"
)

// chart is one SVG line chart. Time runs along x in seconds since the step
// began; y is in unit.
type chart struct {
	id, title, unit string
	// xUnit names the x axis; default "s" (time since the step began).
	xUnit string
	// xFrom, when set, counts the x axis from it to xMax − xFrom in whole
	// steps (launch 1, 2, …), a margin of xFrom at each end: no "0
	// launch", no "1.5 launch".
	xFrom  float64
	xMax   float64
	lines  []line
	hlines []hline
	marks  []marks
	gaps   [][2]float64
}

type line struct {
	name, color string
	pts         []pt
}

// hline is a horizontal reference: the refresh deadline or a budget.
type hline struct {
	class, label, color string
	y                   float64
}

// marks are points drawn as symbols over the lines: janky frames.
type marks struct {
	class, name, color string
	// r is the symbol's radius; bigger for the rarer definitions drawn
	// first, so smaller symbols stay visible on top of them.
	r   float64
	pts []pt
	// links are where a mark leads, by its x in whole ms: a janky frame's
	// row in the step's causes.
	links map[int64]string
	// notes, when set, say on hover what each point is, in place of its
	// value (a PerfDog mark sits on the frame but judged the interval).
	notes []string
}

// The charts' colours.
const (
	colApp, colDevice, colRSS, colPSS  = "#1f77b4", "#7f7f7f", "#2ca02c", "#9467bd"
	colRx, colTx, colJank, colBudget   = "#17becf", "#ff7f0e", "#d62728", "#e377c2"
	colPerfDog, colBigJank, colRefresh = "#ff7f0e", "#8c0000", "#555555"
)

var threadColors = []string{"#bcbd22", "#8c564b", "#17becf"}

func (c *chart) empty() bool {
	for _, l := range c.lines {
		if len(l.pts) > 0 {
			return false
		}
	}
	return true
}

// frame is the size of the report's charts.
var frame = svgchart.Frame{W: 760, H: 230, PadL: 58, PadR: 14, PadT: 44, PadB: 34}

// svg renders the chart. A chart without data says so instead of drawing
// empty axes, so a missing collector is visible.
func (c *chart) svg() string {
	cv := svgchart.New(frame, "chart", "data-chart", c.id, c.title)
	cv.Label(svgchart.Label{Class: "title", X: float64(frame.PadL), Y: 16, Bold: true, Text: c.title})
	if c.empty() {
		return cv.NoData("no data collected for this chart")
	}
	c.dropNonFinite()
	xMax, yMin, yMax := c.bounds()
	cv.ScaleYRange(yMin, yMax)
	cv.LinearX(xMax)
	xStep := svgchart.NiceStep(xMax)
	if c.xFrom > 0 {
		xStep = svgchart.WholeStep(xStep)
	}
	// Gaps first, so everything else draws over them.
	for _, g := range c.gaps {
		cv.Band("gap", cv.X(max(0, g[0])), cv.X(min(xMax, g[1])), "#f4cccc", "failed tick")
	}
	cv.Axes(c.unit)
	cv.XTicks(c.xFrom, xMax-c.xFrom, xStep, c.xLabel())
	c.drawLines(cv, xStep)
	c.drawRules(cv)
	c.drawMarks(cv)
	c.drawLegend(cv)
	return cv.End()
}

// xLabel names the x axis: its unit, by default seconds since the step
// began.
func (c *chart) xLabel() string {
	if c.xUnit == "" {
		return "s"
	}
	return c.xUnit
}

// bounds are the largest x and y the chart holds (its lines, marks and
// reference lines, and xMax when set), each 1 when there is none above 0.
func (c *chart) bounds() (xMax, yMin, yMax float64) {
	xMax = c.xMax
	if math.IsNaN(xMax) || math.IsInf(xMax, 0) {
		xMax = 0
	}
	for _, l := range c.lines {
		for _, p := range l.pts {
			yMin, yMax = min(yMin, p.y), max(yMax, p.y)
			xMax = max(xMax, p.x)
		}
	}
	for _, m := range c.marks {
		for _, p := range m.pts {
			yMax = max(yMax, p.y)
		}
	}
	for _, h := range c.hlines {
		yMin, yMax = min(yMin, h.y), max(yMax, h.y)
	}
	if xMax <= 0 {
		xMax = 1
	}
	return xMax, yMin, yMax
}

// drawLines draws each line, and its points with what each is on hover
// (an SVG title, no script); a lone point or a few are drawn as dots, or
// they would vanish.
func (c *chart) drawLines(cv *svgchart.Canvas, xStep float64) {
	for _, l := range c.lines {
		cv.Path("series", l.name, len(l.pts), func(i int) (x, y float64) { return cv.X(l.pts[i].x), cv.Y(l.pts[i].y) },
			svgchart.Paint{Stroke: l.color, Width: 1.5})
		if len(l.pts) > maxHoverPoints {
			continue
		}
		for _, p := range l.pts {
			cv.Dot(svgchart.Dot{Class: "point", Series: l.name, X: cv.X(p.x), Y: cv.Y(p.y), R: 3,
				Paint: svgchart.Paint{Fill: l.color, Ghost: len(l.pts) > 3},
				Title: fmt.Sprintf("%s at %s %s: %s %s", l.name, svgchart.TickLabel(p.x, xStep/100), c.xLabel(), metrics.FormatValue(p.y, ""), c.unit)})
		}
	}
}

// drawRules draws the reference lines: their labels sit on the right,
// budget labels along the left side one after another, so lines close
// together stay readable.
func (c *chart) drawRules(cv *svgchart.Canvas) {
	budgets := 0
	for _, h := range c.hlines {
		x, anchor := float64(frame.PadL+frame.PlotW()-2), "end"
		if h.class == "budget" {
			x, anchor = float64(frame.PadL+4+budgets*190), "start"
			budgets++
		}
		cv.Rule(h.class, h.label, h.color, cv.Y(h.y), x, anchor)
	}
}

// drawMarks draws the janky frames, each linked to its row in the step's
// causes when it has one.
func (c *chart) drawMarks(cv *svgchart.Canvas) {
	for _, m := range c.marks {
		for i, p := range m.pts {
			what := metrics.FormatValue(p.y, "") + " " + c.unit
			if i < len(m.notes) {
				what = m.notes[i]
			}
			cv.Dot(svgchart.Dot{Class: "jank " + m.class, X: cv.X(p.x), Y: cv.Y(p.y), R: m.r,
				Paint: svgchart.Paint{Fill: "none", Stroke: m.color, Width: 1.5},
				Title: fmt.Sprintf("%s at %.3f s: %s", m.name, p.x, what), Href: m.links[int64(math.Round(p.x*1000))]})
		}
	}
}

// drawLegend writes the legend on its own row under the title. A long
// legend (three named threads) gets smaller type rather than running off
// the chart.
func (c *chart) drawLegend(cv *svgchart.Canvas) {
	chars := 0
	for _, l := range c.lines {
		chars += len([]rune(l.name))
	}
	for _, m := range c.marks {
		if len(m.pts) > 0 {
			chars += len([]rune(m.name)) + 4
		}
	}
	font, perChar := 11.0, 6.2
	if items := len(c.lines) + len(c.marks); 22*float64(items)+perChar*float64(chars) > float64(frame.W-frame.PadL) {
		font, perChar = 9, 5.0
	}
	lx := float64(frame.PadL)
	item := func(color, name string, dot bool) {
		if dot {
			cv.Dot(svgchart.Dot{X: lx + 5, Y: 30, R: 4, Paint: svgchart.Paint{Fill: "none", Stroke: color, Width: 1.5}})
		} else {
			cv.Rect("", lx, 28, 12, 3, color, "")
		}
		cv.Label(svgchart.Label{X: lx + 15, Y: 34, Size: font, Text: name})
		lx += 22 + perChar*float64(len([]rune(name)))
	}
	for _, l := range c.lines {
		item(l.color, l.name, false)
	}
	for _, m := range c.marks {
		if len(m.pts) > 0 {
			item(m.color, fmt.Sprintf("%s (%d)", m.name, len(m.pts)), true)
		}
	}
}

// dropNonFinite removes points no axis can hold; only corrupt input has
// them.
func (c *chart) dropNonFinite() {
	bad := func(p pt) bool {
		return math.IsNaN(p.x) || math.IsNaN(p.y) || math.IsInf(p.x, 0) || math.IsInf(p.y, 0)
	}
	for i := range c.lines {
		c.lines[i].pts = slices.DeleteFunc(c.lines[i].pts, bad)
	}
	for i := range c.marks {
		c.marks[i].pts = slices.DeleteFunc(c.marks[i].pts, bad)
	}
	c.hlines = slices.DeleteFunc(c.hlines, func(h hline) bool { return math.IsNaN(h.y) || math.IsInf(h.y, 0) })
}

func esc(s string) string { return html.EscapeString(s) }

// maxHoverPoints is how many points of a line get hover titles; a longer
// line (thousands of frames) would make the page heavy.
const maxHoverPoints = 1500
