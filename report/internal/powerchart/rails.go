package powerchart

import (
	"fmt"
	"html/template"

	"github.com/perfgate/perfgate/internal/svgchart"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/result"
)

// Rails draws the step's energy per group of power rails (EnergyStats.Rails,
// from the phone's power monitors), one bar a group in the catalogue's
// order, each with its error bound (RailsErrorMJ); a group the monitors
// lack is named as such, never drawn as 0. A step without rails (most
// phones have no power monitors) gets a line saying why (RailsWhy)
// instead of an empty chart.
func Rails(st *result.Step) string {
	e := st.Energy
	if e == nil || len(e.Rails) == 0 {
		why := "no power rails read"
		if e != nil && e.RailsWhy != "" {
			why = e.RailsWhy
		}
		return `<p class="notes rails-absent">Power rails not measured: ` + template.HTMLEscapeString(why) + "</p>"
	}
	title := "Energy per power rail group over the step (IPowerStats), mJ"
	c := svgchart.New(frame, "chart", "data-chart", "power-rails", title)
	c.Label(svgchart.Label{Class: "title", X: float64(frame.PadL), Y: 16, Bold: true, Text: title})
	c.Label(svgchart.Label{X: float64(frame.PadL), Y: 32, Size: 11, Fill: "#666", Text: "dumpsys android.hardware.power.stats.IPowerStats/default; bars with their error bound"})
	top := 0.0
	for g, v := range e.Rails {
		top = max(top, v+e.RailsErrorMJ[g])
	}
	c.ScaleY(top, false)
	n := float64(len(metrics.RailEnergyNames))
	c.LinearX(n)
	c.Axes("mJ")
	slot := float64(c.PlotW()) / n
	base := float64(c.PadT + c.PlotH())
	for i, name := range metrics.RailEnergyNames {
		g := metrics.RailGroup(name)
		x := c.X(float64(i))
		c.Label(svgchart.Label{X: x + slot/2, Y: base + 14, Anchor: "middle", Size: 11, Text: g})
		v, ok := e.Rails[g]
		if !ok {
			c.Label(svgchart.Label{Class: "absent", X: x + slot/2, Y: base - 6, Anchor: "middle", Size: 10, Fill: "#999", Text: "no " + g + " rail"})
			continue
		}
		bound := e.RailsErrorMJ[g]
		label := fmt.Sprintf("%s: %.1f mJ ± %.3g", g, v, bound)
		c.Rect("rail", x+slot*0.2, c.Y(v), slot*0.6, base-c.Y(v), "#9467bd", label)
		c.Line("error", x+slot/2, c.Y(v+bound), x+slot/2, c.Y(max(0, v-bound)), svgchart.Paint{Stroke: "#333", Width: 1}, "")
		c.Label(svgchart.Label{X: x + slot/2, Y: c.Y(v+bound) - 3, Anchor: "middle", Size: 10, Text: fmt.Sprintf("%.1f", v)})
	}
	return c.End()
}
