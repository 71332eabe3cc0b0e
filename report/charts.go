package report

import (
	"fmt"
	"slices"

	"github.com/perfgate/perfgate/budget"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/report/internal/sessview"
	"github.com/perfgate/perfgate/result"
)

// stepCharts builds a step's charts: frame time per frame, FPS over time,
// CPU, memory, traffic and battery current, with the step's budgets drawn where a chart
// shows the budgeted value in the same unit.
func stepCharts(r *result.Result, st *result.Step, budgets []budget.Limit) []*chart {
	stepS := sec(st.HostEndNs - st.HostStartNs)
	if d := sec(st.DeviceEndNs - st.DeviceStartNs); d > stepS {
		stepS = d
	}
	lines := func(scale float64, unit string, names ...metrics.Name) []hline {
		return budgetLines(budgets, st.Name, scale, unit, names...)
	}
	gaps := gapsOf(r, st)
	fs := framesOf(r, st)
	ft := frameTimeChart(fs, stepS, gaps)
	ft.hlines = append(ft.hlines, lines(1, "ms", metrics.FrameTimeP50, metrics.FrameTimeP90, metrics.FrameTimeP95, metrics.FrameTimeP99)...)

	fps := &chart{id: "fps", title: "FPS per second (frames with t in that second)", unit: "fps", xMax: stepS, gaps: gaps,
		lines:  []line{{name: "fps", color: colApp, pts: fpsSeries(fs.times, stepS)}},
		hlines: lines(1, "fps", metrics.FPS)}

	c := cpuOf(r, st)
	cpu := &chart{id: "cpu", title: "CPU, % of the whole device per tick (/proc/stat)", unit: "%", xMax: stepS, gaps: gaps,
		lines:  []line{{name: "app", color: colApp, pts: c.app}, {name: "device", color: colDevice, pts: c.device}},
		hlines: lines(1, "%", metrics.CPU, metrics.CPUMax, metrics.CPUDevice)}
	for i, th := range c.threads {
		cpu.lines = append(cpu.lines, line{name: fmt.Sprintf("thread %s (tid %d)", th.name, th.tid), color: threadColors[i%len(threadColors)], pts: th.pts})
	}

	rss, pss := memOf(r, st)
	mem := &chart{id: "memory", title: "Memory: RSS per tick (VmRSS), PSS (dumpsys meminfo)", unit: "MiB", xMax: stepS, gaps: gaps,
		lines:  []line{{name: "RSS", color: colRSS, pts: rss}, {name: "PSS", color: colPSS, pts: pss}},
		hlines: lines(1.0/1024, "MiB", metrics.PSSMax, metrics.RSSMax)}

	rx, tx := trafficOf(r, st)
	title := "Traffic since step start"
	if st.TrafficStats != nil {
		title += " (" + st.TrafficStats.Source + ", scope " + st.TrafficStats.Scope + ")"
	}
	top := 0.0
	for _, p := range append(slices.Clone(rx), tx...) {
		top = max(top, p.y)
	}
	for _, h := range lines(1, "B", metrics.Rx, metrics.Tx) {
		top = max(top, h.y)
	}
	unit, div := sessview.ByteUnit(top)
	for _, s := range [][]pt{rx, tx} {
		for i := range s {
			s[i].y /= div
		}
	}
	tr := &chart{id: "traffic", title: title, unit: unit, xMax: stepS, gaps: gaps,
		lines:  []line{{name: "received", color: colRx, pts: rx}, {name: "sent", color: colTx, pts: tx}},
		hlines: lines(1/div, unit, metrics.Rx, metrics.Tx)}
	bat := &chart{id: "battery", title: "Battery current per read (current_now), mA with the sign the phone reports", unit: "mA", xMax: stepS, gaps: gaps,
		lines:  []line{{name: "current", color: colDevice, pts: batteryOf(r, st, stepS)}},
		hlines: lines(1, "mA", metrics.BatteryCurrentMean)}
	charts := []*chart{ft, fps, cpu, mem, tr, bat}
	if su := st.Startup; su != nil && len(su.Iterations) > 0 {
		charts = append(charts, startupChart(su, lines(1, "ms", metrics.StartupInitial, metrics.StartupFull)))
	}
	return charts
}

