package result

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/causes"
	"github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/metrics"
)

// Metrics lists every metric of the step that its Result holds, in a
// fixed order: frames, CPU, memory, traffic, health. A metric nobody
// measured (a source unreadable, the app not running, too few samples) is
// left out rather than shown as zero; Absent says why.
func (st *Step) Metrics() []metrics.Metric {
	var out []metrics.Metric
	for _, e := range st.catalogue() {
		if e.why == "" {
			out = append(out, e.Metric)
		}
	}
	return out
}

// AbsentMetric is a metric of the catalogue the step has no value for.
type AbsentMetric struct {
	Name metrics.Name
	Unit string
	// Reason says why, naming the source: "traffic: /proc/<pid>/net/dev
	// unreadable on every read in the step (…)".
	Reason string
}

// Absent lists, in the order of Metrics, every metric of the catalogue the
// step has no value for, with the reason (Step.NotMeasured, or what the
// step's figures themselves show: no frames, one meminfo read, no launch).
// "Unmeasured is never zero": each of these is missing from Metrics, and
// gates and reports say "not measured" with the reason.
func (st *Step) Absent() []AbsentMetric {
	var out []AbsentMetric
	for _, e := range st.catalogue() {
		if e.why != "" {
			out = append(out, AbsentMetric{Name: e.Name, Unit: e.Unit, Reason: e.why})
		}
	}
	return out
}

// SetNotMeasured sets NotMeasured afresh: each metric of the catalogue
// gets the reason known gives it (what the collector knew of its sources),
// else the reason the step's figures show (see Absent), else none.
func (st *Step) SetNotMeasured(known func(metrics.Metric) string) {
	st.NotMeasured = nil
	for _, e := range st.catalogue() {
		r := cmp.Or(known(e.Metric), e.why)
		if r == "" {
			continue
		}
		if st.NotMeasured == nil {
			st.NotMeasured = map[metrics.Name]string{}
		}
		st.NotMeasured[e.Name] = r
	}
}

// entry is one metric of a step's catalogue and why the step has no value
// for it ("" when it has one).
type entry struct {
	metrics.Metric
	why string
}

