// Package powerchart draws the energy lane's charts on the report's page:
// per step the power the phone drew from its battery at each read
// (current_now × voltage_now, drawn positive in the sign convention the
// step names) with the step's mean (power_mean_mw) or why it has none,
// and its energy per group of power rails (Rails); per session every
// read over the whole session, its steps shaded (Session).
//
//	hs.Charts = powerchart.Append(charts, (*chart).svg, r, st)
//	hr.Power = template.HTML(powerchart.Session(r))
package powerchart

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/perfgate/perfgate/internal/svgchart"
	"github.com/perfgate/perfgate/result"
)

// frame is the report's chart size (report/svg.go).
var frame = svgchart.Frame{W: 760, H: 230, PadL: 58, PadR: 14, PadT: 44, PadB: 34}

// Append renders the report's charts (svg draws one) and adds the step's
// power chart and its power rails chart (Rails) after them, when the
// session ran the energy lane.
func Append[C any](charts []C, svg func(C) string, r *result.Result, st *result.Step) []template.HTML {
	out := make([]template.HTML, 0, len(charts)+1)
	for _, c := range charts {
		out = append(out, template.HTML(svg(c)))
	}
	if st.Energy != nil {
		out = append(out, template.HTML(Step(r, st)), template.HTML(Rails(st)))
	}
	return out
}

// Point is one read: seconds since the step began and mW drawn.
type Point struct{ S, MW float64 }

// Points are the power of the reads the step's figures use (the last at
// or before its start, those inside, the first at or after its end), at
// their time since the step began kept within the step, in mW: drawn from
// the battery, positive, where the convention is known (sign 1), as the
// phone's sign gives it otherwise (sign 0).
func Points(r *result.Result, st *result.Step) (pts []Point, sign int) {
	sign = 0
	if e := st.Energy; e != nil {
		switch {
		case strings.HasPrefix(e.Convention, "negative = discharging"):
			sign = -1
		case strings.HasPrefix(e.Convention, "positive = discharging"):
			sign = 1
		}
	}
	d := float64(sign)
	if sign == 0 {
		d = 1
	}
	stepS := float64(st.HostEndNs-st.HostStartNs) / 1e9
	first, last := 0, len(r.Power)-1
	for i, p := range r.Power {
		if p.HostNs <= st.HostStartNs {
			first = i
		}
		if p.HostNs >= st.HostEndNs {
			last = i
			break
		}
	}
	for _, p := range r.Power[first : last+1] {
		s := min(max(0, float64(p.HostNs-st.HostStartNs)/1e9), stepS)
		pts = append(pts, Point{s, d * p.CurrentMA * p.VoltageMV / 1000})
	}
	if sign != 0 {
		sign = 1
	}
	return pts, sign
}

// Step draws the step's power chart.
func Step(r *result.Result, st *result.Step) string {
	pts, sign := Points(r, st)
	title := "Power drawn from the battery per read (current_now × voltage_now), mW"
	if sign == 0 {
		title = "Battery power per read (current_now × voltage_now), mW with the sign the phone reports"
	}
	c := svgchart.New(frame, "chart", "data-chart", "power", title)
	c.Label(svgchart.Label{Class: "title", X: float64(frame.PadL), Y: 16, Bold: true, Text: title})
	if len(pts) == 0 {
		why := "no read of the battery"
		if st.Energy != nil && st.Energy.Why != "" {
			why = st.Energy.Why
		}
		return c.NoData(why)
	}
	lo, hi := 0.0, 0.0
	for _, p := range pts {
		lo, hi = min(lo, p.MW), max(hi, p.MW)
	}
	e := st.Energy
	if e.Measured {
		hi = max(hi, e.PowerMeanMW)
	}
	c.ScaleYRange(lo, hi)
	stepS := max(float64(st.HostEndNs-st.HostStartNs)/1e9, 1e-3)
	c.LinearX(stepS)
	c.Axes("mW")
	c.XTicks(0, stepS, svgchart.NiceStep(stepS), "s")
	c.Path("series", "power", len(pts), func(i int) (x, y float64) { return c.X(pts[i].S), c.Y(pts[i].MW) }, svgchart.Paint{Stroke: "#d62728", Width: 1.5})
	for _, p := range pts {
		c.Dot(svgchart.Dot{X: c.X(p.S), Y: c.Y(p.MW), R: 2.5, Paint: svgchart.Paint{Fill: "#d62728"}, Title: fmt.Sprintf("%.2f s: %.0f mW", p.S, p.MW)})
	}
	if e.Measured {
		label := fmt.Sprintf("mean %.0f mW (%.1f mJ ± %.1f, %s)", e.PowerMeanMW, e.EnergyMJ, e.ErrorMJ, e.Convention)
		c.Rule("mean", label, "#7f7f7f", c.Y(e.PowerMeanMW), float64(frame.PadL+frame.PlotW()), "end")
	} else if e.Why != "" {
		c.Label(svgchart.Label{X: float64(frame.PadL + 8), Y: float64(frame.PadT + 14), Size: 11, Text: e.Why})
	}
	return c.End()
}