// budgetLines are the budgets on the named metrics that apply to step,
// drawn in a chart's unit (a value times scale): the label says the
// budget in that unit, and in the metric's own when they differ ("budget
// pss_max ≤ 164.06 MiB (168000KiB)"), so a line is never read against
// the wrong axis.
func budgetLines(budgets []budget.Limit, step string, scale float64, unit string, names ...metrics.Name) []hline {
	var out []hline
	for _, b := range budgets {
		if b.AppliesTo(step) && slices.Contains(names, b.Metric) {
			op := "≤"
			if b.Min {
				op = "≥"
			}
			label := fmt.Sprintf("budget %s %s %s %s", b.Metric, op, metrics.FormatValue(b.Value*scale, ""), unit)
			if scale != 1 {
				label += " (" + metrics.FormatValue(b.Value, b.Metric.Def().Unit) + ")"
			}
			out = append(out, hline{class: "budget", label: label, color: colBudget, y: b.Value * scale})
		}
	}
	return out
}

// frameTimeChart draws each frame's time, the refresh period, and the
// janky frames by each definition.
func frameTimeChart(fs frameSeries, stepS float64, gaps [][2]float64) *chart {
	what, name := "frame time (t[i] − t[i−1], present times)", "frame time"
	if fs.source == frames.SourceGfxInfo {
		what, name = "frame duration (FrameCompleted − IntendedVsync)", "duration"
	}
	ft := &chart{id: "frametime", title: "Frame time per frame: " + what, unit: "ms", xMax: stepS, gaps: gaps,
		lines: []line{{name: name, color: colApp, pts: fs.ft}}}
	if fs.periodMS > 0 {
		ft.hlines = append(ft.hlines, hline{class: "deadline", label: fmt.Sprintf("refresh period %.2f ms", fs.periodMS), color: colRefresh, y: fs.periodMS})
	}
	// PerfDog judges the interval between frame times, which for gfxinfo
	// is not the duration the line shows: its marks sit at that interval.
	perfDogName, perfDogNote := "PerfDog ", ""
	if fs.source == frames.SourceGfxInfo {
		perfDogNote = " (by interval)"
	}
	ft.marks = []marks{
		{class: "jank-bigjank", name: perfDogName + "BigJank" + perfDogNote, color: colBigJank, r: 7, pts: fs.bigJank, notes: fs.bigJankNotes},
		{class: "jank-perfdog", name: perfDogName + "Jank" + perfDogNote, color: colPerfDog, r: 5.5, pts: fs.perfDog, notes: fs.perfDogNotes},
		{class: "jank-deadline", name: "deadline missed", color: colJank, r: 3.5, pts: fs.deadlineMissed},
	}
	return ft
}

// startupChart draws each launch of a step: time to initial display (am
// start -W TotalTime) and to full display (logcat Fully drawn, where the
// app reported it), with the step's medians and budgets.
func startupChart(su *result.StartupStats, budgets []hline) *chart {
	c := &chart{id: "startup", title: fmt.Sprintf("Startup per launch (%s start): time to initial and to full display", su.Kind), unit: "ms", xUnit: "launch",
		xFrom: 1, xMax: float64(len(su.Iterations) + 1)}
	var initial, full []pt
	for i, it := range su.Iterations {
		initial = append(initial, pt{float64(i + 1), float64(it.TotalTimeMs)})
		if it.FullyDrawnMs > 0 {
			full = append(full, pt{float64(i + 1), float64(it.FullyDrawnMs)})
		}
	}
	c.lines = []line{{name: "initial display (TotalTime)", color: colApp, pts: initial}}
	if len(full) > 0 {
		c.lines = append(c.lines, line{name: "full display (Fully drawn)", color: colPSS, pts: full})
	}
	c.hlines = append(c.hlines, hline{class: "median", label: fmt.Sprintf("median initial display %s ms", metrics.FormatValue(su.InitialDisplayMs, "")), color: colRefresh, y: su.InitialDisplayMs})
	c.hlines = append(c.hlines, budgets...)
	return c
}

// batteryOf is sessview.BatteryCurrent as the chart's points.
func batteryOf(r *result.Result, st *result.Step, stepS float64) (out []pt) {
	for _, p := range sessview.BatteryCurrent(r.Samples, st.HostStartNs, st.HostEndNs, stepS) {
		out = append(out, pt{p[0], p[1]})
	}
	return out
}
