// Package svgchart draws the charts of perfgate's pages as inline SVG that
// needs no script: a plot area whose y axis starts at zero, grid lines and
// tick labels, series, points that say what they are on hover and lead
// somewhere on a click, reference lines and labels. The report's step
// charts and the history's trend charts both draw with it, so an axis, a
// tick label or a hover title reads the same on every page.
//
//	c := svgchart.New(svgchart.Frame{W: 760, H: 230, PadL: 58, PadR: 14, PadT: 44, PadB: 34},
//		"chart", "data-chart", "fps", "frames per second")
//	c.ScaleY(60)
//	c.LinearX(10)
//	c.Axes("fps")
//	c.Path("series", "fps", len(pts), func(i int) (x, y float64) { return c.X(pts[i].X), c.Y(pts[i].Y) }, svgchart.Paint{Stroke: "#1f77b4"})
//	page := c.End()
//
// Every drawing method takes page coordinates; X and Y map data to them.
package svgchart

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Frame is a chart's size in pixels and the padding around its plot area.
type Frame struct {
	W, H                   int
	PadL, PadR, PadT, PadB int
}

// PlotW is the plot area's width.
func (f Frame) PlotW() int { return f.W - f.PadL - f.PadR }

// PlotH is the plot area's height.
func (f Frame) PlotH() int { return f.H - f.PadT - f.PadB }

// Canvas is one chart being drawn.
type Canvas struct {
	Frame
	// X maps a data x to a page x: LinearX sets it, a chart with an axis
	// of its own (runs in order, older ones summarised) sets it itself.
	X           func(float64) float64
	yTop, yStep float64
	// yBottom is the axis's foot: 0, or below it for values under zero
	// (ScaleYRange).
	yBottom float64
	b       strings.Builder
}

// New starts a chart of the given class (the kind of chart), with the
// attribute key="value" saying which one it is and title as its
// accessible name.
func New(f Frame, class, key, value, title string) *Canvas {
	c := &Canvas{Frame: f}
	c.X = func(x float64) float64 { return float64(f.PadL) + x }
	c.printf(`<svg xmlns="http://www.w3.org/2000/svg" class="%s" %s="%s" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		esc(class), key, esc(value), f.W, f.H, f.W, f.H, esc(title))
	return c
}

// NoData ends a chart that has nothing to draw with a note saying so, so
// that a missing collector or an empty series is visible rather than a
// pair of empty axes.
func (c *Canvas) NoData(note string) string {
	c.printf(`<text class="nodata" x="%d" y="%d" fill="#999">%s</text>`, c.PadL+20, c.PadT+c.PlotH()/2, esc(note))
	return c.End()
}

// End closes the chart and returns its markup.
func (c *Canvas) End() string {
	c.b.WriteString("</svg>")
	return c.b.String()
}

// ScaleY sets the y axis: from zero to a round value above yMax with 5%
// headroom, ticked at a round spacing. A yMax of zero or less draws the
// axis to 1. A whole axis counts things (metrics.Def.Count: frames,
// crashes): its ticks are whole numbers, never "1.05 frames".
func (c *Canvas) ScaleY(yMax float64, whole bool) {
	if !(yMax > 0) {
		yMax = 1
	}
	c.yStep = NiceStep(yMax * 1.05)
	if whole {
		c.yStep = WholeStep(c.yStep)
	}
	c.yTop = math.Ceil(yMax*1.05/c.yStep) * c.yStep
	if math.IsInf(c.yTop, 0) || math.IsNaN(c.yTop) {
		// Values near the float64 limit: no headroom, no rounding.
		c.yTop, c.yStep = yMax, yMax/5
	}
}

// ScaleYRange is ScaleY for values that may fall below zero (a battery
// current the phone reports negative): the axis runs from a round value
// below yMin, when yMin < 0, to one above yMax, through zero.
func (c *Canvas) ScaleYRange(yMin, yMax float64) {
	if !(yMin < 0) {
		c.ScaleY(yMax, false)
		return
	}
	c.ScaleY(max(yMax, 0)-yMin, false)
	c.yBottom = math.Floor(yMin*1.05/c.yStep) * c.yStep
	c.yTop = c.yBottom + math.Ceil((max(yMax, 0)*1.05-c.yBottom)/c.yStep)*c.yStep
}

// Y maps a data y to a page y.
func (c *Canvas) Y(v float64) float64 {
	return float64(c.PadT+c.PlotH()) - (v-c.yBottom)/(c.yTop-c.yBottom)*float64(c.PlotH())
}

// LinearX makes X map 0 … xMax across the plot area.
func (c *Canvas) LinearX(xMax float64) {
	c.X = func(x float64) float64 { return float64(c.PadL) + x/xMax*float64(c.PlotW()) }
}

// Axes draws the grid lines across the plot with their tick labels, the
// unit above the y axis, and the axes themselves.
func (c *Canvas) Axes(unit string) {
	// Tick loops count rather than add, so float rounding cannot make
	// them run on.
	for i := 0; i <= 12; i++ {
		y := c.yBottom + float64(i)*c.yStep
		if y > c.yTop+c.yStep/2 {
			break
		}
		c.printf(`<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e5e5e5"/>`, c.PadL, c.PadL+c.PlotW(), c.Y(y), c.Y(y))
		c.Label(Label{X: float64(c.PadL - 4), Y: c.Y(y) + 4, Anchor: "end", Size: 11, Text: TickLabel(y, c.yStep)})
	}
	c.Label(Label{X: 4, Y: float64(c.PadT - 6), Size: 11, Text: unit})
	c.printf(`<path class="axis" d="M%d %dV%dH%d" stroke="#333" fill="none"/>`, c.PadL, c.PadT, c.PadT+c.PlotH(), c.PadL+c.PlotW())
}

