package powerchart

import (
	"fmt"
	"math"
	"strings"

	"github.com/perfgate/perfgate/internal/svgchart"
	"github.com/perfgate/perfgate/result"
)

// Session draws every read of the energy lane over the whole session
// (Result.Power), its steps shaded, power drawn from the battery positive
// where a step told the sign convention; "" when the session ran no
// energy lane, a chart saying why when the lane read nothing.
func Session(r *result.Result) string {
	sign, conv, ran := 0.0, "", len(r.Power) > 0
	for _, st := range r.Steps {
		if e := st.Energy; e != nil {
			ran = true
			switch {
			case sign != 0:
			case strings.HasPrefix(e.Convention, "negative = discharging"):
				sign, conv = -1, e.Convention
			case strings.HasPrefix(e.Convention, "positive = discharging"):
				sign, conv = 1, e.Convention
			}
		}
	}
	if !ran {
		return ""
	}
	title := "Power drawn from the battery per read over the session, mW"
	if sign == 0 {
		title = "Battery power per read over the session, mW with the phone's sign"
	}
	c := svgchart.New(frame, "chart", "data-chart", "power-session", title)
	c.Label(svgchart.Label{Class: "title", X: float64(frame.PadL), Y: 16, Bold: true, Text: title})
	if len(r.Power) == 0 {
		c.ScaleY(1, false)
		c.Axes("mW")
		return c.NoData("the energy lane read nothing in the session")
	}
	d := sign
	if d == 0 {
		d = 1
	}
	t0, t1 := int64(math.MaxInt64), int64(math.MinInt64)
	lo, hi := 0.0, 0.0
	for _, p := range r.Power {
		t0, t1 = min(t0, p.HostNs), max(t1, p.HostNs)
		mw := d * p.CurrentMA * p.VoltageMV / 1000
		lo, hi = min(lo, mw), max(hi, mw)
	}
	for _, st := range r.Steps {
		t0, t1 = min(t0, st.HostStartNs), max(t1, st.HostEndNs)
	}
	c.ScaleYRange(lo, hi)
	span := max(float64(t1-t0)/1e9, 1e-3)
	c.LinearX(span)
	for _, st := range r.Steps {
		c.Band("step", c.X(float64(st.HostStartNs-t0)/1e9), c.X(float64(st.HostEndNs-t0)/1e9), "#f2f2f2", "step "+st.Name)
		c.VLine("step-edge", c.X(float64(st.HostStartNs-t0)/1e9), svgchart.Paint{Stroke: "#bbb", Width: 1}, "start of step "+st.Name)
	}
	c.Axes("mW")
	c.XTicks(0, span, svgchart.NiceStep(span), "s")
	at := func(p result.PowerSample) (x, y float64) {
		return c.X(float64(p.HostNs-t0) / 1e9), c.Y(d * p.CurrentMA * p.VoltageMV / 1000)
	}
	c.Path("series", "power", len(r.Power), func(i int) (x, y float64) { return at(r.Power[i]) }, svgchart.Paint{Stroke: "#d62728", Width: 1.5})
	for _, p := range r.Power {
		x, y := at(p)
		c.Dot(svgchart.Dot{X: x, Y: y, R: 2, Paint: svgchart.Paint{Fill: "#d62728"}, Title: fmt.Sprintf("%.2f s: %.0f mW (%s)", float64(p.HostNs-t0)/1e9, d*p.CurrentMA*p.VoltageMV/1000, p.Status)})
	}
	if conv != "" {
		c.Label(svgchart.Label{X: float64(frame.PadL), Y: 32, Size: 11, Fill: "#666", Text: "current_now × voltage_now; sign: " + conv})
	}
	return c.End()
}
