// Package memchart draws a step's memory broken down by the App Summary of
// `dumpsys meminfo`: one stacked bar per read, Java heap at the bottom,
// then native heap, code, stack, graphics and private other, each part
// saying its row and size on hover. The bar's height is their sum, the
// app's PSS less the System row.
//
//	svg := memchart.Breakdown(r.Memory, st.HostStartNs, st.HostEndNs)
package memchart

import (
	"fmt"

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

// Breakdown is the chart of the reads in [startNs, endNs] as inline SVG;
// a chart saying why it is empty when none printed an App Summary.
func Breakdown(samples []result.MemorySample, startNs, endNs int64) string {
	reads := Reads(samples, startNs, endNs)
	c := svgchart.New(svgchart.Frame{W: 760, H: 230, PadL: 58, PadR: 14, PadT: 44, PadB: 34},
		"chart", "data-chart", "memory-breakdown", "Memory by App Summary row per dumpsys meminfo read, MiB, stacked")
	c.Label(svgchart.Label{X: 58, Y: 16, Size: 13, Bold: true, Text: "Memory by App Summary row per dumpsys meminfo read (stacked)"})
	if len(reads) == 0 {
		c.ScaleY(1, false)
		c.Axes("MiB")
		return c.NoData("no dumpsys meminfo read with an App Summary in the step (Android 5 and older print none)")
	}
	top := 0.0
	for _, m := range reads {
		top = max(top, float64(stack(m))/1024)
	}
	c.ScaleY(top, false)
	c.Axes("MiB")
	slot := float64(c.PlotW()) / float64(len(reads))
	w := max(1.5, min(40, slot*0.7))
	for i, m := range reads {
		x := float64(c.PadL) + slot*(float64(i)+0.5) - w/2
		at := float64(m.HostNs-startNs) / 1e9
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
