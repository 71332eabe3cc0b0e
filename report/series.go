package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/perfgate/perfgate/android/gfxinfo"
	"github.com/perfgate/perfgate/android/procfs"
	framespkg "github.com/perfgate/perfgate/frames"
	"github.com/perfgate/perfgate/result"
)

// pt is one point of a chart: x in seconds since the step began, y in the
// chart's unit.
type pt struct{ x, y float64 }

// frameSeries is a step's frames as the frame-time chart draws them.
type frameSeries struct {
	source   string
	periodMS float64
	// times are the frames' times t (DESIGN.md), seconds since step start.
	times []float64
	// ft are frame times in ms: durations (FrameCompleted − IntendedVsync)
	// for gfxinfo, F[i] = t[i] − t[i−1] for SurfaceFlinger, whose first
	// frame therefore has none. The same values the step's percentiles use.
	ft []pt
	// Frames marked janky, per definition; x,y as in ft: each mark sits on
	// its frame's point of the line.
	deadlineMissed []pt
	perfDog        []pt
	bigJank        []pt
	// For gfxinfo, whose line shows durations while PerfDog judges the
	// interval before a frame, what each PerfDog mark judged.
	perfDogNotes, bigJankNotes []string
}

// stepFrames returns the frames of the window the step's frame summary
// describes (the one that rendered the most), in time order.
func stepFrames(r *result.Result, st *result.Step) []framespkg.Frame {
	fs := st.FrameStats
	var out []framespkg.Frame
	for _, f := range r.Frames {
		if f.Source != fs.Source || f.Window != fs.Window {
			continue
		}
		if t := f.Time(); t >= st.DeviceStartNs && t < st.DeviceEndNs {
			out = append(out, f)
		}
	}
	slices.SortStableFunc(out, func(a, b framespkg.Frame) int { return cmp.Compare(a.Time(), b.Time()) })
	return out
}

// framesOf builds the frame-time chart's data. The jank marks are the
// frames the step's frame summary (frames.Summarize) names under
// each definition, so the marks on the chart are the frames its counts
// counted.
func framesOf(r *result.Result, st *result.Step) frameSeries {
	fs := frameSeries{source: st.FrameStats.Source, periodMS: st.FrameStats.RefreshPeriodMS}
	frames := stepFrames(r, st)
	gfx := fs.source == framespkg.SourceGfxInfo
	if gfx {
		// Only frames the summary takes have a duration.
		frames = slices.DeleteFunc(frames, func(f framespkg.Frame) bool {
			return gfxinfo.RowReject(f.FrameStats, 0) != ""
		})
	}
	janked := framespkg.Summarize(fs.source, frames, int64(math.Round(fs.periodMS*1e6))).Janked
	t := make([]int64, len(frames))
	at := make(map[int64]int, len(frames))
	for i, f := range frames {
		t[i] = f.Time()
		at[t[i]] = i
		fs.times = append(fs.times, sec(t[i]-st.DeviceStartNs))
	}
	for i, f := range frames {
		switch {
		case gfx:
			fs.ft = append(fs.ft, pt{fs.times[i], ms(f.Duration())})
		case i > 0:
			fs.ft = append(fs.ft, pt{fs.times[i], ms(t[i] - t[i-1])})
		}
	}
	// marks places the frames at times ts on the line, where the frame's
	// point is (its duration for gfxinfo, the interval before it for
	// SurfaceFlinger); for gfxinfo PerfDog's marks also say the interval
	// it judged, which the line does not show.
	marks := func(ts []int64, interval bool) ([]pt, []string) {
		var out []pt
		var notes []string
		for _, x := range ts {
			i, ok := at[x]
			switch {
			case !ok:
			case gfx && interval && i > 0:
				// PerfDog counts frame i for the gap before it; on a line of
				// durations that gap is the spike of frame i−1, which took
				// long: the mark sits on that spike.
				out = append(out, pt{fs.times[i-1], ms(frames[i-1].Duration())})
				notes = append(notes, fmt.Sprintf("a gap of %.1f ms to the next frame (PerfDog counts the frame at %.3f s)", ms(t[i]-t[i-1]), fs.times[i]))
			case gfx && !interval:
				out = append(out, pt{fs.times[i], ms(frames[i].Duration())})
			case i > 0:
				out = append(out, pt{fs.times[i], ms(t[i] - t[i-1])})
			}
		}
		return out, notes
	}
	fs.deadlineMissed, _ = marks(janked.DeadlineMissed, false)
	fs.perfDog, fs.perfDogNotes = marks(janked.PerfDog, true)
	fs.bigJank, fs.bigJankNotes = marks(janked.PerfDogBig, true)
	return fs
}

