package metrics

import (
	"io"
	"math"
	"slices"
)

// SurfaceFlingerTimes are the present times B of a window's frames, as
// ScanSurfaceFlingerTimes reads them, held in 4 bytes a frame instead of
// 8: the first time, then each frame's time after the one before it (its
// frame time F), which fits 32 bits up to 4.29 s; a longer one (an app
// idle for seconds) is kept whole apart. A GB of --latency rows is 22
// million frames: 90 MB so, not 180.
type SurfaceFlingerTimes struct {
	n           int
	first, last int64
	// f[i] is frame i+1's time after frame i's, wideF when it is in wide.
	f    []uint32
	wide []int64
}

// wideF marks a frame time of 2^32−1 ns or more, kept in wide.
const wideF = math.MaxUint32

// Len is the number of frames.
func (st *SurfaceFlingerTimes) Len() int { return st.n }

// add appends a present time, after the last one.
func (st *SurfaceFlingerTimes) add(t int64) {
	if st.n == 0 {
		st.first = t
	} else if f := t - st.last; f < wideF {
		st.f = append(st.f, uint32(f))
	} else {
		st.f = append(st.f, wideF)
		st.wide = append(st.wide, f)
	}
	st.last = t
	st.n++
}

// Present returns the present times, in order.
func (st *SurfaceFlingerTimes) Present() []int64 {
	if st.n == 0 {
		return nil
	}
	out := make([]int64, 0, st.n)
	st.each(func(t int64) { out = append(out, t) })
	return out
}

// each hands fn the present times in order.
func (st *SurfaceFlingerTimes) each(fn func(int64)) {
	if st.n == 0 {
		return
	}
	t, w := st.first, 0
	fn(t)
	for _, f := range st.f {
		if f == wideF {
			t += st.wide[w]
			w++
		} else {
			t += int64(f)
		}
		fn(t)
	}
}

// Summarize is FrameSummarizeSurfaceFlinger of the present times with
// refresh period R (ns), computed in the times' own memory: it reorders
// them, so it is called once.
func (st *SurfaceFlingerTimes) Summarize(period int64) FrameSummary {
	return st.summarize(period, 1<<16)
}

// summarize is Summarize reading the times back chunk at a time.
func (st *SurfaceFlingerTimes) summarize(period int64, chunk int) FrameSummary {
	var pd perfDogRun
	var ch chromiumRun
	// The times are read back into buf a chunk at a time after the four
	// before it, which the definitions look back at (PerfDog four, Chromium
	// one).
	buf := make([]int64, 0, 4+min(chunk, st.n))
	seen := 0 // the times read before buf's new ones
	flush := func() {
		keep := min(seen, 4)
		pd.run(buf, 4)
		if period > 0 {
			ch.run(buf, max(keep, 1), float64(period))
		}
		seen += len(buf) - keep
		tail := buf[max(len(buf)-4, 0):]
		buf = append(buf[:0], tail...)
	}
	st.each(func(t int64) {
		buf = append(buf, t)
		if len(buf) == cap(buf) {
			flush()
		}
	})
	if len(buf) > min(seen, 4) {
		flush()
	}
	s := frameSummaryRuns(st.n, st.last-st.first, period, &pd, &ch)
	s.Source = FrameSourceSurfaceFlinger
	if st.n >= 2 {
		// The frame times are f: the wide ones, marked by the largest
		// value, are the largest, and come in wide's order sorted.
		wide := slices.Clone(st.wide)
		slices.Sort(wide)
		narrow := len(st.f) - len(wide)
		s.FrameTimeMS = framePercentilesBy(st.f, func(k int) int64 {
			if st.f[k] == wideF {
				return wide[k-narrow]
			}
			return int64(st.f[k])
		})
	}
	s.Jank = s.PerfDog.Jank
	s.JankDefinition = JankDefinitionPerfDog
	return s
}

// ScanSurfaceFlingerTimes is ScanSurfaceFlingerLatency keeping the
// frames' present times as SurfaceFlingerTimes, half the memory of
// []int64: for a capture read only to be summarized.
func ScanSurfaceFlingerTimes(r io.Reader) (*SurfaceFlingerLatency, *SurfaceFlingerTimes, error) {
	st := &SurfaceFlingerTimes{}
	l, _, err := scanSurfaceFlinger(r, st)
	if err != nil {
		return nil, nil, err
	}
	return l, st, nil
}
