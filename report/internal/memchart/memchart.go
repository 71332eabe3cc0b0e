// Package memchart draws a session's memory broken down by the App Summary
// of `dumpsys meminfo`: one stacked bar per read at its time, Java heap at
// the bottom, then native heap, code, stack, graphics and private other,
// each part saying its row and size on hover, over bands that mark the
// steps. A bar's height is their sum, the app's PSS less the System row.
//
//	svg := memchart.Session(r)
package memchart

import (
	"fmt"
	"math"

	"github.com/perfgate/perfgate/internal/svgchart"
	"github.com/perfgate/perfgate/result"
)

// Rows are the App Summary rows the bars stack, bottom up, with their
// colours.
var Rows = []struct{ Key, Name, Color string }{
	{"java_heap_kb", "Java heap", "#1f77b4"}, {"native_heap_kb", "native heap", "#ff7f0e"},
	{"code_kb", "code", "#2ca02c"}, {"stack_kb", "stack", "#d62728"},
	{"graphics_kb", "graphics", "#9467bd"}, {"private_other_kb", "private other", "#8c564b"},
}

// Reads are the reads of samples in [startNs, endNs] that printed an App
// Summary.
func Reads(samples []result.MemorySample, startNs, endNs int64) []result.MemorySample {
	var out []result.MemorySample
	for _, m := range samples {
		if m.HostNs >= startNs && m.HostNs <= endNs && m.Summary != nil {
			out = append(out, m)
		}
	}
	return out
}

// Session is the chart of r's reads over the whole session, its steps
// shaded, as inline SVG; a chart saying why it is empty when no read
// printed an App Summary.
func Session(r *result.Result) string {
	reads := Reads(r.Memory, math.MinInt64, math.MaxInt64)
	t0, t1 := int64(math.MaxInt64), int64(math.MinInt64)
	for _, m := range reads {
		t0, t1 = min(t0, m.HostNs), max(t1, m.HostNs)
	}
	for _, st := range r.Steps {
		t0, t1 = min(t0, st.HostStartNs), max(t1, st.HostEndNs)
	}
	return chart(reads, r.Steps, t0, t1)
}

// chart draws reads on an axis from t0 to t1 (host ns), steps as bands.
func chart(reads []result.MemorySample, steps []*result.Step, t0, t1 int64) string {
	c := svgchart.New(svgchart.Frame{W: 760, H: 230, PadL: 58, PadR: 14, PadT: 44, PadB: 34},
		"chart", "data-chart", "memory-breakdown", "Memory by App Summary row per dumpsys meminfo read, MiB, stacked")
	c.Label(svgchart.Label{X: 58, Y: 16, Size: 13, Bold: true, Text: "Memory by App Summary row per dumpsys meminfo read, over the session (stacked)"})
	if len(reads) == 0 {
		c.ScaleY(1, false)
		c.Axes("MiB")
		return c.NoData("no dumpsys meminfo read with an App Summary in the session (Android 5 and older print none)")
	}
	top := 0.0
	for _, m := range reads {
		top = max(top, float64(stack(m))/1024)
	}
	c.ScaleY(top, false)
	span := max(float64(t1-t0)/1e9, 1e-3)
	c.LinearX(span)
	for _, st := range steps {
		x0, x1 := c.X(float64(st.HostStartNs-t0)/1e9), c.X(float64(st.HostEndNs-t0)/1e9)
		c.Band("step", x0, x1, "#f2f2f2", "step "+st.Name)
	}
	c.Axes("MiB")
	c.XTicks(0, span, svgchart.NiceStep(span/6), "s")
	w := max(1.5, min(40, float64(c.PlotW())/float64(len(reads))*0.7))
	for _, m := range reads {
		at := float64(m.HostNs-t0) / 1e9
		x := min(max(c.X(at)-w/2, float64(c.PadL)), float64(c.PadL+c.PlotW())-w)
		var below float64
		for _, r := range Rows {
			v := float64(m.Summary[r.Key]) / 1024
			title := fmt.Sprintf("%s: %d KiB (read at %.2fs)", r.Name, m.Summary[r.Key], at)
			c.Rect("part", x, c.Y(below+v), w, c.Y(below)-c.Y(below+v), r.Color, title)
			below += v
		}
	}
	lx := float64(c.PadL)
	for _, r := range Rows {
		c.Rect("key", lx, 26, 10, 10, r.Color, r.Name)
		c.Label(svgchart.Label{X: lx + 13, Y: 35, Size: 11, Text: r.Name})
		lx += 13 + 7*float64(len(r.Name)) + 12
	}
	return c.End()
}

// stack is the height of a read's bar in KiB.
func stack(m result.MemorySample) int64 {
	var s int64
	for _, r := range Rows {
		s += m.Summary[r.Key]
	}
	return s
}
