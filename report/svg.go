package report

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/metrics"
)

// chart is one SVG line chart. Time runs along x in seconds since the step
// began; y is in unit.
type chart struct {
	id, title, unit string
	// xUnit names the x axis; default "s" (time since the step began).
	xUnit  string
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

const (
	chartW, chartH                     = 760, 230
	padL, padR, padT, padB             = 58, 14, 44, 34
	plotW, plotH                       = chartW - padL - padR, chartH - padT - padB
	colApp, colDevice, colRSS, colPSS  = "#1f77b4", "#7f7f7f", "#2ca02c", "#9467bd"
	colRx, colTx, colJank, colBudget   = "#17becf", "#ff7f0e", "#d62728", "#e377c2"
	colPerfDog, colBigJank, colRefresh = "#ff7f0e", "#8c0000", "#555555"
)

var threadColors = []string{"#bcbd22", "#8c564b", "#17becf"}

// niceStep returns a round tick spacing near span/5.
func niceStep(span float64) float64 {
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

func (c *chart) empty() bool {
	for _, l := range c.lines {
		if len(l.pts) > 0 {
			return false
		}
	}
	return true
}

// svg renders the chart. A chart without data says so instead of drawing
// empty axes, so a missing collector is visible.
func (c *chart) svg() string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="%s" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		esc(c.id), chartW, chartH, chartW, chartH, esc(c.title))
	fmt.Fprintf(&b, `<text class="title" x="%d" y="16" font-weight="bold">%s</text>`, padL, esc(c.title))
	if c.empty() {
		fmt.Fprintf(&b, `<text class="nodata" x="%d" y="%d" fill="#999">no data collected for this chart</text></svg>`, padL+20, padT+plotH/2)
		return b.String()
	}
	c.dropNonFinite()
	yMax := 0.0
	xMax := c.xMax
	if math.IsNaN(xMax) || math.IsInf(xMax, 0) {
		xMax = 0
	}
	for _, l := range c.lines {
		for _, p := range l.pts {
			yMax = max(yMax, p.y)
			xMax = max(xMax, p.x)
		}
	}
	for _, m := range c.marks {
		for _, p := range m.pts {
			yMax = max(yMax, p.y)
		}
	}
	for _, h := range c.hlines {
		yMax = max(yMax, h.y)
	}
	if yMax <= 0 {
		yMax = 1
	}
	if xMax <= 0 {
		xMax = 1
	}
	yStep := niceStep(yMax * 1.05)
	yTop := math.Ceil(yMax*1.05/yStep) * yStep
	if math.IsInf(yTop, 0) || math.IsNaN(yTop) {
		// Values near the float64 limit: no headroom, no rounding.
		yTop, yStep = yMax, yMax/5
	}
	xStep := niceStep(xMax)
	X := func(x float64) float64 { return padL + x/xMax*plotW }
	Y := func(y float64) float64 { return padT + plotH - y/yTop*plotH }

	// Gaps first, so everything else draws over them.
	for _, g := range c.gaps {
		x0, x1 := X(max(0, g[0])), X(min(xMax, g[1]))
		fmt.Fprintf(&b, `<rect class="gap" x="%.1f" y="%d" width="%.1f" height="%d" fill="#f4cccc"><title>failed tick</title></rect>`,
			x0, padT, max(1.5, x1-x0), plotH)
	}
	// Grid and axes.
	// Tick loops count rather than add, so float rounding cannot make them
	// run on.
	for i := 0; i <= 12; i++ {
		y := float64(i) * yStep
		if y > yTop+yStep/2 {
			break
		}
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e5e5e5"/>`, padL, padL+plotW, Y(y), Y(y))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" font-size="11">%s</text>`, padL-4, Y(y)+4, tickLabel(y, yStep))
	}
	for i := 0; i <= 12; i++ {
		x := float64(i) * xStep
		if x > xMax+xStep/1e6 {
			break
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="11">%s</text>`, X(x), padT+plotH+14, tickLabel(x, xStep))
	}
	xUnit := c.xUnit
	if xUnit == "" {
		xUnit = "s"
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" font-size="11">%s</text>`, padL+plotW, padT+plotH+28, esc(xUnit))
	fmt.Fprintf(&b, `<text x="4" y="%d" font-size="11">%s</text>`, padT-6, esc(c.unit))
	fmt.Fprintf(&b, `<path class="axis" d="M%d %dV%dH%d" stroke="#333" fill="none"/>`, padL, padT, padT+plotH, padL+plotW)

	for _, l := range c.lines {
		if len(l.pts) == 0 {
			continue
		}
		var d strings.Builder
		for i, p := range l.pts {
			cmd := "L"
			if i == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f", cmd, X(p.x), Y(p.y))
		}
		if len(l.pts) == 1 {
			// A lone point still shows: a short tick, and a dot below.
			fmt.Fprintf(&d, "h2")
		}
		fmt.Fprintf(&b, `<path class="series" data-series="%s" d="%s" stroke="%s" stroke-width="1.5" fill="none"/>`, esc(l.name), d.String(), l.color)
		// Each point says what it is on hover (an SVG title, no script);
		// a lone point or a few are also drawn as dots, or they vanish.
		if len(l.pts) > maxHoverPoints {
			continue
		}
		r, op := 3.0, 0.0
		if len(l.pts) <= 3 {
			op = 1
		}
		for _, p := range l.pts {
			fmt.Fprintf(&b, `<circle class="point" data-series="%s" cx="%.1f" cy="%.1f" r="%.1f" fill="%s" fill-opacity="%g"><title>%s at %s %s: %s %s</title></circle>`,
				esc(l.name), X(p.x), Y(p.y), r, l.color, op, esc(l.name), tickLabel(p.x, xStep/100), esc(xUnit), esc(metrics.FormatValue(p.y, "")), esc(c.unit))
		}
	}
	budgets := 0
	for _, h := range c.hlines {
		fmt.Fprintf(&b, `<line class="%s" x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="6 4" stroke-width="1.5"><title>%s</title></line>`,
			esc(h.class), padL, padL+plotW, Y(h.y), Y(h.y), h.color, esc(h.label))
		// Reference labels sit on the right, budget labels along the left
		// side one after another, so lines close together stay readable.
		x, anchor := float64(padL+plotW-2), "end"
		if h.class == "budget" {
			x, anchor = float64(padL+4+budgets*190), "start"
			budgets++
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="%s" font-size="10" fill="%s">%s</text>`, x, Y(h.y)-3, anchor, h.color, esc(h.label))
	}
	for _, m := range c.marks {
		for i, p := range m.pts {
			what := metrics.FormatValue(p.y, "") + " " + c.unit
			if i < len(m.notes) {
				what = m.notes[i]
			}
			href := m.links[int64(math.Round(p.x*1000))]
			if href != "" {
				fmt.Fprintf(&b, `<a href="%s">`, esc(href))
			}
			fmt.Fprintf(&b, `<circle class="jank %s" cx="%.1f" cy="%.1f" r="%.1f" fill="none" stroke="%s" stroke-width="1.5"><title>%s at %.3f s: %s</title></circle>`,
				esc(m.class), X(p.x), Y(p.y), m.r, m.color, esc(m.name), p.x, esc(what))
			if href != "" {
				b.WriteString("</a>")
			}
		}
	}
	// Legend on its own row under the title.
	lx := float64(padL)
	// A long legend (three named threads) gets smaller type rather than
	// running off the chart.
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
	if items := len(c.lines) + len(c.marks); 22*float64(items)+perChar*float64(chars) > chartW-padL {
		font, perChar = 9, 5.0
	}
	item := func(color, name string, dot bool) {
		if dot {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="30" r="4" fill="none" stroke="%s" stroke-width="1.5"/>`, lx+5, color)
		} else {
			fmt.Fprintf(&b, `<rect x="%.1f" y="28" width="12" height="3" fill="%s"/>`, lx, color)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="34" font-size="%g">%s</text>`, lx+15, font, esc(name))
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
	b.WriteString("</svg>")
	return b.String()
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

// tickLabel prints an axis value with as many decimals as the tick
// spacing step needs, so neighbouring ticks never print alike (0.005 and
// 0.0075, not 0.01 and 0.01).
func tickLabel(v, step float64) string {
	if step <= 0 || math.IsNaN(step) || math.IsInf(step, 0) {
		return formatTick(v)
	}
	d := 0
	for s := step; d < 9 && math.Abs(s-math.Round(s)) > 1e-9*math.Max(1, math.Abs(s)); s *= 10 {
		d++
	}
	out := strconv.FormatFloat(v, 'f', d, 64)
	if out == "-0" || strings.Trim(out, "-0.") == "" {
		return "0"
	}
	return out
}

// formatTick prints an axis value without trailing zeros.
func formatTick(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// NiceStep returns a round axis tick spacing near span/5, the one the
// report's charts use; other perfgate pages (history trends) draw their
// axes with it too.
func NiceStep(span float64) float64 { return niceStep(span) }

// FormatTick prints an axis value the way the report's charts do.
func FormatTick(v float64) string { return formatTick(v) }
