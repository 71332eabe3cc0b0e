package surfaceflinger

import (
	"io"
	"math"
)

// Times are the present times B of a window's frames, as
// ScanTimes reads them, held in 4 bytes a frame instead of
// 8: the first time, then each frame's time after the one before it (its
// frame time F), which fits 32 bits up to 4.29 s; a longer one (an app
// idle for seconds) is kept whole apart. A GB of --latency rows is 22
// million frames: 90 MB so, not 180.
type Times struct {
	n           int
	first, last int64
	// f[i] is frame i+1's time after frame i's, wideF when it is in wide.
	f    []uint32
	wide []int64
}

// wideF marks a frame time of 2^32−1 ns or more, kept in wide.
const wideF = math.MaxUint32

// Len is the number of frames.
func (st *Times) Len() int { return st.n }

// Add appends a present time, after the last one.
func (st *Times) Add(t int64) {
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
func (st *Times) Present() []int64 {
	if st.n == 0 {
		return nil
	}
	out := make([]int64, 0, st.n)
	st.each(func(t int64) { out = append(out, t) })
	return out
}

// each hands fn the present times in order.
func (st *Times) each(fn func(int64)) {
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

// Each hands fn the present times in order.
func (st *Times) Each(fn func(int64)) { st.each(fn) }

// Span is the last present time minus the first.
func (st *Times) Span() int64 { return st.last - st.first }

// FrameTimes are the times' own memory: f[i] is frame i+1's time after
// frame i's, math.MaxUint32 when it is the next of wide (in order).
// Reordering f spoils the times; a summary that sorts it in place
// (frames.SummarizeSurfaceFlingerTimes) is the last reader.
func (st *Times) FrameTimes() (f []uint32, wide []int64) { return st.f, st.wide }

// ScanTimes is ScanLatency keeping the
// frames' present times as Times, half the memory of
// []int64: for a capture read only to be summarized.
func ScanTimes(r io.Reader) (*Latency, *Times, error) {
	st := &Times{}
	l, _, err := scanSurfaceFlinger(r, st)
	if err != nil {
		return nil, nil, err
	}
	return l, st, nil
}
