package frametiming

import (
	"slices"
	"sort"
	"strconv"
)

// Percentiles are p50, p90, p95 and p99 of a figure, in ms.
type Percentiles struct {
	P50, P90, P95, P99 float64
}

// Step is the figures of the frames of one window.
type Step struct {
	// Frames counts the frames in the window with a CPU figure or an
	// overrun.
	Frames int
	// CPU and Overrun are the percentiles of the frames' figures; nil
	// when NotMeasured says why there are none.
	CPU, Overrun      *Percentiles
	OverrunDefinition string
	NotMeasured       map[string]string
}

// Window is the figures of the frames whose Time is in [start, end), on
// the trace clock.
func (t *Timing) Window(start, end int64) Step {
	st := Step{OverrunDefinition: t.OverrunDefinition}
	lo := sort.Search(len(t.Frames), func(i int) bool { return t.Frames[i].Time >= start })
	var cpu, over []float64
	for _, f := range t.Frames[lo:] {
		if f.Time >= end {
			break
		}
		st.Frames++
		if f.HasCPU {
			cpu = append(cpu, float64(f.CPUNs)/1e6)
		}
		if f.HasOverrun {
			over = append(over, float64(f.OverrunNs)/1e6)
		}
	}
	why := func(k string, vs []float64) *Percentiles {
		if len(vs) > 0 {
			return PercentilesOf(vs)
		}
		r := t.NotMeasured[k]
		if r == "" {
			r = "no frame in the step has all of a DrawFrame slice, its Choreographer#doFrame slice and its FrameTimeline frames (" + strconv.Itoa(len(t.Frames)) + " in the whole trace)"
		}
		if st.NotMeasured == nil {
			st.NotMeasured = map[string]string{}
		}
		st.NotMeasured[k] = r
		return nil
	}
	st.CPU, st.Overrun = why(CPU, cpu), why(Overrun, over)
	return st
}

// PercentilesOf is p50, p90, p95 and p99 of vs (at least one value; vs is
// sorted in place) as Percentile gives them.
func PercentilesOf(vs []float64) *Percentiles {
	slices.Sort(vs)
	return &Percentiles{P50: Percentile(vs, 50), P90: Percentile(vs, 90), P95: Percentile(vs, 95), P99: Percentile(vs, 99)}
}

// Percentile is androidx MetricResult.getPercentile: over the m sorted
// values, the value at rank p/100·(m−1) (p clamped to 0…100), interpolated
// linearly between the ranks below and above it.
func Percentile(sorted []float64, p int) float64 {
	ideal := float64(min(max(p, 0), 100)) / 100 * float64(len(sorted)-1)
	first := int(ideal)
	a := sorted[first]
	b := a
	if first+1 < len(sorted) {
		b = sorted[first+1]
	}
	r := ideal - float64(first)
	return a*(1-r) + b*r
}