// XTicks labels the x axis from `from` to xMax every step, and names its
// unit at its right end. An axis of things counted from one (launches)
// starts from 1 with a whole step (WholeStep).
func (c *Canvas) XTicks(from, xMax, step float64, unit string) {
	base := float64(c.PadT + c.PlotH())
	for i := 0; i <= 12; i++ {
		x := from + float64(i)*step
		if x > xMax+step/1e6 {
			break
		}
		c.Label(Label{X: c.X(x), Y: base + 14, Anchor: "middle", Size: 11, Text: TickLabel(x, step)})
	}
	c.Label(Label{X: float64(c.PadL + c.PlotW()), Y: base + 28, Anchor: "end", Size: 11, Text: unit})
}

// Paint is how a mark is drawn; zero fields are left out.
type Paint struct {
	Fill, Stroke string
	// Width is the stroke's width; Dash its dash pattern ("6 4").
	Width float64
	Dash  string
	// Opacity below 1 fades the mark.
	Opacity float64
	// Ghost draws the mark's fill invisible: it still catches the pointer
	// and shows its title on hover.
	Ghost bool
}

func (p Paint) attrs() string {
	var b strings.Builder
	if p.Fill != "" {
		fmt.Fprintf(&b, ` fill="%s"`, esc(p.Fill))
	}
	if p.Ghost {
		b.WriteString(` fill-opacity="0"`)
	}
	if p.Stroke != "" {
		fmt.Fprintf(&b, ` stroke="%s"`, esc(p.Stroke))
	}
	if p.Dash != "" {
		fmt.Fprintf(&b, ` stroke-dasharray="%s"`, esc(p.Dash))
	}
	if p.Width > 0 {
		fmt.Fprintf(&b, ` stroke-width="%g"`, p.Width)
	}
	if p.Opacity > 0 && p.Opacity < 1 {
		fmt.Fprintf(&b, ` opacity="%g"`, p.Opacity)
	}
	return b.String()
}

// Path draws a series through n points, at(i) giving the i-th; series,
// when set, names it in a data-series attribute. A lone point still
// shows, as a short tick.
func (c *Canvas) Path(class, series string, n int, at func(i int) (x, y float64), p Paint) {
	if n == 0 {
		return
	}
	var d strings.Builder
	for i := range n {
		cmd := "L"
		if i == 0 {
			cmd = "M"
		}
		x, y := at(i)
		fmt.Fprintf(&d, "%s%.1f %.1f", cmd, x, y)
	}
	if n == 1 {
		d.WriteString("h2")
	}
	p.Fill = "none"
	c.printf(`<path class="%s"%s d="%s"%s/>`, esc(class), seriesAttr(series), d.String(), p.attrs())
}

// Dot is a circle that says what it is on hover (Title) and, with Href,
// leads there on a click.
type Dot struct {
	Class, Series string
	X, Y, R       float64
	Paint
	Title, Href string
}

// Dot draws d.
func (c *Canvas) Dot(d Dot) {
	if d.Href != "" {
		c.printf(`<a href="%s">`, esc(d.Href))
	}
	c.printf(`<circle%s%s cx="%.1f" cy="%.1f" r="%g"%s`, classAttr(d.Class), seriesAttr(d.Series), d.X, d.Y, d.R, d.attrs())
	c.closeTitled("circle", d.Title)
	if d.Href != "" {
		c.b.WriteString("</a>")
	}
}

// Line draws a segment, titled when title is set.
func (c *Canvas) Line(class string, x1, y1, x2, y2 float64, p Paint, title string) {
	c.printf(`<line%s x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f"%s`, classAttr(class), x1, x2, y1, y2, p.attrs())
	c.closeTitled("line", title)
}

