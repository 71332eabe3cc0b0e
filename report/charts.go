package report

import (
	"fmt"
	"slices"

	"github.com/perfgate/perfgate/assert"
	"github.com/perfgate/perfgate/metrics"
	"github.com/perfgate/perfgate/perftest"
)

// stepCharts builds a step's charts: frame time per frame, FPS over time,
// CPU, memory and traffic, with the step's budgets drawn where a chart
// shows the budgeted value in the same unit.
func stepCharts(r *perftest.Result, st *perftest.Step, budgets []assert.Limit) []*chart {
	stepS := sec(st.HostEndNs - st.HostStartNs)
	if d := sec(st.DeviceEndNs - st.DeviceStartNs); d > stepS {
		stepS = d
	}
	budgetLines := func(scale float64, names ...metrics.Name) []hline {
		var out []hline
		for _, b := range budgets {
			if b.AppliesTo(st.Name) && slices.Contains(names, b.Metric) {
				out = append(out, hline{class: "budget", label: "budget " + b.String(), color: colBudget, y: b.Value * scale})
			}
		}
		return out
	}
	gaps := gapsOf(r, st)

	fs := framesOf(r, st)
	what, name := "frame time (t[i] − t[i−1], present times)", "frame time"
	if fs.source == metrics.FrameSourceGfxInfo {
		what, name = "frame duration (FrameCompleted − IntendedVsync)", "duration"
	}
	ft := &chart{id: "frametime", title: "Frame time per frame: " + what, unit: "ms", xMax: stepS, gaps: gaps,
		lines: []line{{name: name, color: colApp, pts: fs.ft}}}
	if fs.periodMS > 0 {
		ft.hlines = append(ft.hlines, hline{class: "deadline", label: fmt.Sprintf("refresh period %.2f ms", fs.periodMS), color: colRefresh, y: fs.periodMS})
	}
	ft.hlines = append(ft.hlines, budgetLines(1, metrics.FrameTimeP50, metrics.FrameTimeP90, metrics.FrameTimeP95, metrics.FrameTimeP99)...)
	// PerfDog judges the interval between frame times, which for gfxinfo
	// is not the duration the line shows: its marks sit at that interval.
	perfDogName, perfDogNote := "PerfDog ", ""
	if fs.source == metrics.FrameSourceGfxInfo {
		perfDogNote = " (by interval)"
	}
	ft.marks = []marks{
		{class: "jank-bigjank", name: perfDogName + "BigJank" + perfDogNote, color: colBigJank, r: 7, pts: fs.bigJank},
		{class: "jank-perfdog", name: perfDogName + "Jank" + perfDogNote, color: colPerfDog, r: 5.5, pts: fs.perfDog},
		{class: "jank-deadline", name: "deadline missed", color: colJank, r: 3.5, pts: fs.deadlineMissed},
	}

	fps := &chart{id: "fps", title: "FPS per second (frames with t in that second)", unit: "fps", xMax: stepS, gaps: gaps,
		lines:  []line{{name: "fps", color: colApp, pts: fpsSeries(fs.times, stepS)}},
		hlines: budgetLines(1, metrics.FPS)}

	c := cpuOf(r, st)
	cpu := &chart{id: "cpu", title: "CPU, % of the whole device per tick (/proc/stat)", unit: "%", xMax: stepS, gaps: gaps,
		lines:  []line{{name: "app", color: colApp, pts: c.app}, {name: "device", color: colDevice, pts: c.device}},
		hlines: budgetLines(1, metrics.CPU, metrics.CPUMax, metrics.CPUDevice)}
	for i, th := range c.threads {
		cpu.lines = append(cpu.lines, line{name: "thread " + th.name, color: threadColors[i%len(threadColors)], pts: th.pts})
	}

	rss, pss := memOf(r, st)
	mem := &chart{id: "memory", title: "Memory: RSS per tick (VmRSS), PSS (dumpsys meminfo)", unit: "MiB", xMax: stepS, gaps: gaps,
		lines:  []line{{name: "RSS", color: colRSS, pts: rss}, {name: "PSS", color: colPSS, pts: pss}},
		hlines: budgetLines(1.0/1024, metrics.PSSMax, metrics.RSSMax)}

	rx, tx := trafficOf(r, st)
	title := "Traffic since step start"
	if st.TrafficStats != nil {
		title += " (" + st.TrafficStats.Source + ", scope " + st.TrafficStats.Scope + ")"
	}
	tr := &chart{id: "traffic", title: title, unit: "KiB", xMax: stepS, gaps: gaps,
		lines:  []line{{name: "received", color: colRx, pts: rx}, {name: "sent", color: colTx, pts: tx}},
		hlines: budgetLines(1.0/1024, metrics.Rx, metrics.Tx)}
	return []*chart{ft, fps, cpu, mem, tr}
}