// fpsSeries is frames per second of the step: the count of frame times t
// in each one-second bin, divided by the part of that bin inside the step
// for the last, shorter one. A bin shorter than a quarter of its width is
// left out: three frames in 50 ms are no frame rate. Steps longer than
// maxBins seconds get wider bins, so the chart stays small.
func fpsSeries(times []float64, stepS float64) []pt {
	const maxBins = 2000
	// A frame rate needs two frames (as the step's fps does): one frame
	// in a launch step is no "1 fps".
	if !(stepS > 0) || math.IsInf(stepS, 0) || len(times) < 2 {
		return nil
	}
	width := math.Max(1, math.Ceil(stepS/maxBins))
	n := int(math.Ceil(stepS / width))
	counts := make([]int, n)
	for _, t := range times {
		if k := int(math.Floor(t / width)); k >= 0 && k < n {
			counts[k]++
		}
	}
	var out []pt
	for k, c := range counts {
		w := math.Min(width, stepS-float64(k)*width)
		if w < width/4 {
			continue
		}
		out = append(out, pt{float64(k)*width + w/2, float64(c) / w})
	}
	return out
}

// cpuSeries holds CPU per tick interval, in % of the whole device.
type cpuSeries struct {
	app, device []pt
	threads     []threadSeries
}

type threadSeries struct {
	name string
	tid  int
	pts  []pt
}

// procKey tells a reused pid apart.
type procKey struct {
	pid   int
	start uint64
}

func procTicks(ps []procfs.PidStat) map[procKey]procfs.PidStat {
	m := make(map[procKey]procfs.PidStat, len(ps))
	for _, p := range ps {
		m[procKey{p.PID, p.StartTime}] = p
	}
	return m
}

// stepSamples returns the tick samples from the last one at or before the
// step's start to the first at or after its end, so the intervals cover
// the step.
func stepSamples(r *result.Result, st *result.Step, ok func(result.Sample) bool) []result.Sample {
	var in []result.Sample
	first, last := -1, -1
	for i, s := range r.Samples {
		if !ok(s) {
			continue
		}
		if s.HostNs <= st.HostStartNs {
			first = i
		}
		if s.HostNs >= st.HostEndNs && last < 0 {
			last = i
		}
	}
	for i, s := range r.Samples {
		if !ok(s) {
			continue
		}
		if (first >= 0 && i < first) || (last >= 0 && i > last) {
			continue
		}
		if first < 0 && s.HostNs < st.HostStartNs {
			continue
		}
		in = append(in, s)
	}
	return in
}

// cpuOf computes CPU per tick interval following DESIGN.md "CPU": device %
// = Δbusy/Δtotal × 100; app % = Δ(utime+stime) over the app's processes
// present at both ends / Δtotal × 100; threads likewise over the main
// process's threads. The top three threads of the step are kept.
func cpuOf(r *result.Result, st *result.Step) cpuSeries {
	var out cpuSeries
	ss := stepSamples(r, st, func(s result.Sample) bool { return s.CPU != nil })
	type tkey struct {
		tid  int
		name string
	}
	threadPts := map[tkey][]pt{}
	threadSum := map[tkey]float64{}
	for i := 1; i < len(ss); i++ {
		a, b := ss[i-1], ss[i]
		total, busy, err := procfs.CPUDelta(*a.CPU, *b.CPU)
		if err != nil {
			continue // a counter reset (reboot) or no time passed
		}
		dt := float64(total)
		x := sec((a.HostNs+b.HostNs)/2 - st.HostStartNs)
		out.device = append(out.device, pt{x, float64(busy) / dt * 100})
		// Processes present at both ends: none started inside counts.
		app := procfs.CPUAppTicksBetween(a.Procs, b.Procs, math.MaxUint64)
		out.app = append(out.app, pt{x, float64(app) / dt * 100})
		before := procTicks(a.Threads)
		for _, th := range b.Threads {
			p, ok := before[procKey{th.PID, th.StartTime}]
			if !ok || th.UTime+th.STime < p.UTime+p.STime {
				continue
			}
			v := float64(th.UTime+th.STime-p.UTime-p.STime) / dt * 100
			k := tkey{th.PID, th.Comm}
			threadPts[k] = append(threadPts[k], pt{x, v})
			threadSum[k] += v
		}
	}
	keys := make([]tkey, 0, len(threadSum))
	for k := range threadSum {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b tkey) int {
		if c := cmp.Compare(threadSum[b], threadSum[a]); c != 0 {
			return c
		}
		return cmp.Compare(a.tid, b.tid)
	})
	for _, k := range keys[:min(3, len(keys))] {
		if threadSum[k] == 0 {
			break
		}
		out.threads = append(out.threads, threadSeries{name: k.name, tid: k.tid, pts: threadPts[k]})
	}
	return out
}