// VLine draws a line at page x from the top of the plot area to its
// bottom: a change point, an edge between two parts of an axis.
func (c *Canvas) VLine(class string, x float64, p Paint, title string) {
	c.Line(class, x, float64(c.PadT), x, float64(c.PadT+c.PlotH()), p, title)
}

// Rule draws a dashed reference line across the plot at page y (a
// budget, the refresh period), titled with its label and labelled at
// labelX just above it, anchored as anchor says ("start", "end").
func (c *Canvas) Rule(class, label, color string, y, labelX float64, anchor string) {
	c.Line(class, float64(c.PadL), y, float64(c.PadL+c.PlotW()), y, Paint{Stroke: color, Dash: "6 4", Width: 1.5}, label)
	c.Label(Label{X: labelX, Y: y - 3, Anchor: anchor, Size: 10, Fill: color, Text: label})
}

// Rect draws a filled rectangle, titled when title is set.
func (c *Canvas) Rect(class string, x, y, w, h float64, fill, title string) {
	c.printf(`<rect%s x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"`, classAttr(class), x, y, w, h, esc(fill))
	c.closeTitled("rect", title)
}

// Band shades page x0 … x1 over the plot's height (a span nothing was
// read in), at least 1.5 pixels wide so that a short one still shows.
func (c *Canvas) Band(class string, x0, x1 float64, fill, title string) {
	c.Rect(class, x0, float64(c.PadT), max(1.5, x1-x0), float64(c.PlotH()), fill, title)
}

// Label is a line of text on the chart.
type Label struct {
	X, Y float64
	Text string
	// Class, Fill and Size (the font size) are left out when empty;
	// Anchor is "start" when empty.
	Class, Anchor, Fill string
	Size                float64
	Bold                bool
}

// Label writes l.
func (c *Canvas) Label(l Label) {
	c.printf(`<text%s x="%.1f" y="%.1f"`, classAttr(l.Class), l.X, l.Y)
	if l.Anchor != "" {
		c.printf(` text-anchor="%s"`, esc(l.Anchor))
	}
	if l.Size > 0 {
		c.printf(` font-size="%g"`, l.Size)
	}
	if l.Bold {
		c.b.WriteString(` font-weight="bold"`)
	}
	if l.Fill != "" {
		c.printf(` fill="%s"`, esc(l.Fill))
	}
	c.printf(`>%s</text>`, esc(l.Text))
}

// Group draws what draw draws as one group of the given class, titled:
// the parts of one mark that hover as one.
func (c *Canvas) Group(class, title string, draw func()) {
	c.printf(`<g%s><title>%s</title>`, classAttr(class), esc(title))
	draw()
	c.b.WriteString("</g>")
}

func (c *Canvas) printf(format string, args ...any) { fmt.Fprintf(&c.b, format, args...) }

// closeTitled ends an element's start tag: with its title as a child
// when there is one, else as an empty element.
func (c *Canvas) closeTitled(elem, title string) {
	if title == "" {
		c.b.WriteString("/>")
		return
	}
	c.printf(`><title>%s</title></%s>`, esc(title), elem)
}

func classAttr(class string) string {
	if class == "" {
		return ""
	}
	return ` class="` + esc(class) + `"`
}

func seriesAttr(series string) string {
	if series == "" {
		return ""
	}
	return ` data-series="` + esc(series) + `"`
}

func esc(s string) string { return template.HTMLEscapeString(s) }

// NiceStep returns a round tick spacing (1, 2, 2.5 or 5 times a power of
// ten) near span/5.
func NiceStep(span float64) float64 {
	if span <= 0 || math.IsNaN(span) || math.IsInf(span, 0) {
		return 1
	}
	raw := span / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

// WholeStep is a tick spacing for an axis that counts things: step
// itself when it is whole, else the whole number at or below it, and at
// least 1 (2.5 becomes 2, 0.25 becomes 1).
func WholeStep(step float64) float64 {
	if step == math.Trunc(step) && step >= 1 {
		return step
	}
	return max(1, math.Floor(step))
}

// TickLabel prints an axis value with as many decimals as the tick
// spacing step needs, trailing zeros dropped, so neighbouring ticks never
// print alike (0.005 and 0.0075, not 0.01 and 0.01) and whole ticks print
// whole ("5", not "5.0").
func TickLabel(v, step float64) string {
	d := 2
	if step > 0 && !math.IsNaN(step) && !math.IsInf(step, 0) {
		d = 0
		for s := step; d < 9 && math.Abs(s-math.Round(s)) > 1e-9*math.Max(1, math.Abs(s)); s *= 10 {
			d++
		}
	}
	out := strconv.FormatFloat(v, 'f', d, 64)
	if strings.Contains(out, ".") {
		out = strings.TrimSuffix(strings.TrimRight(out, "0"), ".")
	}
	if out == "-0" || strings.Trim(out, "-0.") == "" {
		return "0"
	}
	return out
}