// catalogue is every metric a step can have, each with its value or the
// reason it has none: Step.NotMeasured first (what the collector knew),
// then what the figures show.
func (st *Step) catalogue() []entry {
	var out []entry
	// add gives metric n its value v, measured as def says, or the reason
	// why the step has none.
	add := func(n metrics.Name, why string, v float64, def string) {
		if r := st.NotMeasured[n]; r != "" {
			why = r
		}
		out = append(out, entry{n.Def().Measure(v, def), why})
	}
	fs := st.FrameStats
	src := fs.Source
	// A frame source read with no frame in the step measured 0 frames;
	// every other frame figure needs frames to exist.
	var noSource, none, fewer, durations string
	if src == "" && fs.Frames == 0 {
		noSource = "frames: no frame source"
	}
	switch {
	case noSource != "":
		none, fewer, durations = noSource, noSource, noSource
	case fs.Frames == 0:
		none = "frames: no frame in the step"
		fewer, durations = none, none
	case fs.Frames == 1:
		fewer = "frames: needs two frames (intervals between frames); the step had 1"
	}
	if durations == "" {
		durations = "frames: needs frame durations (gfxinfo); the frames came from " + src
	}
	add(metrics.Frames, noSource, float64(fs.Frames), src)
	add(metrics.FPS, fewer, fs.FPS, "(n−1)/(t[n−1]−t[0]), "+src)
	add(metrics.Jank, none, float64(fs.Jank), jankName(fs.JankDefinition))
	dm, whyDM := 0, durations
	if fs.DeadlineMissed != nil {
		dm, whyDM = *fs.DeadlineMissed, none
	}
	add(metrics.JankDeadlineMissed, whyDM, float64(dm), metrics.JankDeadlineMissed.Def().Doc)
	add(metrics.JankPerfDog, none, float64(fs.PerfDog.Jank), metrics.JankPerfDog.Def().Doc)
	add(metrics.BigJankPerfDog, none, float64(fs.PerfDog.BigJank), metrics.BigJankPerfDog.Def().Doc)
	add(metrics.StutterPerfDog, fewer, fs.PerfDog.Stutter*100, metrics.StutterPerfDog.Def().Doc)
	add(metrics.JankChromium, fewer, float64(fs.Chromium.JankCount), metrics.JankChromium.Def().Doc)
	var tst TraceStep
	whyFT := "trace: no Perfetto trace read for the step"
	if st.Trace != nil {
		tst, whyFT = *st.Trace, ""
	}
	whyJankFT := whyFT
	if r := tst.NotMeasured["frametimeline"]; whyFT == "" && r != "" {
		whyJankFT = "trace: " + r
	}
	add(metrics.JankFrameTimeline, whyJankFT, float64(tst.AppJank), metrics.JankFrameTimeline.Def().Doc+", Perfetto trace")
	st.frameTiming(add, whyFT)
	add(metrics.MaxFrameDelay, fewer, float64(fs.Chromium.MaxFrameDelay), metrics.MaxFrameDelay.Def().Doc)
	// Frame durations exist for one frame; SurfaceFlinger frame times are
	// differences of present times, so they need two.
	ft, whyFT := "frame time, nearest rank", fewer
	if src == frames.SourceGfxInfo {
		ft, whyFT = "frame duration, nearest rank", none
	}
	p := fs.FrameTimeMS
	add(metrics.FrameTimeP50, whyFT, p.P50, ft)
	add(metrics.FrameTimeP90, whyFT, p.P90, ft)
	add(metrics.FrameTimeP95, whyFT, p.P95, ft)
	add(metrics.FrameTimeP99, whyFT, p.P99, ft)
	var vit frames.Vitals
	whyVit := durations
	if fs.Vitals != nil {
		vit, whyVit = *fs.Vitals, none
	}
	add(metrics.SlowFrames, whyVit, float64(vit.Slow), metrics.SlowFrames.Def().Doc)
	add(metrics.FrozenFrames, whyVit, float64(vit.Frozen), metrics.FrozenFrames.Def().Doc)
	var sm SmoothnessStats
	whySM := "gt sm: no Choreographer log read for the step"
	if st.Smoothness != nil {
		sm, whySM = *st.Smoothness, ""
	}
	add(metrics.SMGT, whySM, sm.MinSM, fmt.Sprintf("%s (refresh %g Hz), %s", metrics.SMGT.Def().Doc, sm.RefreshHz, sm.Source))

	c := st.CPUStats
	whyCPU := ""
	if c.Intervals == 0 {
		whyCPU = "cpu: no tick interval in the step"
	}
	for _, m := range []struct {
		n metrics.Name
		v float64
	}{{metrics.CPUIntervals, float64(c.Intervals)}, {metrics.CPU, c.Mean}, {metrics.CPUP90, c.P90}, {metrics.CPUMax, c.Max},
		{metrics.CPUCore, c.MeanPerCore}, {metrics.CPUDevice, c.DeviceMean}} {
		add(m.n, whyCPU, m.v, m.n.Def().Doc+", "+c.Source)
		if m.n == metrics.CPU {
			out[len(out)-1].Resolution = c.ResolutionPct
		}
	}

	m := st.MemoryStats
	whyPSS, whyGrowth, whyRSS := "", "", ""
	switch m.PSSSamples {
	case 0:
		whyPSS = "memory: no dumpsys meminfo read in the step"
		whyGrowth = whyPSS
	case 1:
		whyGrowth = "memory: growth needs two dumpsys meminfo reads in the step; it had 1"
	}
	if m.RSSSamples == 0 {
		whyRSS = "memory: no /proc/<pid>/status read in the step"
	}
	add(metrics.PSSMax, whyPSS, float64(m.PSSMaxKB), metrics.PSSMax.Def().Doc)
	add(metrics.PSSGrowth, whyGrowth, m.PSSGrowthKBPerMin, metrics.PSSGrowth.Def().Doc)
	add(metrics.RSSMax, whyRSS, float64(m.RSSMaxKB), metrics.RSSMax.Def().Doc)
	for _, b := range memBreakdown(m, whyPSS) {
		add(b.name, b.why, b.kb, b.name.Def().Doc)
	}

	var tr TrafficStats
	whyTr := "traffic: not collected"
	if st.TrafficStats != nil {
		tr, whyTr = *st.TrafficStats, ""
	}
	def := tr.Source + ", scope " + tr.Scope
	add(metrics.TrafficIntervals, whyTr, float64(tr.Intervals), metrics.TrafficIntervals.Def().Doc+", "+tr.Source)
	add(metrics.Rx, whyTr, float64(tr.RxBytes), def)
	add(metrics.Tx, whyTr, float64(tr.TxBytes), def)

	var b BatteryStats
	whyB := "battery: not read"
	if st.BatteryStats != nil {
		b, whyB = *st.BatteryStats, ""
	}
	add(metrics.BatteryTempMax, whyB, b.MaxTemperatureC, b.Source)
	whyCur := whyB
	if whyB == "" && b.MeanCurrentMA == 0 {
		whyCur = "battery: no current_now in the step's reads (" + b.Source + ")"
	}
	add(metrics.BatteryCurrentMean, whyCur, b.MeanCurrentMA, metrics.BatteryCurrentMean.Def().Doc+", "+b.Source)
	st.energyCatalogue(add)

	var su StartupStats
	whySU, whyFull := "startup: the step launched nothing", ""
	if st.Startup != nil && len(st.Startup.Iterations) > 0 {
		su, whySU = *st.Startup, ""
	}
	whyFull = whySU
	if whyFull == "" && su.FullDisplayMs <= 0 {
		drawn := 0
		for _, it := range su.Iterations {
			if it.FullyDrawnMs > 0 {
				drawn++
			}
		}
		whyFull = fmt.Sprintf("startup: time to full display needs every launch to log \"Fully drawn\" (the app calls reportFullyDrawn); %d of %d did", drawn, len(su.Iterations))
	}
	// A scenario's Source names both figures' sources ("am start -W
	// TotalTime; logcat Fully drawn"): each definition names its own.
	initialSrc, fullSrc, both := strings.Cut(su.Source, "; ")
	if !both {
		fullSrc = su.Source
	}
	median := ", median of " + strconv.Itoa(len(su.Iterations))
	if su.Compilation != "" {
		median = ", compilation " + su.Compilation + median // StartupOptions.Compilation
	}
	add(metrics.StartupInitial, whySU, su.InitialDisplayMs, metrics.StartupInitial.Def().Doc+", "+su.Kind+" start, "+initialSrc+median)
	add(metrics.StartupFull, whyFull, su.FullDisplayMs, metrics.StartupFull.Def().Doc+", "+su.Kind+" start, "+fullSrc+median)

	add(metrics.Crashes, "", float64(len(st.Crashes)), metrics.Crashes.Def().Doc)

	// The causes' figures: the longest main-thread message, the ANRs.
	whyBlocks, whyANRs := "blocks: the session did not look for causes", "anrs: the session did not look for causes"
	var longest, anrs float64
	if c := st.Causes; c != nil {
		whyBlocks, whyANRs = c.NotMeasured[causes.SourceBlocks], c.NotMeasured[causes.SourceANRs]
		if b, ok := c.MaxBlock(); ok {
			longest = float64(b.Ms)
		}
		anrs = float64(len(c.ANRs))
	}
	add(metrics.MaxBlock, whyBlocks, longest, metrics.MaxBlock.Def().Doc)
	add(metrics.ANRs, whyANRs, anrs, metrics.ANRs.Def().Doc)
	for _, s := range st.Sections {
		for _, f := range s.figures() {
			add(f.name, f.why, f.v, f.def)
		}
	}
	return out
}

// jankName turns a FrameSummary.JankDefinition into the words a reader
// knows.
func jankName(def string) string {
	switch def {
	case frames.JankDefinitionDeadlineMissed:
		return metrics.JankDeadlineMissed.Def().Doc
	case frames.JankDefinitionPerfDog:
		return metrics.JankPerfDog.Def().Doc
	}
	return def
}