// memOf returns RSS per tick (VmRSS) and PSS per `dumpsys meminfo` read,
// in MiB, inside the step.
func memOf(r *result.Result, st *result.Step) (rss, pss []pt) {
	for _, s := range r.Samples {
		if s.RSSKB > 0 && s.HostNs >= st.HostStartNs && s.HostNs <= st.HostEndNs {
			rss = append(rss, pt{sec(s.HostNs - st.HostStartNs), float64(s.RSSKB) / 1024})
		}
	}
	in := func(m result.MemorySample) bool { return m.HostNs >= st.HostStartNs && m.HostNs <= st.HostEndNs }
	if !slices.ContainsFunc(r.Memory, in) {
		// A step shorter than a meminfo read holds none: its figures take
		// the read its start called for, else the first after it began
		// (stepstats.Device), and so does the line, or the table says
		// 124000 KiB beside an empty chart.
		slow := st.HostEndNs + int64(r.Config.SlowIntervalMs*1e6)
		in = func(m result.MemorySample) bool {
			return slices.Contains(m.Steps, st.Name) || m.HostNs >= st.HostStartNs && m.HostNs <= slow
		}
		if i := slices.IndexFunc(r.Memory, in); i >= 0 {
			r = &result.Result{Memory: r.Memory[i : i+1]}
		}
	}
	for _, m := range r.Memory {
		if m.PSSKB > 0 && in(m) {
			pss = append(pss, pt{max(0, sec(m.HostNs-st.HostStartNs)), float64(m.PSSKB) / 1024})
		}
	}
	return rss, pss
}

// trafficOf returns the bytes received and sent since the step began at each traffic read inside it, counted from the last read at or
// before the step's start (the first read inside it when none came before).
// A counter that went backwards (an interface reset) starts a new baseline.
func trafficOf(r *result.Result, st *result.Step) (rx, tx []pt) {
	base := -1
	for i, s := range r.Traffic {
		if s.HostNs <= st.HostStartNs {
			base = i
		}
	}
	var rx0, tx0, rxSum, txSum uint64
	var prev result.TrafficSample
	started := false
	if base >= 0 {
		prev, started = r.Traffic[base], true
		rx0, tx0 = prev.RxBytes, prev.TxBytes
	}
	// The step's byte counts run to the first read at or after its end
	// (a read on each side of the step): that read is drawn too, or a
	// short step between two reads draws nothing while its table says
	// 620 B.
	end := -1
	for i, s := range r.Traffic {
		if s.HostNs >= st.HostEndNs {
			end = i
			break
		}
	}
	for i, s := range r.Traffic {
		if s.HostNs <= st.HostStartNs || s.HostNs > st.HostEndNs && i != end {
			continue
		}
		if !started {
			prev, started = s, true
			rx0, tx0 = s.RxBytes, s.TxBytes
		}
		if s.RxBytes < prev.RxBytes || s.TxBytes < prev.TxBytes {
			rxSum += prev.RxBytes - rx0
			txSum += prev.TxBytes - tx0
			rx0, tx0 = s.RxBytes, s.TxBytes
		}
		x := sec(s.HostNs - st.HostStartNs)
		rx = append(rx, pt{x, float64(rxSum + s.RxBytes - rx0)})
		tx = append(tx, pt{x, float64(txSum + s.TxBytes - tx0)})
		prev = s
	}
	return rx, tx
}

// gapsOf returns the step's failed ticks as [x0, x1] spans in seconds.
func gapsOf(r *result.Result, st *result.Step) [][2]float64 {
	var out [][2]float64
	for _, g := range r.Gaps {
		if g.HostNs+g.DurationNs < st.HostStartNs || g.HostNs > st.HostEndNs {
			continue
		}
		out = append(out, [2]float64{sec(g.HostNs - st.HostStartNs), sec(g.HostNs + g.DurationNs - st.HostStartNs)})
	}
	return out
}

func sec(ns int64) float64 { return float64(ns) / 1e9 }
func ms(ns int64) float64  { return float64(ns) / 1e6 }
